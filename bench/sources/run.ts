// bench/sources: one Kaggle kernel with a ~50 MB dataset through the fake
// `kaggle` CLI (packages/sources/test-helpers/fake-kaggle), end to end with the real junobench
// binary and the local runtime:
//   floor    the fake CLI's own `datasets download` of the same dataset (what any collector pays);
//   collect  `junobench collect kaggle <ref> --with-data` (pull, metadata, download, safe extraction, hashing);
//   add      `junobench add <source-dir> --notebook <file>` (mining, draft, data/ copy, verification in a real kernel);
//   fetch    `junobench sources fetch` (everything again, checked against the lock);
//   drift    one row of the CSV changed upstream, then `sources fetch` again (its output is kept).
// Usage: npx tsx bench/sources/run.ts [--mb 50] [--out bench/sources/results.md]
// Never part of the test run; wall times depend on the machine's load (given with it).
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createRng, writeFileAtomic } from '@junobench/core';
import { FAKE_KAGGLE_BINARY, FakeKaggle } from '../../packages/sources/test-helpers/fake-kaggle/fake-kaggle-server.js';
import { makeNotebook } from '../../packages/sources/test-helpers/notebooks.js';
import { flag } from '../args.js';

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../..');
const MB = Number(flag('--mb', '50'));
const OUT = path.resolve(flag('--out', path.join(here, 'results.md')));

function makeCsv(bytes: number): string {
  const rng = createRng('bench-sources');
  const rows = ['id,region,area,rooms,price'];
  let size = rows[0]!.length + 1;
  const regions = ['north', 'south', 'east', 'west', 'centre'];
  for (let i = 0; size < bytes; i++) {
    const row = `${i},${regions[Math.floor(rng.next() * 5)]},${(30 + rng.next() * 200).toFixed(1)},${1 + Math.floor(rng.next() * 7)},${Math.floor(50_000 + rng.next() * 900_000)}`;
    rows.push(row);
    size += row.length + 1;
  }
  return `${rows.join('\n')}\n`;
}

async function timed<T>(what: string, f: () => Promise<T>): Promise<{ what: string; ms: number; value: T }> {
  const t0 = performance.now();
  const value = await f();
  return { what, ms: performance.now() - t0, value };
}

async function main(): Promise<void> {
  const proj = await mkdtemp(path.join(os.tmpdir(), 'jb-bench-sources-'));
  try {
    await mkdir(path.join(proj, 'raw', 'instances'), { recursive: true });
    const fake = await FakeKaggle.create(path.join(proj, 'kaggle-server'));
    const csv = makeCsv(MB * 1e6);
    const nb = makeNotebook([
      { source: "import pandas as pd\ndf = pd.read_csv('/kaggle/input/house-sales/sales.csv')", count: 1 },
      { source: "df.groupby('region')['price'].mean()", count: 2 },
      { source: "df['prize'].describe()", count: 3, error: { ename: 'KeyError', evalue: "'prize'" } },
    ]);
    await fake.addKernel('bench/house-sales-crash', nb, { dataset_sources: ['bench/house-sales'] });
    await fake.addDataset('bench/house-sales', {
      title: 'House sales',
      licenses: [{ name: 'CC0-1.0' }],
      files: { 'sales.csv': csv },
    });
    const env = {
      ...process.env,
      ...fake.env({
        JUNOBENCH_CACHE_DIR: path.join(proj, 'cache'),
        JUNOBENCH_AUTHOR_SALT: 'bench-salt-0123456789abcdef',
        CI: '1',
      }),
    };
    const jb = (args: string[]) =>
      run(process.execPath, [path.join(repo, 'packages/cli/bin/junobench.js'), ...args], {
        cwd: proj,
        env,
        maxBuffer: 64 << 20,
      }).catch((e: { stdout?: string; stderr?: string; code?: number }) => ({
        stdout: e.stdout ?? '',
        stderr: e.stderr ?? '',
        code: e.code,
      }));

    const floorDir = path.join(proj, 'floor');
    await mkdir(floorDir);
    const floor = await timed('floor: fake `kaggle datasets download` alone', () =>
      run(FAKE_KAGGLE_BINARY, ['datasets', 'download', 'bench/house-sales', '-p', floorDir], { env }),
    );
    const zipBytes = (await stat(path.join(floorDir, 'house-sales.zip'))).size;
    const collect = await timed('junobench collect kaggle --with-data', () =>
      jb(['collect', 'kaggle', 'bench/house-sales-crash', '--with-data']),
    );
    // `kernels pull` gives the source only; the notebook with its outputs is the one downloaded from the kernel's page.
    await copyFile(fake.pageNotebook('bench/house-sales-crash'), path.join(proj, 'house-sales-crash.ipynb'));
    const add = await timed('junobench add (draft + data/ + verify in the local runtime)', () =>
      jb(['add', 'raw/sources/kaggle/bench/house-sales-crash', '--notebook', 'house-sales-crash.ipynb']),
    );
    const fetch = await timed('junobench sources fetch (all as locked)', () => jb(['sources', 'fetch']));
    const lines = csv.split('\n');
    lines[1000] = lines[1000]!.replace(/,(\d+)$/, (_m, p: string) => `,${Number(p) + 1}`);
    await writeFile(path.join(proj, 'kaggle-server/datasets/bench/house-sales/files/sales.csv'), lines.join('\n'));
    const drift = await timed('junobench sources fetch (one row changed upstream)', () => jb(['sources', 'fetch']));

    const rows = [floor, collect, add, fetch, drift];
    const load = os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' / ');
    const md = [
      '# bench/sources',
      '',
      `One Kaggle kernel with a ${(csv.length / 1e6).toFixed(1)} MB CSV dataset (zip ${(zipBytes / 1e6).toFixed(1)} MB) through the fake \`kaggle\` CLI and the real \`junobench\` binary; verification in the local runtime (real Jupyter kernel, pandas). \`npx tsx bench/sources/run.ts --mb ${MB}\`.`,
      '',
      `Machine: ${os.cpus().length} cores, load average at the end ${load} (the machine is shared: wall times are noisy).`,
      '',
      '| step | wall time |',
      '|---|---|',
      ...rows.map((r) => `| ${r.what} | ${(r.ms / 1000).toFixed(1)} s |`),
      '',
      `collect / floor: ${(collect.ms / floor.ms).toFixed(2)}× (what safe extraction, per-file sha256, the tree hash and the metadata calls add to the bare download).`,
      `collect + add + verify: ${((collect.ms + add.ms) / 1000).toFixed(1)} s.`,
      '',
      '## `junobench add` output',
      '',
      '```',
      String(add.value.stdout).trim(),
      '```',
      '',
      '## How the lock reports drift (`junobench sources fetch`, exit 1)',
      '',
      '```',
      String(drift.value.stdout).trim(),
      '```',
      '',
    ].join('\n');
    await writeFileAtomic(OUT, md);
    process.stdout.write(md);
  } finally {
    await rm(proj, { recursive: true, force: true });
  }
}

await main();
