// bench/queue: the queue runtime against the local runtime on the same
// notebooks in the same run, throughput with 1 and 2 workers, and the
// ceiling: no-op jobs per second the coordinator and Redis sustain.
// Usage: npx tsx bench/queue/run.ts [--redis redis://127.0.0.1:6417] [--instances raw/instances] [--noop 3000]
// [--ceiling-only]
// (--ceiling-only measures the no-op ceiling again and replaces that part of results.md)
// Needs Redis (sh tools/setup-redis.sh) and the Python stack (sh tools/setup-python.sh).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { Redis } from 'ioredis';
import { listInstanceIds, readInstance, type VerificationReport } from '@junobench/core';
import { createQueueRuntime } from '@junobench/queue';
import type { NotebookRun } from '@junobench/runtime';
import { deletePrefix } from '../../packages/queue/test-helpers/queue.js';
import { flag, hasFlag } from '../args.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const url = flag('--redis', process.env.JUNOBENCH_TEST_REDIS ?? 'redis://127.0.0.1:6417');
const instancesDir = path.resolve(root, flag('--instances', 'raw/instances'));
const noopJobs = Number(flag('--noop', '3000'));
// --docker: two more rows, the docker runtime (slot containers) and one --jobs 2 worker running it, so the queue's
// overhead is measured with docker too; --image names the benchmark image (default: curated/image.json's).
const withDocker = hasFlag('--docker');
const image = flag('--image', '');
const dockerArgs = ['--runtime', 'docker', ...(image ? ['--image', image] : [])];
const python = process.env.JUNOBENCH_PYTHON ?? '/usr/bin/python3';
const bin = path.join(root, 'packages/cli/bin/junobench.js');
const prefix = `jbbench-${randomBytes(4).toString('hex')}`;
const children: ChildProcess[] = [];

function startWorker(args: string[], env: NodeJS.ProcessEnv = {}): Promise<ChildProcess> {
  const proc = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, CI: '1', JUNOBENCH_QUEUE_PREFIX: prefix, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(proc);
  return new Promise((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (/ready/.test(out)) resolve(proc);
    });
    proc.on('exit', (code) => reject(new Error(`worker exited ${code} before it was ready: ${out}`)));
  });
}

async function stop(procs: ChildProcess[]): Promise<void> {
  await Promise.all(
    procs.map(
      (p) =>
        new Promise<void>((resolve) => {
          if (p.exitCode !== null) return resolve();
          p.once('exit', () => resolve());
          p.kill('SIGTERM');
        }),
    ),
  );
}

interface Row {
  label: string;
  wallMs: number;
  cellsMs: number;
  notebooks: number;
}

async function verify(label: string, ids: string[], extra: string[], scratch: string): Promise<Row> {
  const json = path.join(scratch, `${label.replace(/\W+/g, '-')}.json`);
  const t0 = Date.now();
  const r = await execa(
    'node',
    [
      bin,
      'verify',
      ...ids,
      '--instances',
      instancesDir,
      '--no-cache',
      '--cache-dir',
      path.join(scratch, 'cache'),
      '--json',
      json,
      ...extra,
    ],
    {
      cwd: root,
      reject: false,
      env: { ...process.env, CI: '1', JUNOBENCH_QUEUE_PREFIX: prefix },
    },
  );
  const wallMs = Date.now() - t0;
  if (r.exitCode !== 0) throw new Error(`${label} exited ${r.exitCode}: ${r.stderr.slice(-800)}`);
  const rep = JSON.parse(await readFile(json, 'utf8')) as VerificationReport;
  const cellsMs = rep.instances.reduce(
    (s, v) => s + [v.reproduced, v.fixed].reduce((a, x) => a + x.cells.reduce((c, cell) => c + cell.durationMs, 0), 0),
    0,
  );
  return { label, wallMs, cellsMs, notebooks: ids.length * 2 };
}

async function noopCeiling(
  workers: number,
  jobsPerWorker: number,
  scratch: string,
): Promise<{ workers: number; jobs: number; ms: number }> {
  const procs: ChildProcess[] = [];
  for (let i = 0; i < workers; i++) {
    procs.push(
      await startWorker([
        '--import',
        'tsx',
        path.join(root, 'bench/queue/noop-worker.ts'),
        url,
        prefix,
        `noop-${workers}-${i}`,
        String(jobsPerWorker),
      ]),
    );
  }
  const rt = await createQueueRuntime({ url, prefix, waitSeconds: 30 });
  try {
    const dir = path.join(scratch, 'noop-instance');
    await writeFile(path.join(scratch, 'noop-instance.keep'), '');
    await execa('mkdir', ['-p', dir]);
    await writeFile(path.join(dir, 'fixed.ipynb'), '{}');
    const runs: NotebookRun[] = Array.from({ length: noopJobs }, (_, i) => ({
      id: `noop/${i}`,
      instanceDir: dir,
      notebook: 'fixed.ipynb',
      cells: [0],
      cellTimeoutSeconds: 10,
      timeoutSeconds: 10,
    }));
    await rt.run(runs.slice(0, 50)); // warm-up: connections, scripts loaded, tree cached
    const t0 = Date.now();
    await rt.run(runs);
    return { workers, jobs: noopJobs, ms: Date.now() - t0 };
  } finally {
    await rt.close();
    await stop(procs);
  }
}

function formatCeiling(ceilings: { workers: number; jobs: number; ms: number }[]): string[] {
  return [
    `Ceiling: no-op jobs (a runtime that answers at once; the coordinator, Redis and the workers on these ${os.availableParallelism()} CPUs), ${noopJobs} jobs per row, after a warm-up:`,
    '',
    '| no-op workers (8 jobs each) | jobs/s |',
    '|---:|---:|',
    ...ceilings.map((c) => `| ${c.workers} | ${((c.jobs / c.ms) * 1000).toFixed(0)} |`),
    '',
    `Load average at the end: ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')} (the machine may be shared: compare rows of the same run, not runs).`,
  ];
}

async function ceilingOnly() {
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'jb-bench-queue-'));
  try {
    const ceilings = [
      await noopCeiling(1, 8, scratch),
      await noopCeiling(2, 8, scratch),
      await noopCeiling(4, 8, scratch),
    ];
    const out = path.join(root, 'bench/queue/results.md');
    const previous = await readFile(out, 'utf8');
    const start = previous.indexOf('Ceiling: no-op jobs');
    const notes = previous.indexOf('\n## Notes');
    const text =
      previous.slice(0, start) +
      formatCeiling(ceilings).join('\n') +
      `\n(ceiling measured again on ${new Date().toISOString().slice(0, 10)})\n` +
      (notes >= 0 ? previous.slice(notes) : '');
    console.log(formatCeiling(ceilings).join('\n'));
    await writeFile(out, text);
  } finally {
    await cleanup(scratch);
  }
}

async function main() {
  if (hasFlag('--ceiling-only')) return ceilingOnly();
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'jb-bench-queue-'));
  // Instances that run locally (TensorFlow is skipped there): the same set on every side.
  const ids: string[] = [];
  for (const id of await listInstanceIds(instancesDir)) {
    const inst = await readInstance(path.join(instancesDir, id));
    const probe = await execa(python, ['-c', inst.requires.map((m) => `import ${m}`).join('; ') || 'pass'], {
      reject: false,
    });
    if (probe.exitCode === 0) ids.push(id);
  }
  console.log(
    `bench/queue: ${ids.length} instances, ${ids.length * 2} notebooks, ${os.availableParallelism()} CPUs, Redis ${url}, prefix ${prefix}`,
  );
  const rows: Row[] = [];
  try {
    rows.push(await verify('local runtime, --jobs 1', ids, ['--jobs', '1'], scratch));
    // A `junobench worker` of this bench: its name, its --jobs, a cache folder of its own, and any other flags.
    const cliWorker = (name: string, jobs: number, extra: string[] = []) =>
      startWorker([
        bin,
        'worker',
        '--queue',
        url,
        '--name',
        name,
        '--jobs',
        String(jobs),
        ...extra,
        '--cache-dir',
        path.join(scratch, name),
      ]);
    let w = [await cliWorker('bench-1', 1)];
    rows.push(await verify('queue, 1 worker --jobs 1', ids, ['--queue', url], scratch));
    await stop(w);
    rows.push(await verify(`local runtime, --jobs 2`, ids, ['--jobs', '2'], scratch));
    w = [await cliWorker('bench-2a', 1), await cliWorker('bench-2b', 1)];
    rows.push(await verify('queue, 2 workers --jobs 1', ids, ['--queue', url], scratch));
    await stop(w);
    w = [await cliWorker('bench-1x2', 2)];
    rows.push(await verify('queue, 1 worker --jobs 2', ids, ['--queue', url], scratch));
    await stop(w);
    if (withDocker) {
      rows.push(await verify('docker runtime, --jobs 2', ids, ['--jobs', '2', ...dockerArgs], scratch));
      w = [await cliWorker('bench-docker', 2, dockerArgs)];
      rows.push(await verify('queue, 1 docker worker --jobs 2', ids, ['--queue', url, ...dockerArgs], scratch));
      await stop(w);
    }

    const ceilings = [
      await noopCeiling(1, 8, scratch),
      await noopCeiling(2, 8, scratch),
      await noopCeiling(4, 8, scratch),
    ];

    const local1 = rows[0]!;
    const lines = [
      '# bench/queue',
      '',
      `${ids.length} embedded instances (${ids.length * 2} notebooks), ${os.availableParallelism()} CPUs, Redis ${await redisVersion()} on loopback, one round, ${new Date().toISOString().slice(0, 10)}.`,
      'Every row runs the same notebooks with `verify --no-cache`; the queue rows start their workers on this machine first (not timed). "overhead/notebook" = (wall − wall of the same runtime with the same parallelism, without the queue) / notebooks.',
      '',
      '| runner | wall | notebooks/min | in cells | overhead/notebook vs the runtime without the queue |',
      '|---|---:|---:|---:|---:|',
      ...rows.map((r) => {
        const base = r.label.includes('1 worker --jobs 1')
          ? local1
          : r.label.includes('docker worker')
            ? rows.find((x) => x.label.startsWith('docker runtime'))
            : r.label.startsWith('queue')
              ? rows[2]!
              : undefined;
        const over = base ? `${((r.wallMs - base.wallMs) / r.notebooks / 1000).toFixed(2)} s` : '—';
        return `| ${r.label} | ${(r.wallMs / 1000).toFixed(1)} s | ${((r.notebooks / r.wallMs) * 60_000).toFixed(1)} | ${(r.cellsMs / 1000).toFixed(1)} s | ${over} |`;
      }),
      '',
      ...formatCeiling(ceilings),
    ];
    const text = lines.join('\n') + '\n';
    console.log(text);
    const out = path.join(root, 'bench/queue/results.md');
    // Notes written by hand below the generated part are kept.
    const previous = await readFile(out, 'utf8').catch(() => '');
    const notes = previous.indexOf('\n## Notes');
    await writeFile(out, text + (notes >= 0 ? previous.slice(notes) : ''));
  } finally {
    await cleanup(scratch);
  }
}

async function cleanup(scratch: string): Promise<void> {
  await stop(children);
  await deletePrefix(url, prefix);
  await rm(scratch, { recursive: true, force: true });
}

async function redisVersion(): Promise<string> {
  const redis = new Redis(url);
  const info = await redis.info('server');
  redis.disconnect();
  return info.match(/redis_version:(\S+)/)?.[1] ?? '?';
}

await main();
