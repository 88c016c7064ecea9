import os from 'node:os';
import path from 'node:path';
import { UnrecoverableError, WaitingError, Worker, type Job } from 'bullmq';
import {
  JunoError,
  checkSchema,
  formatIssue,
  hashFile,
  hashInstanceTree,
  type QueueJob,
  type QueueRunJob,
  type QueueWorker,
  type RunResult,
  type RuntimeIdentity,
} from '@junobench/core';
import { RUNNER_PATH, type Runtime } from '@junobench/runtime';
import { openBlobCache } from './blob-store.js';
import { planTreeHash } from './instance-manifest.js';
import { connectRedis, planRedisOptions, withTimeout } from './redis-connection.js';
import { parseRedisUrl } from './redis-url.js';
import { createRunBatcher } from './run-batcher.js';
import {
  QUEUE_PROTOCOL,
  deleteWorkerRecord,
  planQueueName,
  planWorkerGroup,
  readWorkerRecord,
  writeWorkerRecord,
} from './worker-registry.js';

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

export type WorkerEvent =
  | { type: 'ready'; worker: QueueWorker; queue: string }
  | { type: 'job-done'; id: string; status: RunResult['status']; durationMs: number }
  | { type: 'job-error'; id: string; error: string }
  | { type: 'job-returned'; id: string }
  | { type: 'connection-lost'; error: string }
  | { type: 'connection-restored' }
  | { type: 'stopping'; mode: 'finish' | 'return'; running: number };

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

/** What a job answers: the runner's result or the runtime's identity, and who produced it. */
export interface QueueJobAnswer {
  worker: string;
  group: string;
  result?: RunResult;
  identity?: RuntimeIdentity;
  /** Set by the coordinator, never by a worker: the run was given up on (see jobGraceSeconds). */
  givenUp?: true;
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
  if (!/^[A-Za-z0-9][A-Za-z0-9_.@-]{0,99}$/.test(name)) {
    throw new JunoError('E_USAGE', `"${name}" is not a valid worker name`, {
      hint: 'letters, digits, "_", ".", "@" and "-", e.g. --name gpu-box-1',
    });
  }
  const heartbeatMs = options.heartbeatMs ?? 5000;
  const lockDurationMs = options.lockDurationMs ?? 30_000;
  const emit = (e: WorkerEvent) => options.onEvent?.(e);
  const { runtime } = options;

  const [fingerprint, runner, identity] = await Promise.all([
    runtime.fingerprint(),
    hashFile(RUNNER_PATH),
    runtime.describe([]),
  ]);
  const group = planWorkerGroup({ kind: runtime.kind, fingerprint, runner });
  const record: QueueWorker = {
    protocol: QUEUE_PROTOCOL,
    name,
    host: os.hostname(),
    pid: process.pid,
    kind: runtime.kind,
    fingerprint,
    runner,
    group,
    jobs,
    startedAt: new Date().toISOString(),
    ...(identity.python ? { python: identity.python } : {}),
    ...(identity.pythonVersion ? { pythonVersion: identity.pythonVersion } : {}),
    ...(identity.image ? { image: identity.image } : {}),
    ...(options.sharedInstances ? { sharedInstances: path.resolve(options.sharedInstances) } : {}),
  };

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
  const ttl = heartbeatMs * 3;
  await writeWorkerRecord(redis, prefix, record, ttl);

  let lost = false;
  let stopRequested = false;
  let lastRedisError = '';
  const markLost = (why: string) => {
    if (!lost && !stopRequested) emit({ type: 'connection-lost', error: why });
    lost = true;
  };
  redis.on('error', (e: Error) => {
    lastRedisError = e.message;
  });
  redis.on('close', () => markLost(lastRedisError || 'connection closed'));
  redis.on('ready', () => {
    if (!lost) return;
    lost = false;
    emit({ type: 'connection-restored' });
    // A restarted Redis may have lost every key: publish the record at once.
    void writeWorkerRecord(redis, prefix, record, ttl).catch(() => undefined);
  });
  const heartbeat = setInterval(() => {
    withTimeout(
      writeWorkerRecord(redis, prefix, record, ttl),
      heartbeatMs,
      () => new Error('Redis does not answer'),
    ).catch((e: Error) => markLost(e.message));
  }, heartbeatMs);

  const cache = openBlobCache(redis, prefix, options.cacheDir);
  const returning = new AbortController();
  const batcher = createRunBatcher(runtime, { jobs, signal: returning.signal });
  const stats = { completed: 0, errors: 0, returned: 0 };
  let running = 0;
  let idle: (() => void) | undefined;
  const sharedChecked = new Map<string, Promise<void>>();

  // A job names a folder to read in place only under the folder this worker was told to share: the job's own root is
  // anyone's word (whoever reaches Redis can write a job), and a worker never walks a host path because a job said so.
  const resolveShared = (files: QueueRunJob['files']): Promise<string> => {
    if (!options.sharedInstances) {
      return Promise.reject(
        new UnrecoverableError(
          `worker ${name} reads no instance folder in place: it was started without --shared-instances ` +
            '(start it with --shared-instances <its mount point of the shared folder>, or run without --shared-instances to send the files)',
        ),
      );
    }
    const dir = path.join(path.resolve(options.sharedInstances), ...files.shared!.path.split('/'));
    const key = `${dir}\0${files.treeHash}`;
    let check = sharedChecked.get(key);
    if (!check) {
      check = hashInstanceTree(dir).then(
        (h) => {
          if (h !== files.treeHash) {
            throw new UnrecoverableError(
              `the instance folder ${files.shared!.path} of the shared folder on worker ${name} differs from the coordinator's (tree hash ${h.slice(0, 12)}… instead of ${files.treeHash.slice(0, 12)}…): ` +
                'the shared folder must be the same on every machine (start the worker with --shared-instances <its mount point>)',
            );
          }
        },
        (e: unknown) => {
          // What went wrong names this machine's files: said here, not sent back through Redis.
          throw Object.assign(
            new UnrecoverableError(
              `the instance folder ${files.shared!.path} of the shared folder cannot be read on worker ${name}: see that worker's output`,
            ),
            { detail: `${dir}: ${(e as Error).message}` },
          );
        },
      );
      sharedChecked.set(key, check);
      check.catch(() => sharedChecked.delete(key));
    }
    return check.then(() => dir);
  };

  /** Jobs this worker handed back to the queue while stopping (BullMQ ids). */
  const handedBack = new Set<string>();
  const processJob = async (job: Job<QueueJob, QueueJobAnswer>, token?: string): Promise<QueueJobAnswer> => {
    const issues = checkSchema('queue-job', job.data);
    if (issues.length > 0)
      throw new UnrecoverableError(`job ${job.id} is not a junobench queue job: ${issues.map(formatIssue).join('; ')}`);
    const data = job.data;
    if (data.type === 'describe') return { worker: name, group, identity: await runtime.describe(data.modules) };
    running++;
    try {
      const { files } = data;
      let dir: string;
      if (files.blobs && !files.shared) {
        if (planTreeHash(files.blobs) !== files.treeHash)
          throw new UnrecoverableError(`job ${job.id}: its file list does not match its tree hash`);
        dir = await cache.materialize(files.treeHash, files.blobs);
      } else if (files.shared && !files.blobs) {
        dir = await resolveShared(files);
      } else {
        throw new UnrecoverableError(`job ${job.id}: it must carry either blobs or a shared folder`);
      }
      const result = returning.signal.aborted ? undefined : await batcher.submit({ ...data.run, instanceDir: dir });
      if (!result || (returning.signal.aborted && result.status === 'failed' && result.reason === 'cancelled')) {
        // Stopping: the job goes back to the queue for another worker, untouched.
        // If Redis does not take it back now, the lock simply expires and another worker takes it over.
        if (job.id) handedBack.add(job.id);
        await withTimeout(job.moveToWait(token), 5000, () => new Error('Redis does not answer')).catch(() => undefined);
        stats.returned++;
        emit({ type: 'job-returned', id: data.run.id });
        throw new WaitingError();
      }
      stats.completed++;
      emit({ type: 'job-done', id: data.run.id, status: result.status, durationMs: result.durationMs });
      return { worker: name, group, result: { ...result, id: data.run.id } };
    } catch (e) {
      if (!(e instanceof WaitingError)) {
        stats.errors++;
        emit({ type: 'job-error', id: data.run.id, error: (e as { detail?: string }).detail ?? (e as Error).message });
      }
      throw e;
    } finally {
      running--;
      if (running === 0) idle?.();
    }
  };

  const worker = new Worker<QueueJob, QueueJobAnswer>(planQueueName(group), processJob, {
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
  });
  let lastError = '';
  worker.on('error', (e: Error) => {
    // BullMQ's lock renewal can race the hand-back: the job is no longer ours, which is the point, not a fault.
    const renew = /^could not renew lock for job (.+)$/.exec(e.message);
    if (renew && handedBack.has(renew[1]!)) return;
    // Connection errors repeat while Redis is away; the heartbeat reports the outage once.
    if (e.message !== lastError && !/ECONNREFUSED|ECONNRESET|Connection is closed|EPIPE/.test(e.message)) {
      emit({ type: 'job-error', id: '-', error: e.message });
    }
    lastError = e.message;
  });
  await worker.waitUntilReady();
  emit({ type: 'ready', worker: record, queue: planQueueName(group) });

  let stopping: Promise<void> | undefined;
  let resolveStopped!: () => void;
  const stopped = new Promise<void>((r) => (resolveStopped = r));
  let forceReturn: (() => void) | undefined;

  const stop = (mode: 'finish' | 'return' = 'finish', drainMs = 10_000): Promise<void> => {
    if (stopping) {
      if (mode === 'return') forceReturn?.();
      return stopping;
    }
    emit({ type: 'stopping', mode, running });
    stopRequested = true;
    stopping = (async () => {
      await worker.pause(true);
      if (mode === 'finish' && running > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, drainMs);
          forceReturn = () => {
            clearTimeout(timer);
            resolve();
          };
          idle = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      returning.abort();
      if (running > 0) await new Promise<void>((resolve) => (idle = resolve));
      clearInterval(heartbeat);
      // Without Redis, BullMQ's close waits for it forever (and a forced close asked after a graceful one returns the
      // same promise): a worker that lost Redis closes forced at once, dropping its connections. Its held jobs were
      // handed back above or their locks expire, and its record expires on its own.
      const offline = lost || redis.status !== 'ready';
      await withTimeout(
        offline ? worker.close(true) : worker.close(),
        offline ? 2000 : 10_000,
        () => new Error('timeout'),
      ).catch(() => undefined);
      if (!offline)
        await withTimeout(deleteWorkerRecord(redis, prefix, name), 2000, () => new Error('timeout')).catch(
          () => undefined,
        );
      redis.disconnect();
      resolveStopped();
    })();
    return stopping;
  };

  return {
    record,
    stop,
    stopped,
    stats: () => ({
      ...stats,
      batches: batcher.batches,
      blobsFetched: cache.fetched.blobs,
      bytesFetched: cache.fetched.bytes,
    }),
  };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
