// bench/verify: our verifier against the obvious sequential alternative
// (nbclient, one notebook at a time, fresh kernel each), on the same machine
// in the same run. Usage: npx tsx bench/verify/run.ts [--instances raw/instances] [--rounds 2]
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { listInstanceIds, readInstance, type VerificationReport } from '@junobench/core';
import { planExecution, readNotebook } from '@junobench/notebook';
import { flag, hasFlag } from '../args.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const instancesDir = path.resolve(root, flag('--instances', 'raw/instances'));
const rounds = Number(flag('--rounds', '2'));
const python = process.env.JUNOBENCH_PYTHON ?? '/usr/bin/python3';
const withDocker = hasFlag('--docker');

const cli = (a: string[]) => execa('node', [path.join(root, 'packages/cli/bin/junobench.js'), ...a], { cwd: root, reject: false, env: { ...process.env, CI: '1' } });

async function main() {
  // TensorFlow instances are skipped locally: leave them out of both sides.
  const ids: string[] = [];
  const items: { notebook: string; cwd: string; cells: number[] }[] = [];
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'jb-bench-verify-'));
  for (const id of await listInstanceIds(instancesDir)) {
    const inst = await readInstance(path.join(instancesDir, id));
    const probe = await execa(python, ['-c', inst.requires.map((m) => `import ${m}`).join('; ') || 'pass'], { reject: false });
    if (probe.exitCode !== 0) continue;
    ids.push(id);
    for (const v of ['reproduced', 'fixed']) {
      // The baseline also gets a scratch copy per notebook, as our runtime does.
      const dir = path.join(scratch, `${id}-${v}`);
      await cp(path.join(instancesDir, id), dir, { recursive: true });
      const nb = await readNotebook(path.join(dir, `${v}.ipynb`));
      items.push({ notebook: path.join(dir, `${v}.ipynb`), cwd: dir, cells: planExecution(nb, inst.execution.order, inst.execution.cells) });
    }
  }
  const n = items.length;
  console.log(`bench/verify: ${ids.length} instances, ${n} notebooks, ${os.availableParallelism()} CPUs, ${rounds} round(s)`);

  const results: Record<string, number[]> = {};
  const cellTimes: Record<string, number[]> = {};
  const add = (k: string, ms: number) => (results[k] ??= []).push(ms);

  for (let r = 0; r < rounds; r++) {
    const t0 = Date.now();
    const b = await execa(python, [path.join(root, 'bench/verify/nbclient_baseline.py')], { input: JSON.stringify(items) });
    add('nbclient sequential', Date.now() - t0);
    const base = JSON.parse(b.stdout) as { notebooks: { cellsMs: number }[] };
    (cellTimes['nbclient sequential'] ??= []).push(base.notebooks.reduce((s, x) => s + x.cellsMs, 0));

    for (const [label, extra] of [
      ['junobench verify --jobs 1', ['--jobs', '1']],
      ['junobench verify --jobs 1 --no-fork', ['--jobs', '1', '--no-fork']],
      ['junobench verify --jobs 1 --no-fork --no-prewarm', ['--jobs', '1', '--no-fork', '--no-prewarm']],
      [`junobench verify --jobs ${os.availableParallelism()}`, []],
      ...(withDocker ? [[`junobench verify --runtime docker --jobs ${os.availableParallelism()}`, ['--runtime', 'docker']]] : []),
    ] as [string, string[]][]) {
      const json = path.join(scratch, 'v.json');
      const t1 = Date.now();
      const res = await cli(['verify', ...ids, '--instances', instancesDir, '--no-cache', '--json', json, ...extra]);
      add(label, Date.now() - t1);
      if (res.exitCode !== 0) console.error(`${label} exited ${res.exitCode}: ${res.stderr.slice(-500)}`);
      const rep = JSON.parse(await readFile(json, 'utf8')) as VerificationReport;
      const inCells = rep.instances.reduce((s, v) => s + [v.reproduced, v.fixed].reduce((a, x) => a + x.cells.reduce((c, cell) => c + cell.durationMs, 0), 0), 0);
      (cellTimes[label] ??= []).push(inCells);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const baseline = median(results['nbclient sequential']!);
  const lines = [
    `# bench/verify`,
    '',
    `${ids.length} embedded instances (${n} notebooks: reproduced + fixed), ${os.availableParallelism()} CPUs, median of ${rounds} round(s), ${new Date().toISOString().slice(0, 10)}.`,
    'Wall time for the whole set; "in cells" = summed execution time of the cells as the runner measured them; "overhead/notebook" = (wall − in cells) / notebooks, for the sequential runs.',
    'Read the two together: with prewarm or forked kernels the notebooks\' imports are done before their first cell, so they leave "in cells" and the overhead that remains is what is not hidden.',
    '',
    '| runner | wall | per notebook | in cells | overhead/notebook | speed-up vs nbclient |',
    '|---|---:|---:|---:|---:|---:|',
  ];
  for (const [label, xs] of Object.entries(results)) {
    const wall = median(xs);
    const cells = median(cellTimes[label]!);
    const sequential = label.includes('--jobs 1') || label.startsWith('nbclient');
    lines.push(`| ${label} | ${(wall / 1000).toFixed(1)} s | ${(wall / n / 1000).toFixed(2)} s | ${(cells / 1000).toFixed(1)} s | ${sequential ? `${((wall - cells) / n / 1000).toFixed(2)} s` : '—'} | ${(baseline / wall).toFixed(2)}× |`);
  }
  lines.push('', `Load average at the end: ${os.loadavg().map((x) => x.toFixed(1)).join(' ')} (the machine may be shared: compare rows of the same run, not runs).`);
  const text = lines.join('\n') + '\n';
  console.log(text);
  await writeFile(path.join(root, 'bench/verify/results.md'), text);
  await rm(scratch, { recursive: true, force: true });
}

await main();
