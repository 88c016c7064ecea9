// bench/release: what rendering the released report costs after a deprecation,
// the way `release prepare` does it now (the report reads the instance folders
// where they are: generateReport's `instanceFolders`) against the way it did
// until round 23 (every kept instance folder, and raw/'s instances outside the
// benchmark, copied with copyInstanceTree into the temporary view first), in
// the same run, rounds interleaved so a change of load hits both alike. The
// view's other files (benchmark, verification, labels, stats) are the same for
// both and made once. Each round's pages are compared byte for byte with the
// first old-way round's. Sizes: the project's curated/ as built, and again with
// `--data-mb` MB of padding added to every kept instance's data/ (a benchmark
// whose instances ship real datasets). Reports wall and CPU time (this
// process's user+sys), the bytes the old way writes into TMPDIR, and the
// ratio (one warm-up round of each is not counted). Usage (after `npx junobench build`):
//   npx tsx bench/release/run.ts [--from curated] [--raw raw] [--deprecate pandas_2] [--data-mb 0,20] [--rounds 5]
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  compareCodePoints,
  copyInstanceTree,
  formatJson,
  listInstanceIds,
  readJsonFile,
  type Benchmark,
  type VerificationReport,
} from '@junobench/core';
import { generateReport } from '@junobench/report';
import { flag } from '../args.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const from = path.resolve(flag('--from', path.join(root, 'curated')));
const raw = path.resolve(flag('--raw', path.join(root, 'raw')));
const deprecatedId = flag('--deprecate', 'pandas_2');
const sizes = flag('--data-mb', '0,20').split(',').map(Number);
const rounds = Number(flag('--rounds', '5'));

interface Sample {
  wallMs: number;
  cpuMs: number;
  copiedBytes: number;
}

async function main(): Promise<void> {
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'jb-bench-release-'));
  const lines: string[] = [];
  try {
    for (const mb of sizes) lines.push(...(await measureSize(scratch, mb)));
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  const out = [
    '# bench/release — the released report after a deprecation: instance folders read in place vs copied into the view',
    '',
    `Run: ${new Date().toISOString().slice(0, 16)}Z, ${os.cpus().length} cores (shared), node ${process.version}; curated/ = ${path.relative(root, from) || from}, deprecated ${deprecatedId}, ${rounds} rounds interleaved after one warm-up round of each, medians.`,
    '',
    '| data added per instance | instances (kept + raw) | old: copy + render wall | new: render in place wall | wall ratio old/new | old CPU | new CPU | CPU ratio | copied into TMPDIR (old) | pages identical |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...lines,
    '',
  ].join('\n');
  await writeFile(path.join(root, 'bench/release/results.md'), out);
  process.stdout.write(out);
}

async function measureSize(scratch: string, mb: number): Promise<string[]> {
  // A project copy: curated/ and raw/, the instance folders through the one rule for untrusted folders.
  const proj = path.join(scratch, `data-${mb}`);
  const curated = path.join(proj, 'curated');
  const rawCopy = path.join(proj, 'raw');
  for (const name of await readdir(from)) {
    if (name === 'instances' || name === 'report') continue;
    await cp(path.join(from, name), path.join(curated, name), { recursive: true });
  }
  for (const id of await listInstanceIds(path.join(from, 'instances')))
    await copyInstanceTree(path.join(from, 'instances', id), path.join(curated, 'instances', id));
  for (const id of await listInstanceIds(path.join(raw, 'instances')))
    await copyInstanceTree(path.join(raw, 'instances', id), path.join(rawCopy, 'instances', id));
  await cp(path.join(raw, 'annotations'), path.join(rawCopy, 'annotations'), { recursive: true });
  const benchmark = await readJsonFile<Benchmark>(path.join(curated, 'benchmark.json'), { schema: 'benchmark' });
  if (mb > 0) {
    const block = Buffer.alloc(1024 * 1024);
    for (let i = 0; i < block.length; i++) block[i] = (i * 2654435761) >>> 24;
    for (const e of benchmark.instances) {
      await mkdir(path.join(curated, 'instances', e.id, 'data'), { recursive: true });
      await writeFile(
        path.join(curated, 'instances', e.id, 'data', 'bench-padding.bin'),
        Buffer.concat(Array.from({ length: mb }, () => block)),
      );
    }
  }

  // The view's files other than instance folders, as the release view writes them (made once: the same for both ways).
  const deprecated = new Set([deprecatedId]);
  const kept: Benchmark = { ...benchmark, instances: benchmark.instances.filter((e) => !deprecated.has(e.id)) };
  const verification = await readJsonFile<VerificationReport>(path.join(curated, 'verification.json'), {
    schema: 'verification',
  });
  const makeView = async (dir: string) => {
    await mkdir(path.join(dir, 'curated'), { recursive: true });
    await writeFile(path.join(dir, 'curated', 'benchmark.json'), formatJson(kept));
    await writeFile(
      path.join(dir, 'curated', 'verification.json'),
      formatJson({ ...verification, instances: verification.instances.filter((v) => !deprecated.has(v.instance)) }),
    );
    for (const name of ['labels', 'stats'])
      await cp(path.join(curated, name), path.join(dir, 'curated', name), { recursive: true });
    await mkdir(path.join(dir, 'raw'), { recursive: true });
  };
  const withdrawn = { instances: [...deprecated], agreementRecomputed: false };
  const rawIds = (await listInstanceIds(path.join(rawCopy, 'instances'))).sort(compareCodePoints);

  const oldWay = async (n: number): Promise<Sample & { report: string }> => {
    const dir = path.join(proj, `old-${n}`);
    await makeView(dir);
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    let copiedBytes = 0;
    for (const e of kept.instances) {
      copiedBytes += (
        await copyInstanceTree(path.join(curated, 'instances', e.id), path.join(dir, 'curated', 'instances', e.id))
      ).reduce((s, f) => s + f.size, 0);
    }
    await mkdir(path.join(dir, 'raw', 'instances'), { recursive: true });
    const inBenchmark = new Set(kept.instances.map((e) => e.id));
    for (const id of rawIds) {
      if (deprecated.has(id) || inBenchmark.has(id)) continue;
      copiedBytes += (
        await copyInstanceTree(path.join(rawCopy, 'instances', id), path.join(dir, 'raw', 'instances', id)).catch(
          () => [],
        )
      ).reduce((s, f) => s + f.size, 0);
    }
    const report = path.join(dir, 'curated', 'report');
    await generateReport({ from: path.join(dir, 'curated'), raw: path.join(dir, 'raw'), out: report, withdrawn });
    const c = process.cpuUsage(c0);
    return { wallMs: performance.now() - t0, cpuMs: (c.user + c.system) / 1000, copiedBytes, report };
  };
  const newWay = async (n: number): Promise<Sample & { report: string }> => {
    const dir = path.join(proj, `new-${n}`);
    await makeView(dir);
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    const report = path.join(dir, 'curated', 'report');
    await generateReport({
      from: path.join(dir, 'curated'),
      raw: path.join(dir, 'raw'),
      out: report,
      instanceFolders: { curated: path.join(curated, 'instances'), raw: path.join(rawCopy, 'instances') },
      withdrawn,
    });
    const c = process.cpuUsage(c0);
    return { wallMs: performance.now() - t0, cpuMs: (c.user + c.system) / 1000, copiedBytes: 0, report };
  };

  // One round of each first, not counted: module loading and JIT warm-up would land on whichever ran first.
  for (const w of [await oldWay(-1), await newWay(-1)])
    await rm(path.dirname(path.dirname(w.report)), { recursive: true, force: true });
  const olds: Sample[] = [];
  const news: Sample[] = [];
  let reference: Map<string, string> | undefined;
  let identical = true;
  for (let i = 0; i < rounds; i++) {
    // Alternate which goes first, so neither always runs on a warm cache.
    const pair = i % 2 === 0 ? [await oldWay(i), await newWay(i)] : [await newWay(i), await oldWay(i)].reverse();
    for (const s of pair) {
      const pages = await readPages(s.report);
      reference ??= pages;
      if (!samePages(reference, pages)) identical = false;
    }
    olds.push(pair[0]!);
    news.push(pair[1]!);
    await rm(path.join(proj, `old-${i}`), { recursive: true, force: true });
    await rm(path.join(proj, `new-${i}`), { recursive: true, force: true });
    process.stderr.write(
      `data +${mb} MB: round ${i + 1}/${rounds}: old ${ms(pair[0]!.wallMs)}, new ${ms(pair[1]!.wallMs)}\n`,
    );
  }
  await rm(proj, { recursive: true, force: true });
  const oldWall = median(olds.map((s) => s.wallMs));
  const newWall = median(news.map((s) => s.wallMs));
  const oldCpu = median(olds.map((s) => s.cpuMs));
  const newCpu = median(news.map((s) => s.cpuMs));
  return [
    `| ${mb} MB | ${kept.instances.length} + ${rawIds.filter((id) => !deprecated.has(id) && !kept.instances.some((e) => e.id === id)).length} | ${ms(oldWall)} | ${ms(newWall)} | ${(oldWall / newWall).toFixed(2)} | ${ms(oldCpu)} | ${ms(newCpu)} | ${(oldCpu / newCpu).toFixed(2)} | ${(olds[0]!.copiedBytes / 1e6).toFixed(1)} MB | ${identical ? 'yes' : 'NO'} |`,
  ];
}

async function readPages(dir: string): Promise<Map<string, string>> {
  const pages = new Map<string, string>();
  for (const name of await readdir(dir, { recursive: true })) {
    if (name.endsWith('.html')) pages.set(name, await readFile(path.join(dir, name), 'utf8'));
  }
  return pages;
}

function samePages(a: Map<string, string>, b: Map<string, string>): boolean {
  return a.size === b.size && [...a].every(([k, v]) => b.get(k) === v);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function ms(x: number): string {
  return x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${Math.round(x)} ms`;
}

await main();
