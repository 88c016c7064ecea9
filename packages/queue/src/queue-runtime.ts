import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Queue, QueueEvents, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import {
  JunoError,
  checkSchema,
  formatIssue,
  hashInstanceTree,
  type QueueFiles,
  type QueueJob,
  type QueueRunJob,
  type RunResult,
  type RuntimeIdentity,
} from '@junobench/core';
import type { NotebookRun, RunOptions, Runtime } from '@junobench/runtime';
import { BLOB_PROBLEM, writeBlobs, type BlobUploadStats } from './blob-store.js';
import { checkBlobLimit, readInstanceManifest, type InstanceManifest } from './instance-manifest.js';
import { connectRedis, planRedisOptions, withTimeout } from './redis-connection.js';
import { parseRedisUrl, type RedisAddress } from './redis-url.js';
import { DEFAULT_PREFIX, type QueueJobAnswer } from './run-worker.js';
import {
  QUEUE_PROTOCOL,
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

interface Tracked {
  data: QueueJob;
  /** In Redis (addBulk answered): only then can it be missing from there. */
  submitted: boolean;
  manifest?: InstanceManifest;
  resolve: (answer: QueueJobAnswer) => void;
  reject: (error: unknown) => void;
}

/**
 * A Runtime whose notebooks run on `junobench worker` processes, anywhere,
 * through BullMQ jobs on Redis: one job per run with the plan and a
 * content-addressed reference to the instance's files. `verify`, `build` and
 * `score` use it like any runtime. Resolves once live workers of the chosen
 * kind are seen, all with one runtime identity (else refuses, naming them).
 */
export async function createQueueRuntime(options: QueueRuntimeOptions): Promise<QueueRuntime> {
  const address = parseRedisUrl(options.url);
  const prefix = options.prefix ?? DEFAULT_PREFIX;
  const kind = options.kind ?? 'local';
  const waitMs = (options.waitSeconds ?? 60) * 1000;
  const pollMs = options.pollMs ?? 2000;
  const graceMs = (options.jobGraceSeconds ?? 600) * 1000;
  const blobLimit = options.blobLimitBytes ?? DEFAULT_BLOB_LIMIT_BYTES;
  const notice = (t: string) => options.onNotice?.(t);
  const sharedRoot = options.sharedInstances ? path.resolve(options.sharedInstances) : undefined;

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

  const jobOptions: JobsOptions = {
    attempts: options.attempts ?? 3,
    backoff: { type: 'exponential', delay: options.backoffMs ?? 2000 },
    // Collected answers are removed by the coordinator; these bound what a coordinator that died leaves.
    removeOnComplete: { age: 24 * 3600 },
    removeOnFail: { age: 7 * 24 * 3600 },
  };
  const tracked = new Map<string, Tracked>();
  const stats: QueueRunStats = {
    jobs: 0,
    byWorker: {},
    blobs: { blobs: 0, uploaded: 0, uploadedBytes: 0, reused: 0 },
    stalled: 0,
    resubmitted: 0,
    givenUp: 0,
  };

  const settle = (jobId: string, fn: (t: Tracked) => void) => {
    const t = tracked.get(jobId);
    if (!t) return;
    tracked.delete(jobId);
    fn(t);
  };
  const failure = (jobId: string, reason: string) => {
    const t = tracked.get(jobId);
    const what = t?.data.type === 'run' ? `run ${t.data.run.id}` : 'the runtime probe';
    return new JunoError(
      // Files the workers cannot get intact even when sent again: Redis or a worker's disk is at fault, not the run.
      reason.startsWith(BLOB_PROBLEM) ? 'E_ENV_QUEUE' : 'E_QUEUE',
      `${what} failed on the workers (after at most ${jobOptions.attempts} tries): ${reason}`,
      {
        hint:
          "see the workers' output; the job stays in Redis as failed for 7 days (queue " +
          queueName +
          ', job ' +
          jobId +
          ')',
      },
    );
  };
  let lastEventAt = Date.now();
  events.on('completed', ({ jobId, returnvalue }) => {
    lastEventAt = Date.now();
    settle(jobId, (t) => t.resolve(returnvalue as unknown as QueueJobAnswer));
  });
  events.on('failed', ({ jobId, failedReason }) => {
    lastEventAt = Date.now();
    const error = failure(jobId, failedReason);
    settle(jobId, (t) => t.reject(error));
  });
  // A try that failed waits out its backoff ("delayed"): its files are sent again meanwhile where Redis lost them or
  // a worker found them damaged (and removed them), so the next try finds them; the ones there only get their TTL.
  events.on('delayed', ({ jobId }) => {
    const manifest = tracked.get(jobId)?.manifest;
    if (!manifest) return;
    writeBlobs(redis, prefix, [manifest], { timeoutMs: waitMs }).then(
      (s) => {
        stats.blobs.uploaded += s.uploaded;
        stats.blobs.uploadedBytes += s.uploadedBytes;
        const t = tracked.get(jobId);
        if (s.uploaded > 0 && t?.data.type === 'run')
          notice(`${t.data.run.id}: ${s.uploaded} file(s) missing or damaged in Redis: sent again`);
      },
      () => undefined,
    );
  });
  events.on('stalled', ({ jobId }) => {
    const t = tracked.get(jobId);
    if (!t) return;
    stats.stalled++;
    notice(
      `${t.data.type === 'run' ? t.data.run.id : 'probe'}: its worker stopped answering; the job goes to another worker`,
    );
  });

  // Events are fast; this poll is what makes the run survive what events cannot tell:
  // a job that vanished with a Redis restart, no live worker, Redis not answering.
  let lastContact = Date.now();
  let noWorkerSince: number | undefined;
  let lostNoticed = false;
  const otherWorkersSeen = new Set<string>();
  let polling = false;
  let lastFullCheck = Date.now();
  let reconnected = false;
  redis.on('ready', () => (reconnected = true));
  let pollFailure: ((e: JunoError) => void) | undefined;

  const failAll = (error: JunoError) => {
    for (const id of [...tracked.keys()]) settle(id, (t) => t.reject(error));
    pollFailure?.(error);
  };

  const poll = async (): Promise<void> => {
    if (polling || tracked.size === 0) {
      if (tracked.size === 0) {
        lastContact = Date.now();
        noWorkerSince = undefined;
      }
      return;
    }
    polling = true;
    try {
      if (redis.status !== 'ready') throw new Error(`connection ${redis.status}`);
      // Reading every job's state costs Redis work per job: do it when the events
      // have gone quiet, after a reconnection, and every 30 s in any case.
      if (Date.now() - lastEventAt >= pollMs || reconnected || Date.now() - lastFullCheck >= 30_000) {
        reconnected = false;
        await withTimeout(checkJobs(), Math.max(5000, pollMs), () => new Error('Redis does not answer'));
        lastFullCheck = Date.now();
      }
      const workers = await withTimeout(readLiveWorkers(redis, prefix), 5000, () => new Error('Redis does not answer'));
      if (lostNoticed) notice(`Redis at ${address.display} answers again`);
      lostNoticed = false;
      lastContact = Date.now();
      for (const w of workers) {
        if (w.group !== group.group && w.kind === kind && !otherWorkersSeen.has(w.name)) {
          otherWorkersSeen.add(w.name);
          notice(
            `worker ${w.name}@${w.host} has another runtime identity (${w.group}): it takes none of this run's jobs`,
          );
        }
      }
      const mine = workers.filter((w) => w.group === group.group);
      if (mine.length > 0) {
        noWorkerSince = undefined;
      } else {
        if (noWorkerSince === undefined) {
          noWorkerSince = Date.now();
          notice(
            `no live worker of identity ${group.group} on ${address.display}; waiting up to ${Math.round(waitMs / 1000)} s for one`,
          );
        }
        if (Date.now() - noWorkerSince > waitMs) {
          failAll(noWorkerError(address, kind, group, workers, tracked.size, waitMs));
        }
      }
    } catch (e) {
      if (!lostNoticed)
        notice(
          `Redis at ${address.display} does not answer (${(e as Error).message}); waiting up to ${Math.round(waitMs / 1000)} s`,
        );
      lostNoticed = true;
      if (Date.now() - lastContact > waitMs) {
        failAll(
          new JunoError(
            'E_ENV_QUEUE',
            `Redis at ${address.display} has not answered for ${Math.round((Date.now() - lastContact) / 1000)} s; ${tracked.size} job(s) unfinished`,
            {
              hint: 'check that Redis is running there; the finished results are cached, so running the command again redoes only the rest',
            },
          ),
        );
      }
    } finally {
      polling = false;
    }
  };

  const checkJobs = async (): Promise<void> => {
    const ids = [...tracked.entries()].filter(([, t]) => t.submitted).map(([id]) => id);
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      const pipe = redis.pipeline();
      for (const id of chunk) {
        pipe.hmget(queue.toKey(id), 'timestamp', 'finishedOn', 'returnvalue', 'failedReason', 'processedOn', 'pb');
        // The lock is there only while a worker holds the job: processedOn stays set on a job a stalled or failed try sent back.
        pipe.exists(`${queue.toKey(id)}:lock`);
      }
      const answers = (await pipe.exec()) ?? [];
      const missing: string[] = [];
      for (const [k, id] of chunk.entries()) {
        const [err, value] = answers[2 * k] ?? [null, null];
        const [lockErr, locked] = answers[2 * k + 1] ?? [null, 0];
        if (err) throw err;
        if (lockErr) throw lockErr;
        const [timestamp, finishedOn, returnvalue, failedReason, processedOn, processedBy] =
          (value as (string | null)[] | null) ?? [];
        if (!timestamp) missing.push(id);
        else if (finishedOn && returnvalue != null)
          settle(id, (t) => t.resolve(JSON.parse(returnvalue) as QueueJobAnswer));
        else if (finishedOn && failedReason) {
          const error = failure(id, failedReason);
          settle(id, (t) => t.reject(error));
        } else if (!finishedOn && processedOn && locked === 1) {
          giveUpIfOverdue(id, Number(processedOn), processedBy ?? undefined);
        }
      }
      if (missing.length > 0) await resubmit(missing);
    }
  };

  // Each run's own limits are enforced by the worker's runtime; this is the
  // coordinator's backstop for a worker that keeps its lock alive but never
  // answers (its runtime stuck): the run becomes a runtime failure, reported
  // and never cached, and the rest of the run goes on.
  const giveUpIfOverdue = (id: string, processedOn: number, worker: string | undefined): void => {
    const t = tracked.get(id);
    if (!t) return;
    const limitMs = (t.data.type === 'run' ? t.data.run.timeoutSeconds * 1000 : 0) + graceMs;
    const heldMs = Date.now() - processedOn;
    if (!Number.isFinite(processedOn) || heldMs <= limitMs) return;
    const who = worker ? `worker ${worker}` : 'a worker';
    const held = `${who} took it ${Math.round(heldMs / 1000)} s ago and has not answered (its limit ${t.data.type === 'run' ? `is ${t.data.run.timeoutSeconds} s, ` : ''}plus ${Math.round(graceMs / 1000)} s of grace)`;
    stats.givenUp++;
    if (t.data.type === 'run') {
      const run = t.data.run;
      notice(`${run.id}: ${held}: given up on; see that worker's output`);
      settle(id, (x) =>
        x.resolve({
          worker: worker ?? 'unknown',
          group: group.group,
          givenUp: true,
          result: {
            id: run.id,
            status: 'failed',
            reason: `the queue gave up on it: ${held}`,
            cells: [],
            durationMs: heldMs,
          },
        }),
      );
    } else {
      const error = failure(id, `the runtime probe was given up on: ${held}`);
      settle(id, (x) => x.reject(error));
    }
  };

  // A resubmitted job gets a new id: a worker may still hold the old one (from
  // before the restart), and two live jobs of one id confuse BullMQ's locks.
  const successor = new Map<string, string>();
  const chain = (id: string): string[] => {
    const ids = [id];
    for (let next = successor.get(id); next !== undefined; next = successor.get(next)) ids.push(next);
    return ids;
  };
  const resubmit = async (ids: string[]): Promise<void> => {
    const items: [string, Tracked][] = [];
    for (const id of ids) {
      const t = tracked.get(id);
      if (!t) continue;
      const next = `${id.replace(/~.*$/, '')}~${randomBytes(3).toString('hex')}`;
      tracked.delete(id);
      successor.set(id, next);
      t.submitted = false;
      tracked.set(next, t);
      items.push([next, t]);
    }
    const manifests = [
      ...new Set(items.map(([, t]) => t.manifest).filter((m): m is InstanceManifest => m !== undefined)),
    ];
    if (manifests.length > 0) await writeBlobs(redis, prefix, manifests, { timeoutMs: waitMs });
    await queue.addBulk(
      items.map(([jobId, t]) => ({ name: t.data.type, data: t.data, opts: { ...jobOptions, jobId } })),
    );
    for (const [, t] of items) t.submitted = true;
    stats.resubmitted += items.length;
    notice(`${items.length} job(s) vanished from Redis (restarted without persistence?): submitted again`);
  };

  const timer = setInterval(() => void poll(), pollMs);

  const submit = async (
    items: { jobId: string; data: QueueJob; manifest?: InstanceManifest }[],
  ): Promise<Promise<QueueJobAnswer>[]> => {
    const promises = items.map(
      ({ jobId, data, manifest }) =>
        new Promise<QueueJobAnswer>((resolve, reject) => {
          tracked.set(jobId, { data, submitted: false, resolve, reject, ...(manifest ? { manifest } : {}) });
        }),
    );
    for (const p of promises) p.catch(() => undefined);
    for (let i = 0; i < items.length; i += 1000) {
      const chunk = items.slice(i, i + 1000);
      await withTimeout(
        queue.addBulk(chunk.map(({ jobId, data }) => ({ name: data.type, data, opts: { ...jobOptions, jobId } }))),
        waitMs,
        () =>
          new JunoError(
            'E_ENV_QUEUE',
            `Redis at ${address.display} did not take the jobs within ${Math.round(waitMs / 1000)} s`,
            {
              hint: 'check that Redis is running and reachable, then run again',
            },
          ),
      ).catch((e: unknown) => {
        for (const { jobId } of items) tracked.delete(jobId);
        throw e;
      });
      for (const { jobId } of chunk) {
        const t = tracked.get(jobId);
        if (t) t.submitted = true;
      }
    }
    stats.jobs += items.length;
    return promises;
  };

  const removeJobs = async (ids: readonly string[]): Promise<void> => {
    for (let i = 0; i < ids.length; i += 200) {
      // An active job cannot be removed (its worker holds the lock): it expires with removeOnComplete.
      await Promise.all(
        ids
          .slice(i, i + 200)
          .map((id) => withTimeout(queue.remove(id), 5000, () => new Error('timeout')).catch(() => 0)),
      );
    }
  };

  /** Answers in order; the first failure cancels the other jobs and is thrown. */
  const collect = async (
    jobIds: string[],
    promises: Promise<QueueJobAnswer>[],
    onAnswer: (answer: QueueJobAnswer, index: number) => void,
    signal?: AbortSignal,
  ): Promise<void> => {
    let failed: unknown;
    let stop!: (e: unknown) => void;
    const stopped = new Promise<void>((_, reject) => (stop = reject));
    stopped.catch(() => undefined);
    pollFailure = (e) => stop(e);
    const onAbort = () => stop(new Error('cancelled'));
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await Promise.race([
        Promise.all(
          promises.map((p, i) =>
            p.then((answer) => {
              if (failed === undefined) onAnswer(answer, i);
            }),
          ),
        ),
        stopped,
      ]);
    } catch (e) {
      failed = e;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      pollFailure = undefined;
      const all = jobIds.flatMap(chain);
      for (const id of all) {
        tracked.delete(id);
        successor.delete(id);
      }
      await removeJobs(all);
    }
    if (failed !== undefined) throw failed;
  };

  const checkAnswer = (answer: QueueJobAnswer): void => {
    if (answer.group !== group.group) {
      throw new JunoError(
        'E_QUEUE_IDENTITY',
        `worker ${answer.worker} answered with runtime identity ${answer.group}, not ${group.group}: results of two environments are never mixed`,
        {
          exitCode: 3,
        },
      );
    }
    if (!answer.givenUp) stats.byWorker[answer.worker] = (stats.byWorker[answer.worker] ?? 0) + 1;
  };

  const runId = () => randomBytes(6).toString('hex');
  const probes = new Map<string, Promise<RuntimeIdentity>>();

  const describe = (modules: readonly string[]): Promise<RuntimeIdentity> => {
    const mods = [...new Set(modules)].sort();
    const key = mods.join(',');
    let p = probes.get(key);
    if (!p) {
      p = (async () => {
        const jobId = `${runId()}-describe`;
        const promises = await submit([{ jobId, data: { protocol: QUEUE_PROTOCOL, type: 'describe', modules: mods } }]);
        let identity: RuntimeIdentity | undefined;
        await collect([jobId], promises, (answer) => {
          checkAnswer(answer);
          identity = answer.identity;
        });
        if (
          !identity ||
          (identity.kind !== 'local' && identity.kind !== 'docker') ||
          typeof identity.packages !== 'object'
        ) {
          throw new JunoError('E_QUEUE', `a worker answered the runtime probe without a runtime identity`);
        }
        return identity;
      })();
      probes.set(key, p);
      p.catch(() => probes.delete(key));
    }
    return p;
  };

  const planFiles = async (
    runs: readonly NotebookRun[],
  ): Promise<Map<string, { files: QueueFiles; manifest?: InstanceManifest }>> => {
    const out = new Map<string, { files: QueueFiles; manifest?: InstanceManifest }>();
    const dirs = [...new Set(runs.map((r) => path.resolve(r.instanceDir)))];
    if (sharedRoot) {
      for (const dir of dirs) {
        const rel = path.relative(sharedRoot, dir);
        if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) {
          throw new JunoError('E_USAGE', `${dir} is not inside the shared folder ${sharedRoot}`, {
            hint: 'with --shared-instances <dir>, the instances must be read from that folder (e.g. --instances <dir>/raw/instances)',
          });
        }
        out.set(dir, {
          files: {
            treeHash: await hashInstanceTree(dir),
            shared: { root: sharedRoot, path: rel.split(path.sep).join('/') },
          },
        });
      }
      return out;
    }
    const manifests: InstanceManifest[] = [];
    for (const dir of dirs) {
      const m = await readInstanceManifest(dir);
      checkBlobLimit(m, blobLimit);
      manifests.push(m);
      out.set(dir, { files: { treeHash: m.treeHash, blobs: m.blobs }, manifest: m });
    }
    const s = await writeBlobs(redis, prefix, manifests, { timeoutMs: waitMs });
    stats.blobs.blobs += s.blobs;
    stats.blobs.uploaded += s.uploaded;
    stats.blobs.uploadedBytes += s.uploadedBytes;
    stats.blobs.reused += s.reused;
    return out;
  };

  const run = async (runs: readonly NotebookRun[], opts: RunOptions = {}): Promise<RunResult[]> => {
    const results: RunResult[] = new Array(runs.length);
    if (runs.length === 0) return results;
    const files = await planFiles(runs);
    const id = runId();
    const items = runs.map((r, i) => {
      const f = files.get(path.resolve(r.instanceDir))!;
      const data: QueueRunJob = {
        protocol: QUEUE_PROTOCOL,
        type: 'run',
        run: {
          id: r.id,
          notebook: r.notebook.split(path.sep).join('/'),
          cells: r.cells,
          cellTimeoutSeconds: r.cellTimeoutSeconds,
          timeoutSeconds: r.timeoutSeconds,
          ...(r.prewarm ? { prewarm: r.prewarm } : {}),
          ...(r.probe ? { probe: r.probe } : {}),
        },
        files: f.files,
      };
      return { jobId: `${id}-${i}`, data, ...(f.manifest ? { manifest: f.manifest } : {}) };
    });
    const issues = items.flatMap((it) => checkSchema('queue-job', it.data));
    if (issues.length > 0)
      throw new JunoError('E_QUEUE', `cannot make a queue job: ${issues.map(formatIssue).join('; ')}`);
    const promises = await submit(items);
    try {
      await collect(
        items.map((it) => it.jobId),
        promises,
        (answer, i) => {
          checkAnswer(answer);
          const r = runs[i]!;
          const issues = checkSchema('run-result', answer.result);
          const result: RunResult =
            issues.length === 0
              ? { ...answer.result!, id: r.id }
              : {
                  id: r.id,
                  status: 'failed',
                  reason: `worker ${answer.worker} returned an invalid result: ${issues.map(formatIssue).join('; ')}`,
                  cells: [],
                  durationMs: 0,
                };
          results[i] = result;
          opts.onResult?.(result, r);
        },
        opts.signal,
      );
    } catch (e) {
      if (!opts.signal?.aborted) throw e;
      for (const [i, r] of runs.entries()) {
        if (results[i]) continue;
        results[i] = { id: r.id, status: 'failed', reason: 'cancelled', cells: [], durationMs: 0 };
        opts.onResult?.(results[i]!, r);
      }
    }
    return results;
  };

  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    clearInterval(timer);
    await Promise.all([
      withTimeout(events.close(), 5000, () => new Error('timeout')).catch(() => undefined),
      withTimeout(queue.close(), 5000, () => new Error('timeout')).catch(() => undefined),
    ]);
    redis.disconnect();
  };

  return {
    kind: group.kind,
    group,
    describe,
    fingerprint: async () => group.fingerprint,
    run,
    close,
    stats: () => structuredClone(stats),
    cancel: async () => {
      const ids = [...tracked.keys()];
      await removeJobs(ids);
    },
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

function noWorkerError(
  address: RedisAddress,
  kind: string,
  group: WorkerGroup | undefined,
  workers: readonly { name: string; host: string; kind: string; group: string }[],
  unfinished: number,
  waitMs: number,
): JunoError {
  const others = workers.filter((w) => !group || w.group !== group.group);
  const which = group ? `${kind} worker of identity ${group.group}` : `${kind} worker`;
  const seen =
    others.length > 0
      ? ` (live workers that do not qualify: ${others.map((w) => `${w.name}@${w.host} (${w.kind}, ${w.group})`).join(', ')})`
      : '';
  return new JunoError(
    'E_ENV_QUEUE',
    `no live ${which} on ${address.display} for ${Math.round(waitMs / 1000)} s${unfinished > 0 ? `; ${unfinished} job(s) unfinished` : ''}${seen}`,
    {
      hint: `start one: \`junobench worker --queue ${address.display} --runtime ${kind}\`${others.some((w) => w.kind !== kind) ? `, or pass --runtime ${others.find((w) => w.kind !== kind)!.kind} to use the workers that are live` : ''}`,
    },
  );
}
