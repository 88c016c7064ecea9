// bench/verify: our verifier against the obvious sequential alternative
// (nbclient, one notebook at a time, fresh kernel each) and against the floor
// (the cells' own work, imports done first, spread over the cores), on the
// same machine in the same round. Each round runs every row once; the table
// shows the median over rounds and the spread (min–max), because the machine
// may be shared. Usage:
//   npx tsx bench/verify/run.ts [--instances raw/instances] [--rounds 3] [--docker [--image <tag>]] [--jobs 2] [--ids a,b]
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import {
  listInstanceIds,
  readInstance,
  type RunPhases,
  type VerificationReport,
  type VersionResult,
} from '@junobench/core';
import { planExecution, readNotebook } from '@junobench/notebook';
import { planPrewarm } from '@junobench/verify';
import { writeResults } from '../results-file.js';
import { flag, hasFlag } from '../args.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const instancesDir = path.resolve(root, flag('--instances', 'raw/instances'));
const rounds = Number(flag('--rounds', '3'));
const cores = os.availableParallelism();
const jobs = Number(flag('--jobs', String(cores)));
const python = process.env.JUNOBENCH_PYTHON ?? '/usr/bin/python3';
const withDocker = hasFlag('--docker');
// The benchmark image for the docker row (default: the one curated/image.json records).
const image = flag('--image', '');

const cli = (a: string[]) =>
  execa('node', [path.join(root, 'packages/cli/bin/junobench.js'), ...a], {
    cwd: root,
    reject: false,
    env: { ...process.env, CI: '1' },
  });

type PhaseName = Exclude<keyof RunPhases, 'cellsMinorFaults'>;
const PHASES: PhaseName[] = [
  'containerMs',
  'startMs',
  'readyMs',
  'importsMs',
  'waitMs',
  'cellsMs',
  'cellsCpuMs',
  'teardownMs',
];

interface Measure {
  wallMs: number;
  cellsMs: number;
  phases: Partial<Record<PhaseName, number>>;
  kernels: Record<string, number>;
  jobs: number;
  failures: number;
}

async function main() {
  // TensorFlow instances are skipped locally: leave them out of every row.
  const ids: string[] = [];
  const items: { notebook: string; cwd: string; cells: number[]; prewarm: string[] }[] = [];
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'jb-bench-verify-'));
  const only = flag('--ids', '').split(',').filter(Boolean);
  for (const id of await listInstanceIds(instancesDir)) {
    if (only.length > 0 && !only.includes(id)) continue;
    const inst = await readInstance(path.join(instancesDir, id));
    const probe = await execa(python, ['-c', inst.requires.map((m) => `import ${m}`).join('; ') || 'pass'], {
      reject: false,
    });
    if (probe.exitCode !== 0) continue;
    ids.push(id);
    for (const v of ['reproduced', 'fixed']) {
      // The baseline also gets a scratch copy per notebook, as our runtime does.
      const dir = path.join(scratch, `${id}-${v}`);
      await cp(path.join(instancesDir, id), dir, { recursive: true });
      const nb = await readNotebook(path.join(dir, `${v}.ipynb`));
      const cells = planExecution(nb, inst.execution.order, inst.execution.cells);
      items.push({
        notebook: path.join(dir, `${v}.ipynb`),
        cwd: dir,
        cells,
        prewarm: planPrewarm(nb, cells, inst.requires),
      });
    }
  }
  const n = items.length;
  const loadStart = os.loadavg();
  console.log(
    `bench/verify: ${ids.length} instances, ${n} notebooks, ${cores} CPUs, --jobs ${jobs}, ${rounds} round(s); load ${loadStart.map((x) => x.toFixed(1)).join(' ')}`,
  );

  const rows: [string, string[]][] = [
    ['junobench verify --jobs 1', ['--jobs', '1']],
    ['junobench verify --jobs 1 --no-fork', ['--jobs', '1', '--no-fork']],
    [`junobench verify --jobs ${jobs}`, ['--jobs', String(jobs)]],
    [`junobench verify --jobs ${jobs} --no-fork`, ['--jobs', String(jobs), '--no-fork']],
    // The local runtime's bubblewrap sandbox is on by default: what it costs is the difference to these.
    ['junobench verify --jobs 1 --unsandboxed', ['--jobs', '1', '--unsandboxed']],
    [`junobench verify --jobs ${jobs} --unsandboxed`, ['--jobs', String(jobs), '--unsandboxed']],
    ...(withDocker
      ? ([
          [
            `junobench verify --runtime docker --jobs ${jobs}`,
            ['--runtime', 'docker', '--jobs', String(jobs), ...(image ? ['--image', image] : [])],
          ],
          // Fresh containers, one per notebook: what the slot containers replace.
          [
            `junobench verify --runtime docker --jobs ${jobs} --no-fork`,
            ['--runtime', 'docker', '--jobs', String(jobs), '--no-fork', ...(image ? ['--image', image] : [])],
          ],
        ] as [string, string[]][])
      : []),
  ];
  const measures: Record<string, Measure[]> = {};
  const add = (k: string, m: Measure) => (measures[k] ??= []).push(m);
  const loads: number[] = [];

  for (let r = 0; r < rounds; r++) {
    const t0 = Date.now();
    const b = await execa(python, [path.join(root, 'bench/verify/nbclient_baseline.py')], {
      input: JSON.stringify(items),
    });
    const base = JSON.parse(b.stdout) as { notebooks: { cellsMs: number }[] };
    add('nbclient one by one', {
      wallMs: Date.now() - t0,
      cellsMs: sum(base.notebooks.map((x) => x.cellsMs)),
      phases: {},
      kernels: {},
      jobs: 1,
      failures: 0,
    });
    const f = await execa(python, [path.join(root, 'bench/verify/nbclient_baseline.py'), '--floor'], {
      input: JSON.stringify(items),
    });
    const floorCells = sum(
      (JSON.parse(f.stdout) as { notebooks: { cellsMs: number }[] }).notebooks.map((x) => x.cellsMs),
    );
    // The floor: the cells' own work (imports done before, one thread per kernel) spread perfectly over the jobs.
    add(`floor: cells only, imports first, ÷ ${jobs}`, {
      wallMs: floorCells / jobs,
      cellsMs: floorCells,
      phases: {},
      kernels: {},
      jobs,
      failures: 0,
    });

    for (const [label, extra] of rows) {
      const json = path.join(scratch, 'v.json');
      await rm(json, { force: true });
      const t1 = Date.now();
      const res = await cli(['verify', ...ids, '--instances', instancesDir, '--no-cache', '--json', json, ...extra]);
      const wallMs = Date.now() - t1;
      // Exit 1 is a verdict (an instance not verified: counted below); anything else means no report to read.
      if (res.exitCode !== 0 && res.exitCode !== 1)
        throw new Error(`${label} exited ${res.exitCode}: ${res.stderr.slice(-500)}`);
      const rep = JSON.parse(await readFile(json, 'utf8')) as VerificationReport;
      const versions: VersionResult[] = rep.instances.flatMap((v) => [v.reproduced, v.fixed]);
      const phases: Partial<Record<PhaseName, number>> = {};
      for (const p of PHASES) {
        const xs = versions.map((v) => v.phases?.[p]).filter((x): x is number => typeof x === 'number');
        if (xs.length > 0) phases[p] = sum(xs);
      }
      const kernels: Record<string, number> = {};
      for (const v of versions) if (v.kernel) kernels[v.kernel] = (kernels[v.kernel] ?? 0) + 1;
      add(label, {
        wallMs,
        cellsMs: sum(versions.map((v) => sum(v.cells.map((c) => c.durationMs)))),
        phases,
        kernels,
        jobs: Number(extra[extra.indexOf('--jobs') + 1]),
        failures: rep.instances.filter((v) => v.status !== 'verified').length,
      });
    }
    loads.push(os.loadavg()[0]!);
    console.log(
      `round ${r + 1}/${rounds} done; load ${os
        .loadavg()
        .map((x) => x.toFixed(1))
        .join(' ')}`,
    );
  }

  const baseline = measures['nbclient one by one']!;
  const floor = measures[`floor: cells only, imports first, ÷ ${jobs}`]!;
  const localJobs = measures[`junobench verify --jobs ${jobs}`]!;
  // What a row costs beyond the floor in the same round, per notebook and job slot: the cells' own slow-down
  // (a busy core, copy-on-write faults) counts here, which "outside cells" leaves out.
  const aboveFloor = (ms: Measure[]) => ms.map((m, i) => ((m.wallMs - floor[i]!.wallMs) * m.jobs) / n);
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const lines = [
    '# bench/verify',
    '',
    `${ids.length} embedded instances (${n} notebooks: reproduced + fixed; TensorFlow ones are skipped locally and left out), ${cores} CPUs, ${rounds} round(s), ${new Date().toISOString().slice(0, 10)}.`,
    `Load average (1 min) at the start ${loadStart[0]!.toFixed(1)}, after each round ${loads.map((x) => x.toFixed(1)).join(', ')} — the machine is shared: compare rows of the same round (speed-ups are per round), not runs.`,
    '',
    'Wall time for the whole set: median of the rounds [min–max]. "speed-up" is nbclient\'s wall time divided by the row\'s, in the same round (median [min–max]).',
    '"outside cells / notebook" = (wall × jobs − time in cells) / notebooks: what each notebook costs beyond its own cells, per job slot.',
    '"above floor / notebook" = (wall − the floor\'s wall in the same round) × jobs / notebooks: what each notebook costs beyond the ideal, per job slot (median [min–max]).',
    '',
    '| runner | wall | speed-up vs nbclient | in cells | outside cells / notebook | above floor / notebook | verified all |',
    '|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const [label, ms] of Object.entries(measures)) {
    const walls = ms.map((m) => m.wallMs);
    const ups = ms.map((m, i) => baseline[i]!.wallMs / m.wallMs);
    const outside = ms.map((m) => (m.wallMs * m.jobs - m.cellsMs) / n);
    const floorRow = label.startsWith('floor');
    const above = aboveFloor(ms).map((x) => x / 1000);
    lines.push(
      `| ${label} | ${s(median(walls))} [${s(Math.min(...walls))}–${s(Math.max(...walls))}] | ${median(ups).toFixed(2)}× [${Math.min(...ups).toFixed(2)}–${Math.max(...ups).toFixed(2)}] | ${s(median(ms.map((m) => m.cellsMs)))} | ${floorRow ? '—' : `${(median(outside) / 1000).toFixed(2)} s`} | ${floorRow ? '—' : `${median(above).toFixed(2)} s [${Math.min(...above).toFixed(2)}–${Math.max(...above).toFixed(2)}]`} | ${floorRow || label.startsWith('nbclient') ? '—' : ms.every((m) => m.failures === 0) ? 'yes' : `no (${ms.map((m) => m.failures).join(', ')} not verified)`} |`,
    );
  }
  lines.push('', '## Where the time goes (median round, summed over the notebooks, s)', '');
  lines.push(`| runner | ${PHASES.join(' | ')} | kernels |`, `|---|${PHASES.map(() => '---:').join('|')}|---|`);
  for (const [label, ms] of Object.entries(measures)) {
    if (!label.startsWith('junobench')) continue;
    const mid = ms[indexOfMedian(ms.map((m) => m.wallMs))]!;
    lines.push(
      `| ${label} | ${PHASES.map((p) => (mid.phases[p] !== undefined ? (mid.phases[p]! / 1000).toFixed(1) : '—')).join(' | ')} | ${Object.entries(
        mid.kernels,
      )
        .map(([k, c]) => `${k} ${c}`)
        .join(', ')} |`,
    );
  }
  lines.push(
    '',
    'Phases (see docs/verify.md, "Where the time goes"): containerMs create + start of the container; startMs fork or launch of the kernel; readyMs until it answers; importsMs prewarm imports; waitMs what the notebook waited for its kernel after its turn came (start, ready and imports overlap the previous notebook when the kernel is started ahead); cellsMs / cellsCpuMs wall / CPU in cells; teardownMs kernel shutdown.',
    '',
    '## Targets',
    '',
    `- local \`--jobs ${jobs}\` ≥ 3.5× nbclient one by one: median ${median(localJobs.map((m, i) => baseline[i]!.wallMs / m.wallMs)).toFixed(2)}×.`,
    `- outside cells ≤ 0.2 s per notebook at \`--jobs ${jobs}\`: median ${(median(localJobs.map((m) => (m.wallMs * m.jobs - m.cellsMs) / n)) / 1000).toFixed(2)} s; above the floor: median ${(median(aboveFloor(localJobs)) / 1000).toFixed(2)} s.`,
  );
  for (const j of [1, jobs]) {
    const boxed = measures[`junobench verify --jobs ${j}`]!;
    const bare = measures[`junobench verify --jobs ${j} --unsandboxed`]!;
    const ratios = boxed.map((m, i) => m.wallMs / bare[i]!.wallMs);
    const perNotebook = boxed.map((m, i) => ((m.wallMs - bare[i]!.wallMs) * j) / n);
    lines.push(
      `- the sandbox at \`--jobs ${j}\`: sandboxed / unsandboxed wall in the same round ${median(ratios).toFixed(2)}× [${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}], ${(median(perNotebook) / 1000).toFixed(2)} s per notebook and job slot.`,
    );
  }
  if (withDocker) {
    const ratio = (label: string): string => {
      const r = measures[label]!.map((m, i) => m.wallMs / localJobs[i]!.wallMs);
      return `median ${median(r).toFixed(2)}× [${Math.min(...r).toFixed(2)}–${Math.max(...r).toFixed(2)}]`;
    };
    lines.push(
      `- docker ≤ 1.3× local at \`--jobs ${jobs}\`: ${ratio(`junobench verify --runtime docker --jobs ${jobs}`)} (slot containers, kernels forked into sandboxes of their own); fresh containers (\`--no-fork\`) ${ratio(`junobench verify --runtime docker --jobs ${jobs} --no-fork`)}.`,
    );
  }
  const text = lines.join('\n') + '\n';
  console.log(text);
  // Readings written by hand (spikes, what a run means) follow the marker and outlive a new run.
  await writeResults(path.join(root, 'bench/verify/results.md'), text);
  await rm(scratch, { recursive: true, force: true });
}

function sum(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}

function median(xs: number[]): number {
  return xs[indexOfMedian(xs)]!;
}

function indexOfMedian(xs: number[]): number {
  const order = xs.map((x, i) => [x, i] as const).sort((a, b) => a[0] - b[0]);
  return order[Math.floor(order.length / 2)]![1];
}

await main();
