// `verify --queue` end to end: real `junobench worker` processes on a real
// Redis on loopback (tools/setup-redis.sh), the CLI as a user runs it, and
// the faults the queue must survive.
import { spawn, type ChildProcess } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSchema, type InstanceVerification, type VerificationReport } from '@junobench/core';
import { junobenchBin, repoRoot, runJunobench } from './run-cli.js';
import { embeddedBuild } from './suite-build.js';
import {
  deletePrefix,
  freePort,
  requireTestRedis,
  startOwnRedis,
  startWorker,
  stopWorkers,
  uniquePrefix,
  type WorkerProcess,
} from './queue-helpers.js';

const url = requireTestRedis();
const instances = path.join(repoRoot, 'raw/instances');
let tmp: string;
const started: WorkerProcess[] = [];
const prefixes: string[] = [];
const ownRedis: ChildProcess[] = [];

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'jb-queue-e2e-'));
});
afterAll(async () => {
  await stopWorkers(started);
  for (const r of ownRedis) r.kill('SIGKILL');
  for (const p of prefixes) await deletePrefix(url, p);
  await rm(tmp, { recursive: true, force: true });
}, 60_000);

function prefix(name: string): string {
  const p = uniquePrefix(name);
  prefixes.push(p);
  return p;
}

function worker(
  queueUrl: string,
  name: string,
  p: string,
  args: string[] = [],
  env: NodeJS.ProcessEnv = {},
): WorkerProcess {
  const w = startWorker(queueUrl, name, {
    prefix: p,
    args: ['--cache-dir', path.join(tmp, `cache-${name}`), ...args],
    env,
  });
  started.push(w);
  return w;
}

async function readReport(file: string): Promise<VerificationReport> {
  const report = JSON.parse(await readFile(file, 'utf8')) as VerificationReport;
  expect(checkSchema('verification', report)).toEqual([]);
  return report;
}

/** What must not depend on where a notebook ran. */
function outcomes(v: InstanceVerification) {
  const version = (r: InstanceVerification['reproduced']) => ({
    outcome: r.outcome,
    observed: r.observed ? { ename: r.observed.ename, cell: r.observed.cell } : null,
    cells: r.cells.map((c) => c.status),
    runtime: r.runtime,
  });
  return {
    instance: v.instance,
    status: v.status,
    contentHash: v.contentHash,
    reproduced: version(v.reproduced),
    fixed: version(v.fixed),
  };
}

describe('verify --queue with two workers', () => {
  // Instances of six libraries, not all sixteen: what the queue carries differs by instance only in its files (one
  // CSV, two, binary arrays, a name another instance's file has too) and its runtime fate (TensorFlow is skipped).
  // The local runtime verifies every one in the suite's build; the docker build verifies every one in containers.
  const some = ['NBspecific_1', 'matplotlib_1', 'pandas_2', 'sklearn_2', 'tensorflow_1', 'torch_1'];

  it('verifies embedded instances of six libraries with the outcomes of a local run (and the same cache keys)', async () => {
    const p = prefix('all');
    const a = worker(url, 'all-a', p, ['--jobs', '1']);
    const b = worker(url, 'all-b', p, ['--jobs', '1']);
    await Promise.all([a.waitFor(/ready: local runtime/), b.waitFor(/ready: local runtime/)]);

    // The local runtime's outcomes: the suite's build of the same instances (test/suite-build.ts).
    const local = await embeddedBuild();
    expect(local.run.code, local.run.stderr).toBe(0);
    const localJson = path.join(local.dir, 'curated/verification.json');
    const queueJson = path.join(tmp, 'queue.json');
    const queued = await runJunobench(
      [
        'verify',
        ...some,
        '--instances',
        instances,
        '--no-cache',
        '--cache-dir',
        path.join(tmp, 'c-queue'),
        '--queue',
        url,
        '--json',
        queueJson,
      ],
      { env: { JUNOBENCH_QUEUE_PREFIX: p } },
    );
    expect(queued.code, queued.stderr).toBe(0);
    expect(queued.stderr).toMatch(/queue: 2 live local worker\(s\) of identity [0-9a-f]{16}: all-a, all-b/);

    const [l, q] = [await readReport(localJson), await readReport(queueJson)];
    const expected = l.instances.filter((v) => some.includes(v.instance));
    expect(expected.map((v) => v.instance)).toEqual(some);
    expect(q.instances.map(outcomes)).toEqual(expected.map(outcomes));
    const count = (status: string) => expected.filter((v) => v.status === status).length;
    expect(q.summary).toEqual({
      total: some.length,
      verified: count('verified'),
      notVerified: count('not-verified'),
      skipped: count('skipped'),
      flaky: count('flaky'),
    });
    expect(q.summary.skipped).toBe(1);
    // Both workers took part, and every run was answered by one of them.
    const done = (w: WorkerProcess) => (w.stdout().match(/^\S+\/(reproduced|fixed)\/0 \w+/gm) ?? []).length;
    expect(done(a)).toBeGreaterThan(0);
    expect(done(b)).toBeGreaterThan(0);
    const ran = expected.filter((v) => v.status !== 'skipped').length * 2;
    expect(done(a) + done(b)).toBe(ran);
    // Each file went through Redis once.
    const sent = Number(queued.stderr.match(/files: (\d+) blob\(s\) sent/)?.[1]);
    expect(sent).toBeGreaterThan(0);
    const again = await runJunobench(
      [
        'verify',
        'pandas_2',
        '--instances',
        instances,
        '--no-cache',
        '--cache-dir',
        path.join(tmp, 'c-queue'),
        '--queue',
        url,
      ],
      {
        env: { JUNOBENCH_QUEUE_PREFIX: p },
      },
    );
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/files: 0 blob\(s\) sent, \d+ already in Redis/);
  }, 1_500_000);
});

describe('faults', () => {
  // In the order a report lists them (by id, code point order).
  const ids = ['NBspecific_3', 'numpy_1', 'numpy_2'];

  it('a worker killed with SIGKILL mid-job: its job is taken over and the run completes with the same outcomes', async () => {
    const p = prefix('kill');
    const a = worker(url, 'kill-a', p, ['--jobs', '1', '--lock-duration', '3']);
    const b = worker(url, 'kill-b', p, ['--jobs', '1', '--lock-duration', '3']);
    const group = (await a.waitFor(/identity ([0-9a-f]{16})/))[1]!;
    await b.waitFor(/ready/);
    const json = path.join(tmp, 'kill.json');
    const run = runJunobench(
      [
        'verify',
        ...ids,
        '--instances',
        instances,
        '--no-cache',
        '--cache-dir',
        path.join(tmp, 'c-kill'),
        '--queue',
        url,
        '--json',
        json,
      ],
      {
        env: { JUNOBENCH_QUEUE_PREFIX: p },
      },
    );
    // Kill worker a while Redis says it holds a job. Seen holding one, it may still finish it before a kill lands
    // (then nothing is taken over): it is stopped first (SIGSTOP: it can report nothing more), and killed only when
    // Redis still says so a moment later; otherwise it goes on (SIGCONT) and the next job it takes is tried.
    const redis = new Redis(url);
    const holds = async () => {
      for (const id of await redis.lrange(`${p}:run-${group}:active`, 0, -1))
        if ((await redis.hget(`${p}:run-${group}:${id}`, 'pb')) === 'kill-a') return true;
      return false;
    };
    try {
      const deadline = Date.now() + 300_000;
      let holding = false;
      while (!holding && Date.now() < deadline) {
        if (await holds()) {
          a.proc.kill('SIGSTOP');
          await new Promise((r) => setTimeout(r, 200));
          holding = await holds();
          if (!holding) a.proc.kill('SIGCONT');
        }
        if (!holding) await new Promise((r) => setTimeout(r, 50));
      }
      expect(holding).toBe(true);
      a.proc.kill('SIGKILL');
    } finally {
      redis.disconnect();
    }
    const r = await run;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/its worker stopped answering; the job goes to another worker/);
    expect(r.stderr).toMatch(/taken over from a stopped worker/);
    const report = await readReport(json);
    expect(report.instances.map((v) => [v.instance, v.reproduced.outcome, v.fixed.outcome])).toEqual(
      ids.map((id) => [id, 'crash-reproduced', 'fixed-ok']),
    );
  }, 900_000);

  it('Redis restarted mid-run (every key lost): workers reconnect, lost jobs are submitted again, the run completes', async () => {
    const port = await freePort();
    const ownUrl = `redis://127.0.0.1:${port}`;
    ownRedis.push(await startOwnRedis(port));
    const p = prefix('restart');
    const w = worker(ownUrl, 'restart-w', p, ['--jobs', '1', '--lock-duration', '3']);
    await w.waitFor(/ready/);
    const json = path.join(tmp, 'restart.json');
    const run = runJunobench(
      [
        'verify',
        ...ids,
        '--instances',
        instances,
        '--no-cache',
        '--cache-dir',
        path.join(tmp, 'c-restart'),
        '--queue',
        ownUrl,
        '--json',
        json,
      ],
      {
        env: { JUNOBENCH_QUEUE_PREFIX: p },
      },
    );
    await w.waitFor(/^\S+\/(reproduced|fixed)\/0 \w+/m, 600_000);
    const first = ownRedis.pop()!;
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    await new Promise((r) => setTimeout(r, 1500));
    ownRedis.push(await startOwnRedis(port));
    const r = await run;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/vanished from Redis \(restarted without persistence\?\): submitted again/);
    await w.waitFor(/lost Redis[\s\S]*Redis is back/, 60_000);
    const report = await readReport(json);
    expect(report.summary).toMatchObject({ total: 3, verified: 3 });
  }, 900_000);
});

describe('stopping a worker', () => {
  it('a worker that lost Redis stops on SIGTERM, well within its drain time', async () => {
    // It acknowledged SIGTERM, then ran on for good: BullMQ's close waited for the Redis that was gone.
    const port = await freePort();
    const redisProc = await startOwnRedis(port);
    ownRedis.push(redisProc);
    const w = worker(`redis://127.0.0.1:${port}`, 'lost-w', prefix('lost'), ['--jobs', '1', '--drain', '120']);
    await w.waitFor(/ready/);
    redisProc.kill('SIGKILL');
    await w.waitFor(/lost Redis/, 60_000);
    const t0 = Date.now();
    w.proc.kill('SIGTERM');
    expect(await w.exited).toBe(0);
    expect(Date.now() - t0).toBeLessThan(30_000);
    expect(w.stdout()).toMatch(/worker lost-w stopped: 0 run\(s\) done/);
  }, 300_000);

  it('a worker ends with its launcher: SIGTERM to the process that started it (as to npx) stops it', async () => {
    // `npx junobench worker`: SIGTERM killed npx alone, and the orphaned worker kept taking jobs.
    const p = prefix('launcher');
    const launcher = spawn(
      'sh',
      [
        '-c',
        '"$NODE" "$BIN" worker --queue "$URL" --name launched-w --jobs 1 --cache-dir "$CACHE"; echo "worker exited: $?"',
      ],
      {
        env: {
          ...process.env,
          CI: '1',
          JUNOBENCH_QUEUE_PREFIX: p,
          NODE: process.execPath,
          BIN: junobenchBin,
          URL: url,
          CACHE: path.join(tmp, 'cache-launched'),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    for (const stream of [launcher.stdout, launcher.stderr]) stream.on('data', (d: Buffer) => (out += d.toString()));
    // Both pipes stay open until the worker, which holds them too, has ended.
    const ended = Promise.all([launcher.stdout, launcher.stderr].map((s) => new Promise((r) => s.on('end', r))));
    const deadline = Date.now() + 120_000;
    while (!/worker launched-w ready/.test(out) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(out).toMatch(/worker launched-w ready/);
    launcher.kill('SIGTERM');
    const t0 = Date.now();
    await ended;
    expect(Date.now() - t0).toBeLessThan(60_000);
    expect(out).toMatch(/worker: the process that started it ended \(sh, pid \d+\): stopping/);
    expect(out).toMatch(/worker launched-w stopped/);
    expect(out).not.toContain('worker exited');
  }, 300_000);
});

describe('identities, limits and file transport', () => {
  const p = prefix('ident');
  let a: WorkerProcess;

  it('refuses to run on workers with two runtime identities, naming them', async () => {
    // Same interpreter, one more installed distribution: another environment.
    const extra = path.join(tmp, 'extra-site');
    await mkdir(path.join(extra, 'junobench_identity_probe-1.0.dist-info'), { recursive: true });
    await writeFile(
      path.join(extra, 'junobench_identity_probe-1.0.dist-info', 'METADATA'),
      'Metadata-Version: 2.1\nName: junobench-identity-probe\nVersion: 1.0\n',
    );
    // It also serves the --shared-instances run below: a worker reads a folder in place only under its own.
    a = worker(url, 'ident-a', p, ['--jobs', '1', '--shared-instances', path.join(tmp, 'shared')]);
    const b = worker(url, 'ident-b', p, ['--jobs', '1'], { PYTHONPATH: extra });
    const [ga, gb] = [(await a.waitFor(/identity ([0-9a-f]{16})/))[1], (await b.waitFor(/identity ([0-9a-f]{16})/))[1]];
    expect(ga).not.toBe(gb);
    const r = await runJunobench(
      [
        'verify',
        'numpy_1',
        '--instances',
        instances,
        '--no-cache',
        '--cache-dir',
        path.join(tmp, 'c-ident'),
        '--queue',
        url,
      ],
      {
        env: { JUNOBENCH_QUEUE_PREFIX: p },
      },
    );
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('have 2 different runtime identities');
    expect(r.stderr).toMatch(new RegExp(`identity ${ga}: ident-a@`));
    expect(r.stderr).toMatch(new RegExp(`identity ${gb}: ident-b@`));
    expect(r.stderr).toMatch(/hint: stop the workers of all identities but one/);
    // A worker stops cleanly on SIGTERM and leaves the registry.
    b.proc.kill('SIGTERM');
    expect(await b.exited).toBe(0);
    expect(b.stdout()).toMatch(/worker ident-b stopped: 0 run\(s\)/);
  }, 300_000);

  it('a file over the blob limit is refused before anything runs, with both ways out', async () => {
    const dir = path.join(tmp, 'big', 'instances');
    await cp(path.join(instances, 'numpy_1'), path.join(dir, 'numpy_1'), { recursive: true });
    await writeFile(path.join(dir, 'numpy_1', 'data.bin'), Buffer.alloc(100_000, 7));
    const r = await runJunobench(
      [
        'verify',
        '--instances',
        dir,
        '--no-cache',
        '--cache-dir',
        path.join(tmp, 'c-big'),
        '--queue',
        url,
        '--queue-blob-limit',
        '64k',
      ],
      {
        env: { JUNOBENCH_QUEUE_PREFIX: p },
      },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "data.bin is 97.7 KiB, over the queue's blob limit of 64.0 KiB: it cannot be sent to the workers through Redis",
    );
    expect(r.stderr).toMatch(/--shared-instances <that folder>[\s\S]*--queue-blob-limit 1m/);
    expect(a.stdout()).not.toMatch(/numpy_1\/(reproduced|fixed)/);
  }, 300_000);

  it('--shared-instances: workers read the instances where they are, nothing is sent through Redis', async () => {
    const shared = path.join(tmp, 'shared');
    await cp(path.join(instances, 'numpy_2'), path.join(shared, 'instances', 'numpy_2'), { recursive: true });
    const r = await runJunobench(
      [
        'verify',
        '--instances',
        path.join(shared, 'instances'),
        '--shared-instances',
        shared,
        '--no-cache',
        '--cache-dir',
        path.join(tmp, 'c-shared'),
        '--queue',
        url,
      ],
      { env: { JUNOBENCH_QUEUE_PREFIX: p } },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('1/1 verified');
    expect(r.stderr).toMatch(/files: 0 blob\(s\) sent, 0 already in Redis/);
    expect(a.stdout()).toMatch(/numpy_2\/fixed\/0 done in .+: the notebook ran to its end/);
    // A reproduced notebook crashes on purpose: its line must not read as a failed job.
    expect(a.stdout()).toMatch(
      /numpy_2\/reproduced\/0 done in .+: the notebook raised an error \(as a reproduced crash should\)/,
    );
  }, 300_000);

  it('with no live worker, says so after the grace period instead of waiting forever', async () => {
    a.proc.kill('SIGTERM');
    expect(await a.exited).toBe(0);
    const t0 = Date.now();
    const r = await runJunobench(
      [
        'verify',
        'numpy_1',
        '--instances',
        instances,
        '--no-cache',
        '--cache-dir',
        path.join(tmp, 'c-none'),
        '--queue',
        url,
        '--queue-wait',
        '2',
      ],
      {
        env: { JUNOBENCH_QUEUE_PREFIX: p },
      },
    );
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/no live local worker on redis:\/\/\S+ for 2 s/);
    expect(r.stderr).toContain('hint: start one: `junobench worker --queue');
    expect(Date.now() - t0).toBeLessThan(120_000);
  }, 300_000);
});
