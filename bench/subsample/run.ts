// bench/subsample: throughput of @junobench/subsample.
//   images: sampling (+ resize/re-encode) of a seeded set of generated images
//           (JPEG and PNG, RGB and grayscale) against a plain copy of the same files;
//   tables: rows/s, MB/s and peak memory of the two-pass streaming CSV sampler on a
//           generated CSV of ~1 GB.
// Usage: npx tsx bench/subsample/run.ts [--images 3000] [--csv-mb 1024] [--out bench/subsample/results.md]
// Never part of the test run. Results depend on the machine and its load: the
// CPU time is given beside the wall time for that reason.
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { hashTree, listTree, writeFileAtomic } from '@junobench/core';
import { generateSource, runPool, sampleImages } from '@junobench/subsample';
// Test fixtures double as bench fixtures (seeded, textured images).
import { EXTENSION, writeImage, type FixtureKind } from '../../packages/subsample/test-helpers/image-fixtures.js';
import { flag } from '../args.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../..');
const N_IMAGES = Number(flag('--images', '3000'));
const CSV_MB = Number(flag('--csv-mb', '1024'));
const OUT = path.resolve(flag('--out', path.join(here, 'results.md')));

interface Row {
  what: string;
  items: number;
  mb: number;
  wallS: number;
  cpuS: number;
  note?: string;
}

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; wallS: number; cpuS: number }> {
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const value = await fn();
  const c = process.cpuUsage(c0);
  return { value, wallS: Number(process.hrtime.bigint() - t0) / 1e9, cpuS: (c.user + c.system) / 1e6 };
}

async function dirBytes(dir: string): Promise<number> {
  let n = 0;
  for (const f of await listTree(dir)) n += (await stat(path.join(dir, f))).size;
  return n;
}

async function benchImages(tmp: string): Promise<Row[]> {
  const src = path.join(tmp, 'images');
  const kinds: FixtureKind[] = ['rgb-jpeg', 'gray-jpeg', 'rgb-png', 'gray-png'];
  const jobs = Array.from({ length: N_IMAGES }, (_, i) => i);
  const gen = await timed(() =>
    runPool(jobs, 4, async (i) => {
      const kind = kinds[i % kinds.length]!;
      // 10 classes; 160–480 px wide.
      const w = 160 + ((i * 37) % 321);
      const h = Math.round(w * (0.6 + ((i * 13) % 40) / 100));
      await writeImage(
        path.join(src, `class_${i % 10}`, `img_${String(i).padStart(5, '0')}${EXTENSION[kind]}`),
        kind,
        w,
        h,
        i,
      );
    }),
  );
  const mb = (await dirBytes(src)) / 2 ** 20;
  console.log(`generated ${N_IMAGES} images, ${mb.toFixed(1)} MB in ${gen.wallS.toFixed(1)} s`);
  const rows: Row[] = [];
  const files = await listTree(src);
  const copy = await timed(() =>
    runPool(files, 4, async (f) => {
      await mkdir(path.dirname(path.join(tmp, 'copy', f)), { recursive: true });
      await copyFile(path.join(src, f), path.join(tmp, 'copy', f));
    }),
  );
  rows.push({ what: 'plain copy of every image (floor)', items: files.length, mb, ...copy });
  const all = await timed(() => sampleImages(src, path.join(tmp, 'all'), { fraction: 1, seed: 1 }));
  rows.push({
    what: 'sample all, bytes kept (header probe + copy)',
    items: files.length,
    mb,
    wallS: all.wallS,
    cpuS: all.cpuS,
  });
  const half = await timed(() => sampleImages(src, path.join(tmp, 'half'), { fraction: 0.5, seed: 1 }));
  rows.push({
    what: 'sample 50 % per class, bytes kept',
    items: files.length,
    mb,
    wallS: half.wallS,
    cpuS: half.cpuS,
    note: `${half.value.imagesAfter} kept`,
  });
  const resize = await timed(() =>
    sampleImages(src, path.join(tmp, 'resize'), { fraction: 0.5, maxSide: 128, seed: 1 }),
  );
  await sampleImages(src, path.join(tmp, 'resize2'), { fraction: 0.5, maxSide: 128, seed: 1 });
  const same = (await hashTree(path.join(tmp, 'resize'))) === (await hashTree(path.join(tmp, 'resize2')));
  rows.push({
    what: 'sample 50 % per class + resize to 128 px + re-encode',
    items: files.length,
    mb,
    wallS: resize.wallS,
    cpuS: resize.cpuS,
    note: `${resize.value.resized} re-encoded; ${(resize.value.bytesAfter / 2 ** 20).toFixed(1)} MB out; identical bytes on a second run: ${same ? 'yes' : 'NO'}`,
  });
  const resizeAll = await timed(() =>
    sampleImages(src, path.join(tmp, 'resize-all'), { fraction: 1, maxSide: 128, seed: 1 }),
  );
  rows.push({
    what: 'resize every image to 128 px + re-encode',
    items: files.length,
    mb,
    wallS: resizeAll.wallS,
    cpuS: resizeAll.cpuS,
  });
  return rows;
}

async function benchCsv(tmp: string): Promise<{ rows: Row[]; lines: string[] }> {
  const rowsWanted = Math.round((CSV_MB * 2 ** 20) / 86);
  // The ~1 GB source is generated once into the (git-ignored) cache and reused by later runs.
  const gen = await timed(() =>
    generateSource(path.join(repo, '.junobench-cache', 'bench-sources'), 'retail-sales', { rows: rowsWanted }, 1),
  );
  const file = path.join(gen.value.dir, 'sales.csv');
  const bytes = (await stat(file)).size;
  console.log(`generated ${rowsWanted} rows, ${(bytes / 2 ** 20).toFixed(0)} MB in ${gen.wallS.toFixed(0)} s`);
  const out: Row[] = [];
  const lines: string[] = [];
  for (const mode of ['plain', 'stratified'] as const) {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', path.join(here, 'csv-worker.ts'), file, path.join(tmp, `out-${mode}.csv`), '10000', mode],
      { cwd: repo, maxBuffer: 1 << 20 },
    );
    const r = JSON.parse(stdout.trim().split('\n').pop()!) as {
      wallMs: number;
      cpuMs: number;
      maxRssMiB: number;
      report: { rowsBefore: number; strata: number };
    };
    out.push({
      what:
        mode === 'plain'
          ? 'CSV: keep 10,000 rows (two passes)'
          : 'CSV: keep 10,000 rows stratified by region × missing pattern, + keep filter',
      items: r.report.rowsBefore,
      mb: bytes / 2 ** 20,
      wallS: r.wallMs / 1000,
      cpuS: r.cpuMs / 1000,
      note: `peak RSS ${r.maxRssMiB.toFixed(0)} MiB; ${r.report.strata} strata`,
    });
  }
  lines.push(
    `CSV source: ${rowsWanted.toLocaleString('en')} rows, ${(bytes / 2 ** 20).toFixed(0)} MiB (retail-sales generator, seed 1), ${gen.value.cached ? 'reused from .junobench-cache/bench-sources' : `generated in ${gen.wallS.toFixed(0)} s`}.`,
  );
  return { rows: out, lines };
}

function table(rows: Row[], unit: string): string {
  const head = `| what | ${unit} | MB | wall s | ${unit}/s | MB/s | CPU s | note |\n|---|---:|---:|---:|---:|---:|---:|---|`;
  return [
    head,
    ...rows.map(
      (r) =>
        `| ${r.what} | ${r.items.toLocaleString('en')} | ${r.mb.toFixed(0)} | ${r.wallS.toFixed(1)} | ${Math.round(r.items / r.wallS).toLocaleString('en')} | ${(r.mb / r.wallS).toFixed(1)} | ${r.cpuS.toFixed(1)} | ${r.note ?? ''} |`,
    ),
  ].join('\n');
}

const tmp = await mkdtemp(path.join(os.tmpdir(), 'jb-bench-subsample-'));
try {
  const images = N_IMAGES > 0 ? await benchImages(tmp) : [];
  const csv = CSV_MB > 0 ? await benchCsv(tmp) : { rows: [], lines: [] };
  const load = os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
  const md = [
    '# bench/subsample results',
    '',
    `Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, sharp ${sharp.versions.sharp} / libvips ${sharp.versions.vips}; load average at the end: ${load} (the machine is shared: CPU seconds are the steadier figure).`,
    `Command: \`npx tsx bench/subsample/run.ts --images ${N_IMAGES} --csv-mb ${CSV_MB}\` (${new Date().toISOString().slice(0, 10)}).`,
    '',
    '## Images',
    '',
    `${N_IMAGES} seeded generated images in 10 class folders, 160–480 px wide, a quarter each of RGB JPEG, grayscale JPEG, RGB PNG, grayscale PNG. Images/s and MB/s count the input set.`,
    '',
    table(images, 'images'),
    '',
    '## Tables',
    '',
    ...csv.lines,
    '',
    table(csv.rows, 'rows'),
    '',
  ].join('\n');
  await writeFileAtomic(OUT, md);
  console.log(md);
} finally {
  await rm(tmp, { recursive: true, force: true });
}
