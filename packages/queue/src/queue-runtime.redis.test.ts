// The queue runtime and workers in one process on the real test Redis, with
// runtimes that answer at once (injected): what the queue itself must do with
// timeouts, failures, stopping workers and identities, in seconds.
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { JunoError, sha256, type RunResult } from '@junobench/core';
import type { NotebookRun, RunOptions, Runtime } from '@junobench/runtime';
import { createQueueRuntime, type QueueRuntime } from './queue-runtime.js';
import { runWorker, type WorkerHandle } from './run-worker.js';
import { planQueueName } from './worker-registry.js';
import { deletePrefix, requireTestRedis, uniquePrefix } from '../test-helpers/queue.js';

const url = requireTestRedis();
let dir: string;
const prefixes: string[] = [];
const handles: WorkerHandle[] = [];
const runtimes: QueueRuntime[] = [];
const cleanup: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'jb-queue-rt-'));
  await writeFile(path.join(dir, 'fixed.ipynb'), '{}');
});
afterAll(async () => {
  for (const r of runtimes) await r.close();
  await Promise.all(handles.map((h) => h.stop('return', 0)));
  for (const p of prefixes) await deletePrefix(url, p);
  await rm(dir, { recursive: true, force: true });
  for (const d of cleanup) await rm(d, { recursive: true, force: true });
});

/** A runtime whose runs take `ms` (stopping early when told) and answer with `answer(run)`, or throw. */
function fakeRuntime(opts: {
  fingerprint?: string;
  ms?: number;
  answer?: (run: NotebookRun) => RunResult['status'] | Error;
}) {
  const calls: string[] = [];
  const runtime: Runtime = {
    kind: 'local',
    describe: async (modules) => ({
      kind: 'local',
      python: '/fake/python3',
      packages: Object.fromEntries(modules.map((m) => [m, '1.0'])),
    }),
    fingerprint: async () => opts.fingerprint ?? 'local:fake',
    close: async () => undefined,
    async run(runs: readonly NotebookRun[], o: RunOptions = {}) {
      const out: RunResult[] = [];
      for (const r of runs) {
        calls.push(r.id);
        const answer = opts.answer?.(r) ?? 'completed';
        if (answer instanceof Error) throw answer;
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, opts.ms ?? 0);
          o.signal?.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
        });
        const result: RunResult = o.signal?.aborted
          ? { id: r.id, status: 'failed', reason: 'cancelled', cells: [], durationMs: 0 }
          : {
              id: r.id,
              status: answer,
              cells: [{ index: 0, status: answer === 'timeout' ? 'timeout' : 'ok', durationMs: 1 }],
              durationMs: 1,
            };
        out.push(result);
        o.onResult?.(result, r);
      }
      return out;
    },
  };
  return { runtime, calls };
}

async function setup(name: string, workers: Parameters<typeof fakeRuntime>[0][], jobs = 1) {
  const prefix = uniquePrefix(name);
  prefixes.push(prefix);
  const fakes = workers.map((w) => fakeRuntime(w));
  const ws = await Promise.all(
    fakes.map((f, i) =>
      runWorker({
        url,
        prefix,
        name: `${name}-${i}`,
        runtime: f.runtime,
        jobs,
        cacheDir: path.join(dir, `cache-${name}-${i}`),
        lockDurationMs: 2000,
        heartbeatMs: 500,
      }),
    ),
  );
  handles.push(...ws);
  return { prefix, fakes, workers: ws };
}

async function coordinator(prefix: string, extra: Partial<Parameters<typeof createQueueRuntime>[0]> = {}) {
  const rt = await createQueueRuntime({ url, prefix, waitSeconds: 5, pollMs: 200, backoffMs: 100, ...extra });
  runtimes.push(rt);
  return rt;
}

const runs = (n: number): NotebookRun[] =>
  Array.from({ length: n }, (_, i) => ({
    id: `inst_${i}/fixed/0`,
    instanceDir: dir,
    notebook: 'fixed.ipynb',
    cells: [0],
    cellTimeoutSeconds: 5,
    timeoutSeconds: 5,
  }));

describe('queue runtime', () => {
  it("answers each run in order with the workers' results and their runtime identity", async () => {
    const { prefix } = await setup('basic', [{}, {}]);
    const rt = await coordinator(prefix);
    expect(rt.kind).toBe('local');
    expect(await rt.fingerprint()).toBe('local:fake');
    expect(await rt.describe(['numpy'])).toEqual({
      kind: 'local',
      python: '/fake/python3',
      packages: { numpy: '1.0' },
    });
    const seen: string[] = [];
    const results = await rt.run(runs(6), { onResult: (r) => seen.push(r.id) });
    expect(results.map((r) => [r.id, r.status])).toEqual(runs(6).map((r) => [r.id, 'completed']));
    expect(seen.sort()).toEqual(
      runs(6)
        .map((r) => r.id)
        .sort(),
    );
    expect(Object.values(rt.stats().byWorker).reduce((a, b) => a + b, 0)).toBe(7);
  });

  it('a timeout is an outcome: answered once, never retried', async () => {
    const { prefix, fakes } = await setup('timeout', [{ answer: () => 'timeout' }]);
    const rt = await coordinator(prefix);
    const [r] = await rt.run(runs(1));
    expect(r).toMatchObject({ status: 'timeout' });
    expect(fakes[0]!.calls).toEqual(['inst_0/fixed/0']);
  });

  it('a job the worker fails is retried a bounded number of times with backoff, then the run fails saying why', async () => {
    const { prefix, fakes } = await setup('fail', [
      { answer: (r) => (r.id.startsWith('inst_1') ? new Error('engine unreachable') : 'completed') },
    ]);
    const rt = await coordinator(prefix, { attempts: 3 });
    const t0 = Date.now();
    const error = (await rt.run(runs(2)).catch((e: unknown) => e)) as JunoError;
    expect(error).toBeInstanceOf(JunoError);
    expect(error.code).toBe('E_QUEUE');
    expect(error.message).toMatch(
      /run inst_1\/fixed\/0 failed on the workers \(after at most 3 tries\): engine unreachable/,
    );
    expect(fakes[0]!.calls.filter((id) => id.startsWith('inst_1'))).toHaveLength(3);
    // Backoff 100 ms, then 200 ms: the tries were spread out, not immediate.
    expect(Date.now() - t0).toBeGreaterThanOrEqual(300);
  });

  it("wrong bytes under a blob's key are found by the worker, sent again by the coordinator, and the run goes on", async () => {
    // A poisoned blob made every run on a fresh worker fail (exit 1): the coordinator only renewed it.
    const inst = path.join(dir, 'poisoned');
    await mkdir(inst, { recursive: true });
    await writeFile(path.join(inst, 'fixed.ipynb'), '{"cells": []}');
    const { prefix } = await setup('poison', [{}]);
    const admin = new Redis(url, { maxRetriesPerRequest: 1 });
    try {
      await admin.set(`${prefix}:blob:${sha256('{"cells": []}')}`, 'import os  # not the notebook');
      const notices: string[] = [];
      const rt = await coordinator(prefix, { onNotice: (n) => notices.push(n) });
      const [r] = await rt.run([{ ...runs(1)[0]!, instanceDir: inst }]);
      expect(r).toMatchObject({ status: 'completed' });
      expect(notices).toContain('inst_0/fixed/0: 1 file(s) missing or damaged in Redis: sent again');
      expect(await admin.get(`${prefix}:blob:${sha256('{"cells": []}')}`)).toBe('{"cells": []}');

      // When it cannot be repaired (no try left), the run stops as the environment's fault (exit 3), not as a finding.
      const other = path.join(dir, 'poisoned-2');
      await mkdir(other, { recursive: true });
      await writeFile(path.join(other, 'fixed.ipynb'), '{"cells": [], "n": 2}');
      await admin.set(`${prefix}:blob:${sha256('{"cells": [], "n": 2}')}`, 'poisoned');
      const once = await coordinator(prefix, { attempts: 1 });
      const error = (await once
        .run([{ ...runs(1)[0]!, id: 'again/fixed/0', instanceDir: other }])
        .catch((e: unknown) => e)) as JunoError;
      expect(error).toMatchObject({ code: 'E_ENV_QUEUE', exitCode: 3 });
      expect(error.message).toMatch(/the blob of fixed\.ipynb in Redis does not match its sha256/);
    } finally {
      admin.disconnect();
    }
  });

  it('a forged job naming a host folder to read in place is refused by a worker without --shared-instances, naming no host file', async () => {
    // A job with files.shared.root "/" made such a worker walk /etc, and its error named a file there, through Redis.
    const { prefix, workers, fakes } = await setup('forged', [{}]);
    const queue = new Queue(planQueueName(workers[0]!.record.group), { connection: { url }, prefix });
    const events = new QueueEvents(planQueueName(workers[0]!.record.group), { connection: { url }, prefix });
    try {
      await events.waitUntilReady();
      const job = await queue.add(
        'run',
        {
          protocol: 1,
          type: 'run',
          run: { id: 'forged/fixed/0', notebook: 'fixed.ipynb', cells: [0], cellTimeoutSeconds: 5, timeoutSeconds: 5 },
          files: { treeHash: 'a'.repeat(64), shared: { root: '/', path: 'etc' } },
        },
        { attempts: 1 },
      );
      const failed = await job.waitUntilFinished(events).catch((e: Error) => e.message);
      expect(failed).toBe(
        `worker forged-0 reads no instance folder in place: it was started without --shared-instances (start it with --shared-instances <its mount point of the shared folder>, or run without --shared-instances to send the files)`,
      );
      expect(fakes[0]!.calls).toEqual([]);

      // With --shared-instances, what cannot be read there is said on the worker, not sent back naming its files.
      // Outside `dir`: the other tests send `dir` whole, and a link out of it is refused.
      const root = await mkdtemp(path.join(os.tmpdir(), 'jb-queue-shared-'));
      cleanup.push(root);
      await mkdir(path.join(root, 'inst'), { recursive: true });
      await symlink('/etc/hostname', path.join(root, 'inst', 'leak.txt'));
      const errors: string[] = [];
      const sharing = fakeRuntime({});
      const w = await runWorker({
        url,
        prefix: `${prefix}-shared`,
        name: 'forged-shared',
        runtime: sharing.runtime,
        cacheDir: path.join(dir, 'cache-forged-shared'),
        sharedInstances: root,
        heartbeatMs: 500,
        onEvent: (e) => {
          if (e.type === 'job-error') errors.push(e.error);
        },
      });
      handles.push(w);
      prefixes.push(`${prefix}-shared`);
      const q2 = new Queue(planQueueName(w.record.group), { connection: { url }, prefix: `${prefix}-shared` });
      const e2 = new QueueEvents(planQueueName(w.record.group), { connection: { url }, prefix: `${prefix}-shared` });
      try {
        await e2.waitUntilReady();
        const job2 = await q2.add(
          'run',
          { ...job.data, files: { ...job.data.files, shared: { root: '/', path: 'inst' } } },
          {
            attempts: 1,
          },
        );
        expect(await job2.waitUntilFinished(e2).catch((e: Error) => e.message)).toBe(
          "the instance folder inst of the shared folder cannot be read on worker forged-shared: see that worker's output",
        );
        expect(errors.join('\n')).toContain('leak.txt is a symbolic link to a path outside the instance folder');
        expect(sharing.calls).toEqual([]);
      } finally {
        await e2.close();
        await q2.close();
      }
    } finally {
      await events.close();
      await queue.close();
    }
  });

  it('a worker stopped with "return" hands its running job back, and another worker completes it', async () => {
    const { prefix, workers, fakes } = await setup('return', [{ ms: 60_000 }]);
    const rt = await coordinator(prefix);
    const done = rt.run(runs(1));
    for (let i = 0; i < 200 && fakes[0]!.calls.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(fakes[0]!.calls).toEqual(['inst_0/fixed/0']);
    const fast = fakeRuntime({ ms: 10 });
    handles.push(
      await runWorker({
        url,
        prefix,
        name: 'return-fast',
        runtime: fast.runtime,
        jobs: 1,
        cacheDir: path.join(dir, 'cache-return-fast'),
        heartbeatMs: 500,
      }),
    );
    await workers[0]!.stop('return', 0);
    // Its second slot may fetch the job again while it stops: returned again, never run or lost.
    expect(workers[0]!.stats().returned).toBeGreaterThanOrEqual(1);
    expect(workers[0]!.stats().completed).toBe(0);
    const [r] = await done;
    expect(r).toMatchObject({ id: 'inst_0/fixed/0', status: 'completed' });
    expect(fast.calls).toEqual(['inst_0/fixed/0']);
    expect(rt.stats().byWorker).toEqual({ 'return-fast': 1 });
  });

  it('gives up on a run a live worker holds past its time limit plus the grace: a failed run, not a hang', async () => {
    // The worker's runtime does not answer for 2 minutes while the worker keeps the job's lock alive, as a stuck runtime would.
    const { prefix } = await setup('overdue', [{ ms: 120_000 }]);
    const notices: string[] = [];
    const rt = await coordinator(prefix, { jobGraceSeconds: 1, onNotice: (t) => notices.push(t) });
    const slow = rt.run(runs(1).map((r) => ({ ...r, timeoutSeconds: 2 })));
    const [r] = await slow;
    expect(r).toMatchObject({ id: 'inst_0/fixed/0', status: 'failed' });
    expect(r!.reason).toMatch(
      /^the queue gave up on it: worker overdue-0 took it \d+ s ago and has not answered \(its limit is 2 s, plus 1 s of grace\)$/,
    );
    expect(rt.stats()).toMatchObject({ givenUp: 1, byWorker: {} });
    expect(notices).toContainEqual(
      expect.stringMatching(/^inst_0\/fixed\/0: worker overdue-0 took it .*: given up on; see that worker's output$/),
    );
  });

  it('never mixes identities: a worker of another environment takes none of the jobs', async () => {
    const { prefix, fakes } = await setup('mix', [{}]);
    const rt = await coordinator(prefix);
    const other = fakeRuntime({ fingerprint: 'local:another-environment' });
    const late = await runWorker({
      url,
      prefix,
      name: 'mix-other',
      runtime: other.runtime,
      jobs: 2,
      cacheDir: path.join(dir, 'cache-mix-other'),
      heartbeatMs: 500,
    });
    handles.push(late);
    expect(late.record.group).not.toBe(rt.group.group);
    const results = await rt.run(runs(8));
    expect(results.every((r) => r.status === 'completed')).toBe(true);
    expect(other.calls).toEqual([]);
    expect(fakes[0]!.calls).toHaveLength(8);
    // And a new coordinator refuses to start while both are live.
    const refused = (await createQueueRuntime({ url, prefix, waitSeconds: 5 }).catch((e: unknown) => e)) as JunoError;
    expect(refused.code).toBe('E_QUEUE_IDENTITY');
    expect(refused.exitCode).toBe(3);
    expect(refused.message).toMatch(/2 different runtime identities/);
  });

  it('fails after the grace period when its workers are gone, naming what it waited for', async () => {
    const { prefix, workers } = await setup('gone', [{ ms: 60_000 }]);
    const rt = await coordinator(prefix, { waitSeconds: 2 });
    const done = rt.run(runs(1)).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 300));
    await workers[0]!.stop('return', 0);
    const error = (await done) as JunoError;
    expect(error.code).toBe('E_ENV_QUEUE');
    expect(error.exitCode).toBe(3);
    expect(error.message).toMatch(
      /no live local worker of identity [0-9a-f]{16} on redis:\/\/\S+ for 2 s; 1 job\(s\) unfinished/,
    );
  });
});
