import path from 'node:path';
import { Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { JunoError, type QueueJob } from '@junobench/core';
import type { Runtime } from '@junobench/runtime';
import type { BlobUploadStats } from './blob-store.js';
import { noWorkerError } from './liveness-monitor.js';
import { QueueCoordinator } from './queue-coordinator.js';
import { connectRedis, planRedisOptions, withTimeout } from './redis-connection.js';
import { parseRedisUrl, type RedisAddress } from './redis-url.js';
import { DEFAULT_PREFIX, type QueueJobAnswer } from './run-worker.js';
import {
  describeWorkerGroup,
  planQueueName,
  planWorkerGroups,
  readLiveWorkers,
  type WorkerGroup,
} from './worker-registry.js';

export const DEFAULT_BLOB_LIMIT_BYTES = 64 * 1024 * 1024;

export interface QueueRuntimeOptions {
  /** redis://host:port[/db] */
  url: string;
  /** Which workers run the notebooks: those with this runtime. Default local. */
  kind?: 'local' | 'docker';
  /**
   * A folder every worker mounts: instances under it are not sent through
   * Redis, workers read them in place (after checking their tree hash).
   */
  sharedInstances?: string;
  /** Largest file sent through Redis. Default 64 MiB. */
  blobLimitBytes?: number;
  /** How long a run waits with no live worker (or no answer from Redis) before it gives up. Default 60 s. */
  waitSeconds?: number;
  /** Tries per job when a worker fails it (not when the notebook fails: that is a result). Default 3. */
  attempts?: number;
  /** First retry delay, doubled at each try. Default 2 s. */
  backoffMs?: number;
  /** How often jobs and workers are checked besides the queue's events. Default 2 s. */
  pollMs?: number;
  /**
   * A run held by a live worker longer than its own time limit plus this is
   * given up on: answered as a failed run (a runtime failure, never a verdict)
   * so a worker stuck in a way its own limits do not catch never stalls the
   * whole run. Covers fetching files, starting a kernel, killing it, and clock
   * differences between machines. Default 600 s.
   */
  jobGraceSeconds?: number;
  prefix?: string;
  /** Things the user should know while a run goes on (a worker lost, a job resubmitted…). */
  onNotice?: (text: string) => void;
}

export interface QueueRunStats {
  jobs: number;
  /** Runs answered per worker name. */
  byWorker: Record<string, number>;
  blobs: BlobUploadStats;
  /** Jobs given to another worker after theirs stopped answering (BullMQ stalled-job check). */
  stalled: number;
  /** Jobs that vanished from Redis (a restart without persistence) and were submitted again. */
  resubmitted: number;
  /** Runs given up on: held by a worker past their time limit plus the grace (see jobGraceSeconds). */
  givenUp: number;
}

/** The Runtime interface over the queue, plus what only a queue has. */
export interface QueueRuntime extends Runtime {
  /** The workers this runtime sends jobs to: one identity group. */
  readonly group: WorkerGroup;
  stats(): QueueRunStats;
  /** Take this coordinator's waiting jobs off the queue (e.g. on Ctrl-C). */
  cancel(): Promise<void>;
}

/**
 * A Runtime whose notebooks run on `junobench worker` processes, anywhere,
 * through BullMQ jobs on Redis: one job per run with the plan and a
 * content-addressed reference to the instance's files. `verify`, `build` and
 * `score` use it like any runtime. Resolves once live workers of the chosen
 * kind are seen, all with one runtime identity (else refuses, naming them).
 * The work is the QueueCoordinator's (queue-coordinator.ts).
 */
export async function createQueueRuntime(options: QueueRuntimeOptions): Promise<QueueRuntime> {
  const address = parseRedisUrl(options.url);
  const prefix = options.prefix ?? DEFAULT_PREFIX;
  const kind = options.kind ?? 'local';
  const waitMs = (options.waitSeconds ?? 60) * 1000;
  const notice = (t: string) => options.onNotice?.(t);

  const redis = await connectRedis(address, 'junobench-coordinator');
  let group: WorkerGroup;
  try {
    group = await waitForGroup(redis, prefix, kind, address, waitMs, notice);
  } catch (e) {
    redis.disconnect();
    throw e;
  }
  const queueName = planQueueName(group.group);
  const queue = new Queue<QueueJob, QueueJobAnswer>(queueName, {
    connection: planRedisOptions(address, 'junobench-coordinator:queue'),
    prefix,
  });
  const events = new QueueEvents(queueName, {
    connection: planRedisOptions(address, 'junobench-coordinator:events'),
    prefix,
  });
  queue.on('error', () => undefined);
  events.on('error', () => undefined);
  await Promise.all([queue.waitUntilReady(), events.waitUntilReady()]);

  const coordinator = new QueueCoordinator({
    redis,
    queue,
    events,
    address,
    prefix,
    kind,
    group,
    waitMs,
    pollMs: options.pollMs ?? 2000,
    graceMs: (options.jobGraceSeconds ?? 600) * 1000,
    jobOptions: {
      attempts: options.attempts ?? 3,
      backoff: { type: 'exponential', delay: options.backoffMs ?? 2000 },
      // Collected answers are removed by the coordinator; these bound what a coordinator that died leaves.
      removeOnComplete: { age: 24 * 3600 },
      removeOnFail: { age: 7 * 24 * 3600 },
    },
    ...(options.sharedInstances ? { sharedRoot: path.resolve(options.sharedInstances) } : {}),
    blobLimit: options.blobLimitBytes ?? DEFAULT_BLOB_LIMIT_BYTES,
    notice,
  });
  return {
    kind: group.kind,
    group,
    describe: (modules) => coordinator.describe(modules),
    fingerprint: async () => group.fingerprint,
    run: (runs, opts) => coordinator.run(runs, opts),
    close: () => coordinator.close(),
    stats: () => structuredClone(coordinator.stats),
    cancel: () => coordinator.cancel(),
  };
}

async function waitForGroup(
  redis: Redis,
  prefix: string,
  kind: 'local' | 'docker',
  address: RedisAddress,
  waitMs: number,
  notice: (t: string) => void,
): Promise<WorkerGroup> {
  const deadline = Date.now() + waitMs;
  let told = false;
  for (;;) {
    const workers = await withTimeout(
      readLiveWorkers(redis, prefix),
      10_000,
      () => new JunoError('E_ENV_QUEUE', `Redis at ${address.display} does not answer`),
    );
    const groups = planWorkerGroups(workers).filter((g) => g.kind === kind);
    if (groups.length > 1) {
      throw new JunoError(
        'E_QUEUE_IDENTITY',
        `the live ${kind} workers on ${address.display} have ${groups.length} different runtime identities; a benchmark verified on two environments is not verified, so this run refuses to mix them:\n` +
          groups.map((g) => `  - ${describeWorkerGroup(g)}`).join('\n'),
        {
          hint: 'stop the workers of all identities but one (or give them their own Redis database: redis://host:port/1), then run again',
          exitCode: 3,
        },
      );
    }
    if (groups.length === 1) return groups[0]!;
    if (Date.now() >= deadline) throw noWorkerError(address, kind, undefined, workers, 0, waitMs);
    if (!told) notice(`waiting up to ${Math.round(waitMs / 1000)} s for a live ${kind} worker on ${address.display}`);
    told = true;
    await new Promise((r) => setTimeout(r, 500));
  }
}
