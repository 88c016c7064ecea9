// bench/pool-scale: throughput and peak memory of the four pool stages on
// seeded synthetic pools of 10k, 100k and 1M crashes.
//   import (from the empirical-study CSV and from JSONL), filter (the shipped
//   criteria), libcause (with --eval), resample (15 per library).
// Each step runs in its own process (node --import tsx step.ts) so its peak
// RSS is its own; "startup" is the same process doing nothing, the fixed cost
// of loading the toolchain.
// Usage: npx tsx bench/pool-scale/run.ts [--sizes 10000,100000,1000000] [--out bench/pool-scale/results.md] [--keep]
// Never part of the test run. Results depend on the machine and its load.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { writeFileAtomic } from '@junobench/core';
import { writeSyntheticPool } from './generate.js';
import { flag, hasFlag } from '../args.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../..');
const SIZES = flag('--sizes', '10000,100000,1000000').split(',').map(Number);
const OUT = path.resolve(flag('--out', path.join(here, 'results.md')));
const KEEP = hasFlag('--keep');
const STEPS = ['startup', 'import-csv', 'import-jsonl', 'filter', 'libcause', 'resample'] as const;

interface StepResult {
  step: string;
  records: number;
  wallMs: number;
  cpuMs: number;
  maxRssMiB: number;
  note: string;
}

const run = promisify(execFile);

async function runStep(step: string, dir: string): Promise<StepResult> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', path.join(here, 'step.ts'), step, dir], {
    cwd: repo,
    maxBuffer: 1 << 20,
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as StepResult;
}

const rows: Array<StepResult & { size: number; mb?: number }> = [];
for (const size of SIZES) {
  const dir = await mkdtemp(path.join(os.tmpdir(), `pool-scale-${size}-`));
  try {
    const t0 = Date.now();
    await writeSyntheticPool({ size, seed: 1, csv: path.join(dir, 'pool.csv'), jsonl: path.join(dir, 'pool.jsonl') });
    const csvMb = (await stat(path.join(dir, 'pool.csv'))).size / 2 ** 20;
    const jsonlMb = (await stat(path.join(dir, 'pool.jsonl'))).size / 2 ** 20;
    console.log(
      `${size}: generated ${csvMb.toFixed(0)} MB CSV, ${jsonlMb.toFixed(0)} MB JSONL in ${((Date.now() - t0) / 1000).toFixed(1)} s (${dir})`,
    );
    for (const step of STEPS) {
      const r = await runStep(step, dir);
      const mb = step === 'import-csv' ? csvMb : step === 'startup' ? undefined : jsonlMb;
      rows.push({ ...r, size, ...(mb !== undefined ? { mb } : {}) });
      const rate = r.records > 0 ? `${Math.round(r.records / (r.wallMs / 1000))} rec/s` : '';
      console.log(
        `  ${step.padEnd(13)} ${(r.wallMs / 1000).toFixed(1).padStart(7)} s  ${rate.padStart(14)}  peak RSS ${r.maxRssMiB.toFixed(0)} MiB  ${r.note}`,
      );
    }
  } finally {
    if (!KEEP) await rm(dir, { recursive: true, force: true });
  }
}

const fmt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 0 });
const table = [
  '| records | step | wall s | CPU s | records/s | MB/s | peak RSS MiB | note |',
  '|---:|---|---:|---:|---:|---:|---:|---|',
  ...rows
    .map((r) =>
      [
        fmt(r.size),
        r.step,
        (r.wallMs / 1000).toFixed(1),
        (r.cpuMs / 1000).toFixed(1),
        r.records > 0 ? fmt(r.records / (r.wallMs / 1000)) : '',
        r.mb !== undefined && r.records > 0 ? (r.mb / (r.wallMs / 1000)).toFixed(1) : '',
        r.maxRssMiB.toFixed(0),
        r.note,
      ].join(' | '),
    )
    .map((l) => `| ${l} |`),
];
const md = `# bench/pool-scale results

\`npx tsx bench/pool-scale/run.ts --sizes ${SIZES.join(',')}\` on ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}.

Seeded synthetic pools (10 crash scenarios across pandas, NumPy, scikit-learn, PyTorch, Keras, matplotlib, seaborn, notebook state, missing modules and plain Python errors; ANSI-coloured tracebacks as Jupyter saves them; 80 % Kaggle; some environment root causes), written as an empirical-study CSV and as JSONL CrashRecords. Each step is its own process (\`node --import tsx bench/pool-scale/step.ts\`), so "peak RSS" is that step's whole process; the "startup" row is the same process loading the toolchain and doing nothing. MB/s is of the step's input file. The libcause accuracy is against the synthetic labels and says nothing about real crashes (the published rows are measured with \`junobench pool libcause --eval\`).

${table.join('\n')}
`;
await writeFileAtomic(OUT, md);
console.log(`\nwrote ${path.relative(repo, OUT)}`);
