import os from 'node:os';
import { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { JunoError, hashFile, type QueueJob, type QueueWorker } from '@junobench/core';
import { RUNNER_PATH, type Runtime } from '@junobench/runtime';
import { openBlobCache } from './blob-store.js';
import { JobProcessor } from './job-processor.js';
import { connectRedis, planRedisOptions, withTimeout } from './redis-connection.js';
import { parseRedisUrl } from './redis-url.js';
import { SharedFolderCheck } from './shared-folder-check.js';
import { checkWorkerName, planWorkerRecord, WorkerPresence } from './worker-presence.js';
import { deleteWorkerRecord, planQueueName, planWorkerGroup, readWorkerRecord } from './worker-registry.js';
import type { QueueJobAnswer, WorkerEvent } from './worker-types.js';

export type { QueueJobAnswer, WorkerEvent } from './worker-types.js';

export const DEFAULT_PREFIX = 'junobench';

export interface WorkerOptions {
  /** redis://host:port[/db] */
  url: string;
  /** The runtime that executes the notebooks (local or docker); the caller closes it. */
  runtime: Runtime;
  /** Notebooks executed at once. Default 1. */
  jobs?: number;
  /** Unique among live workers. Default `<host>-<pid>`. */
  name?: string;
  /** Where blobs and the instance folders made from them are cached. */
  cacheDir: string;
  /**
   * This machine's path of the folder a coordinator's `--shared-instances` names. Without it, jobs that name a folder
   * to read in place are refused: a job's own root is never walked.
   */
  sharedInstances?: string;
  /** A job whose worker has been silent this long is given to another worker. Default 30 s. */
  lockDurationMs?: number;
  /** How often the worker's record is refreshed in Redis (it expires after three times this). Default 5 s. */
  heartbeatMs?: number;
  /** Redis key prefix shared with the coordinators. */
  prefix?: string;
  onEvent?: (e: WorkerEvent) => void;
}

export interface WorkerStats {
  completed: number;
  errors: number;
  returned: number;
  batches: number;
  blobsFetched: number;
  bytesFetched: number;
}

export interface WorkerHandle {
  readonly record: QueueWorker;
  /**
   * Stop taking jobs. `finish`: let running jobs end (at most `drainMs`),
   * then return the rest to the queue; `return`: return them at once. Either
   * way, no job is lost: a returned job is taken by another worker.
   */
  stop(mode?: 'finish' | 'return', drainMs?: number): Promise<void>;
  /** Settles when the worker has stopped. */
  readonly stopped: Promise<void>;
  stats(): WorkerStats;
}

/**
 * A queue worker: takes the jobs of its identity group from Redis (BullMQ),
 * runs them with `runtime` (local kernels, or containers with their sandbox),
 * and answers each with the runtime's RunResult. Its record in Redis (name,
 * host, runtime identity) lets coordinators see who is live and refuse to
 * mix environments. Survives Redis restarts (BullMQ and this module
 * reconnect); a worker killed mid-job has its jobs taken over by others once
 * their lock expires (BullMQ's stalled-job check).
 */
export async function runWorker(options: WorkerOptions): Promise<WorkerHandle> {
  const address = parseRedisUrl(options.url);
  const prefix = options.prefix ?? DEFAULT_PREFIX;
  const jobs = Math.max(1, options.jobs ?? 1);
  const name = options.name ?? `${os.hostname()}-${process.pid}`;
  checkWorkerName(name);
  const emit = (e: WorkerEvent) => options.onEvent?.(e);
  const { runtime } = options;

  const [fingerprint, runner, identity] = await Promise.all([
    runtime.fingerprint(),
    hashFile(RUNNER_PATH),
    runtime.describe([]),
  ]);
  const group = planWorkerGroup({ kind: runtime.kind, fingerprint, runner });
  const record = planWorkerRecord({
    name,
    kind: runtime.kind,
    fingerprint,
    runner,
    group,
    jobs,
    identity,
    ...(options.sharedInstances ? { sharedInstances: options.sharedInstances } : {}),
  });

  const redis = await connectRedis(address, `junobench-worker:${name}`);
  const existing = await readWorkerRecord(redis, prefix, name);
  if (existing && !(existing.host === record.host && !isAlive(existing.pid))) {
    redis.disconnect();
    throw new JunoError(
      'E_USAGE',
      `a worker named "${name}" is already live (on ${existing.host}, pid ${existing.pid})`,
      {
        hint: 'give this one another --name, or stop the other one first',
      },
    );
  }
  const presence = await WorkerPresence.start(redis, prefix, record, options.heartbeatMs ?? 5000, emit);
  const cache = openBlobCache(redis, prefix, options.cacheDir);
  const shared = new SharedFolderCheck(name, options.sharedInstances);
  const processor = new JobProcessor({ name, group, runtime, jobs, cache, shared, emit });

  const lockDurationMs = options.lockDurationMs ?? 30_000;
  const worker = new Worker<QueueJob, QueueJobAnswer>(
    planQueueName(group),
    (job, token) => processor.process(job, token),
    {
      connection: planRedisOptions(address, `junobench-worker:${name}:bullmq`),
      prefix,
      name,
      // More jobs held than slots: the next runs are at hand when a slot frees, and
      // batches hold several runs (see createRunBatcher).
      concurrency: Math.max(4, jobs * 2),
      lockDuration: lockDurationMs,
      stalledInterval: lockDurationMs,
      // A job whose worker died twice is failed, not passed on forever.
      maxStalledCount: 2,
      autorun: true,
    },
  );
  worker.on('error', planWorkerErrors(processor.handedBack, emit));
  await worker.waitUntilReady();
  emit({ type: 'ready', worker: record, queue: planQueueName(group) });

  let stopping: Promise<void> | undefined;
  let resolveStopped!: () => void;
  const stopped = new Promise<void>((r) => (resolveStopped = r));
  const parts: StopParts = { worker, processor, presence, redis, prefix, name };
  const stop = (mode: 'finish' | 'return' = 'finish', drainMs = 10_000): Promise<void> => {
    if (stopping) {
      if (mode === 'return') processor.returnNow();
      return stopping;
    }
    emit({ type: 'stopping', mode, running: processor.runningJobs });
    presence.stopping();
    stopping = stopWorker(parts, mode, drainMs).then(resolveStopped);
    return stopping;
  };

  return {
    record,
    stop,
    stopped,
    stats: () => ({
      ...processor.stats,
      batches: processor.batches,
      blobsFetched: cache.fetched.blobs,
      bytesFetched: cache.fetched.bytes,
    }),
  };
}

/** What the worker's 'error' events say: a lost lock of a job handed back is the point, a connection error is told once. */
function planWorkerErrors(handedBack: ReadonlySet<string>, emit: (e: WorkerEvent) => void): (e: Error) => void {
  let lastError = '';
  return (e) => {
    // BullMQ's lock renewal can race the hand-back: the job is no longer ours, which is the point, not a fault.
    const renew = /^could not renew lock for job (.+)$/.exec(e.message);
    if (renew && handedBack.has(renew[1]!)) return;
    // Connection errors repeat while Redis is away; the heartbeat reports the outage once.
    if (e.message !== lastError && !/ECONNREFUSED|ECONNRESET|Connection is closed|EPIPE/.test(e.message)) {
      emit({ type: 'job-error', id: '-', error: e.message });
    }
    lastError = e.message;
  };
}

interface StopParts {
  worker: Worker<QueueJob, QueueJobAnswer>;
  processor: JobProcessor;
  presence: WorkerPresence;
  redis: Redis;
  prefix: string;
  name: string;
}

/** Stop taking jobs, let the running ones finish (`finish`, at most `drainMs`), hand the rest back, leave Redis. */
async function stopWorker(p: StopParts, mode: 'finish' | 'return', drainMs: number): Promise<void> {
  await p.worker.pause(true);
  if (mode === 'finish') await p.processor.drain(drainMs);
  await p.processor.returnAll();
  p.presence.stop();
  // Without Redis, BullMQ's close waits for it forever (and a forced close asked after a graceful one returns the
  // same promise): a worker that lost Redis closes forced at once, dropping its connections. Its held jobs were
  // handed back above or their locks expire, and its record expires on its own.
  const offline = p.presence.lost || p.redis.status !== 'ready';
  await withTimeout(
    offline ? p.worker.close(true) : p.worker.close(),
    offline ? 2000 : 10_000,
    () => new Error('timeout'),
  ).catch(() => undefined);
  if (!offline)
    await withTimeout(deleteWorkerRecord(p.redis, p.prefix, p.name), 2000, () => new Error('timeout')).catch(
      () => undefined,
    );
  p.redis.disconnect();
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
