import { randomBytes } from 'node:crypto';
import type { JobsOptions, Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { JunoError, type QueueJob, type RunResult, type RuntimeIdentity } from '@junobench/core';
import type { NotebookRun, RunOptions } from '@junobench/runtime';
import { BLOB_PROBLEM, writeBlobs, type BlobUploadStats } from './blob-store.js';
import { JOB_STATE_FIELDS, JobTracker, planGiveUp, readJobState } from './job-tracker.js';
import { LivenessMonitor, type LivenessVerdict } from './liveness-monitor.js';
import { checkAnswerGroup, planQueueFiles, planRunJobs, readAnswerResult, type JobItem } from './queue-jobs.js';
import { withTimeout } from './redis-connection.js';
import type { RedisAddress } from './redis-url.js';
import type { QueueJobAnswer } from './run-worker.js';
import { QUEUE_PROTOCOL, readLiveWorkers, type WorkerGroup } from './worker-registry.js';

/** What a coordinator counts over its life (QueueRunStats of the queue runtime). */
export interface CoordinatorStats {
  jobs: number;
  byWorker: Record<string, number>;
  blobs: BlobUploadStats;
  stalled: number;
  resubmitted: number;
  givenUp: number;
}

export interface CoordinatorSettings {
  redis: Redis;
  queue: Queue<QueueJob, QueueJobAnswer>;
  events: QueueEvents;
  address: RedisAddress;
  prefix: string;
  kind: 'local' | 'docker';
  group: WorkerGroup;
  waitMs: number;
  pollMs: number;
  graceMs: number;
  jobOptions: JobsOptions;
  sharedRoot?: string;
  blobLimit: number;
  notice: (text: string) => void;
}

const redisSilent = () => new Error('Redis does not answer');

/**
 * The coordinator's side of the queue runtime: it submits one job per run,
 * collects the answers from the queue's events, and polls (LivenessMonitor)
 * for what events cannot tell: a job Redis lost (submitted again under a new
 * id), a job held past its limit (given up on), no live worker or no Redis
 * (every unfinished job fails). Its jobs are tracked by a JobTracker.
 */
export class QueueCoordinator {
  readonly stats: CoordinatorStats = {
    jobs: 0,
    byWorker: {},
    blobs: { blobs: 0, uploaded: 0, uploadedBytes: 0, reused: 0 },
    stalled: 0,
    resubmitted: 0,
    givenUp: 0,
  };
  private readonly tracker = new JobTracker();
  private readonly monitor: LivenessMonitor;
  private readonly probes = new Map<string, Promise<RuntimeIdentity>>();
  private readonly timer: NodeJS.Timeout;
  private polling = false;
  private pollFailure: ((e: JunoError) => void) | undefined;
  private closed = false;

  constructor(private readonly s: CoordinatorSettings) {
    this.monitor = new LivenessMonitor(s, Date.now());
    s.redis.on('ready', () => this.monitor.reconnect());
    this.listen();
    this.timer = setInterval(() => void this.poll(), s.pollMs);
  }

  /** Execute the runs on the workers; results in the order of `runs`. */
  async run(runs: readonly NotebookRun[], opts: RunOptions = {}): Promise<RunResult[]> {
    const results: RunResult[] = new Array(runs.length);
    if (runs.length === 0) return results;
    const { sharedRoot, blobLimit, redis, prefix, waitMs } = this.s;
    const files = await planQueueFiles(runs, {
      ...(sharedRoot ? { sharedRoot } : {}),
      blobLimit,
      redis,
      prefix,
      waitMs,
      stats: this.stats.blobs,
    });
    const items = planRunJobs(runs, files, newBatchId());
    const promises = await this.submit(items);
    const onAnswer = (answer: QueueJobAnswer, i: number) => {
      this.checkAnswer(answer);
      results[i] = readAnswerResult(answer, runs[i]!);
      opts.onResult?.(results[i]!, runs[i]!);
    };
    try {
      await this.collect(
        items.map((it) => it.jobId),
        promises,
        onAnswer,
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
  }

  /** The workers' runtime identity with `modules`, probed once per set of modules. */
  describe(modules: readonly string[]): Promise<RuntimeIdentity> {
    const mods = [...new Set(modules)].sort();
    const key = mods.join(',');
    let p = this.probes.get(key);
    if (!p) {
      p = this.probe(mods);
      this.probes.set(key, p);
      p.catch(() => this.probes.delete(key));
    }
    return p;
  }

  /** Take this coordinator's waiting jobs off the queue. */
  async cancel(): Promise<void> {
    await this.removeJobs(this.tracker.ids());
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    await Promise.all([
      withTimeout(this.s.events.close(), 5000, () => new Error('timeout')).catch(() => undefined),
      withTimeout(this.s.queue.close(), 5000, () => new Error('timeout')).catch(() => undefined),
    ]);
    this.s.redis.disconnect();
  }

  private async probe(mods: string[]): Promise<RuntimeIdentity> {
    const jobId = `${newBatchId()}-describe`;
    const promises = await this.submit([
      { jobId, data: { protocol: QUEUE_PROTOCOL, type: 'describe', modules: mods } },
    ]);
    let identity: RuntimeIdentity | undefined;
    await this.collect([jobId], promises, (answer) => {
      this.checkAnswer(answer);
      identity = answer.identity;
    });
    if (!identity || (identity.kind !== 'local' && identity.kind !== 'docker') || typeof identity.packages !== 'object')
      throw new JunoError('E_QUEUE', `a worker answered the runtime probe without a runtime identity`);
    return identity;
  }

  private listen(): void {
    const { events } = this.s;
    events.on('completed', ({ jobId, returnvalue }) => {
      this.monitor.event(Date.now());
      this.tracker.resolve(jobId, returnvalue as unknown as QueueJobAnswer);
    });
    events.on('failed', ({ jobId, failedReason }) => {
      this.monitor.event(Date.now());
      this.tracker.reject(jobId, this.failure(jobId, failedReason));
    });
    events.on('delayed', ({ jobId }) => this.sendFilesAgain(jobId));
    events.on('stalled', ({ jobId }) => {
      const t = this.tracker.get(jobId);
      if (!t) return;
      this.stats.stalled++;
      this.s.notice(
        `${t.data.type === 'run' ? t.data.run.id : 'probe'}: its worker stopped answering; the job goes to another worker`,
      );
    });
  }

  /**
   * A try that failed waits out its backoff ("delayed"): its files are sent again meanwhile where Redis lost them or
   * a worker found them damaged (and removed them), so the next try finds them; the ones there only get their TTL.
   */
  private sendFilesAgain(jobId: string): void {
    const manifest = this.tracker.get(jobId)?.manifest;
    if (!manifest) return;
    writeBlobs(this.s.redis, this.s.prefix, [manifest], { timeoutMs: this.s.waitMs }).then(
      (s) => {
        this.stats.blobs.uploaded += s.uploaded;
        this.stats.blobs.uploadedBytes += s.uploadedBytes;
        const t = this.tracker.get(jobId);
        if (s.uploaded > 0 && t?.data.type === 'run')
          this.s.notice(`${t.data.run.id}: ${s.uploaded} file(s) missing or damaged in Redis: sent again`);
      },
      () => undefined,
    );
  }

  /** The error a job that failed on the workers rejects with. */
  private failure(jobId: string, reason: string): JunoError {
    const queueName = this.s.queue.name;
    return new JunoError(
      // Files the workers cannot get intact even when sent again: Redis or a worker's disk is at fault, not the run.
      reason.startsWith(BLOB_PROBLEM) ? 'E_ENV_QUEUE' : 'E_QUEUE',
      `${this.tracker.describe(jobId)} failed on the workers (after at most ${this.s.jobOptions.attempts} tries): ${reason}`,
      {
        hint:
          "see the workers' output; the job stays in Redis as failed for 7 days (queue " +
          queueName +
          ', job ' +
          jobId +
          ')',
      },
    );
  }

  private failAll(error: JunoError): void {
    this.tracker.rejectAll(error);
    this.pollFailure?.(error);
  }

  private apply(verdict: LivenessVerdict): void {
    for (const text of verdict.notices) this.s.notice(text);
    if (verdict.failure) this.failAll(verdict.failure);
  }

  private async poll(): Promise<void> {
    if (this.tracker.size === 0) {
      this.monitor.idle(Date.now());
      return;
    }
    if (this.polling) return;
    this.polling = true;
    try {
      const { redis, prefix, pollMs } = this.s;
      if (redis.status !== 'ready') throw new Error(`connection ${redis.status}`);
      if (this.monitor.startFullCheck(Date.now())) {
        await withTimeout(this.checkJobs(), Math.max(5000, pollMs), redisSilent);
        this.monitor.fullCheckDone(Date.now());
      }
      const workers = await withTimeout(readLiveWorkers(redis, prefix), 5000, redisSilent);
      this.apply(this.monitor.answered(workers, this.tracker.size, Date.now()));
    } catch (e) {
      this.apply(this.monitor.unanswered(e as Error, this.tracker.size, Date.now()));
    } finally {
      this.polling = false;
    }
  }

  /** Every submitted job's state, read from Redis 500 at a time. */
  private async checkJobs(): Promise<void> {
    const ids = this.tracker.submittedIds();
    for (let i = 0; i < ids.length; i += 500) await this.checkChunk(ids.slice(i, i + 500));
  }

  private async checkChunk(chunk: string[]): Promise<void> {
    const { redis, queue } = this.s;
    const pipe = redis.pipeline();
    for (const id of chunk) {
      pipe.hmget(queue.toKey(id), ...JOB_STATE_FIELDS);
      pipe.exists(`${queue.toKey(id)}:lock`);
    }
    const answers = (await pipe.exec()) ?? [];
    const missing: string[] = [];
    for (const [k, id] of chunk.entries()) {
      const [err, value] = answers[2 * k] ?? [null, null];
      const [lockErr, locked] = answers[2 * k + 1] ?? [null, 0];
      if (err) throw err;
      if (lockErr) throw lockErr;
      const state = readJobState(value as (string | null)[] | null, locked);
      if (state.kind === 'missing') missing.push(id);
      else if (state.kind === 'completed') this.tracker.resolve(id, state.answer);
      else if (state.kind === 'failed') this.tracker.reject(id, this.failure(id, state.reason));
      else if (state.kind === 'held') this.giveUpIfOverdue(id, state);
    }
    if (missing.length > 0) await this.resubmit(missing);
  }

  /**
   * The coordinator's backstop for a worker that keeps its lock alive but
   * never answers (its runtime stuck): the run becomes a runtime failure,
   * reported and never cached, and the rest of the run goes on.
   */
  private giveUpIfOverdue(id: string, held: { processedOn: number; worker?: string }): void {
    const t = this.tracker.get(id);
    if (!t) return;
    const late = planGiveUp(t.data, held, Date.now(), this.s.graceMs);
    if (!late) return;
    this.stats.givenUp++;
    if (t.data.type !== 'run') {
      this.tracker.reject(id, this.failure(id, `the runtime probe was given up on: ${late.why}`));
      return;
    }
    const run = t.data.run;
    this.s.notice(`${run.id}: ${late.why}: given up on; see that worker's output`);
    this.tracker.resolve(id, {
      worker: held.worker ?? 'unknown',
      group: this.s.group.group,
      givenUp: true,
      result: {
        id: run.id,
        status: 'failed',
        reason: `the queue gave up on it: ${late.why}`,
        cells: [],
        durationMs: late.heldMs,
      },
    });
  }

  /** Jobs that vanished from Redis go in again, under new ids, their files first. */
  private async resubmit(ids: string[]): Promise<void> {
    const items = this.tracker.renew(ids);
    const manifests = [...new Set(items.flatMap(([, t]) => (t.manifest ? [t.manifest] : [])))];
    const { redis, prefix, waitMs, queue, jobOptions } = this.s;
    if (manifests.length > 0) await writeBlobs(redis, prefix, manifests, { timeoutMs: waitMs });
    await queue.addBulk(
      items.map(([jobId, t]) => ({ name: t.data.type, data: t.data, opts: { ...jobOptions, jobId } })),
    );
    for (const [, t] of items) t.submitted = true;
    this.stats.resubmitted += items.length;
    this.s.notice(`${items.length} job(s) vanished from Redis (restarted without persistence?): submitted again`);
  }

  /** Put the jobs in Redis, 1000 at a time; one promise per job for its answer. */
  private async submit(items: JobItem[]): Promise<Promise<QueueJobAnswer>[]> {
    const promises = items.map(({ jobId, data, manifest }) => this.tracker.track(jobId, data, manifest));
    const { queue, jobOptions, waitMs, address } = this.s;
    const refused = () =>
      new JunoError(
        'E_ENV_QUEUE',
        `Redis at ${address.display} did not take the jobs within ${Math.round(waitMs / 1000)} s`,
        {
          hint: 'check that Redis is running and reachable, then run again',
        },
      );
    for (let i = 0; i < items.length; i += 1000) {
      const chunk = items.slice(i, i + 1000);
      const bulk = chunk.map(({ jobId, data }) => ({ name: data.type, data, opts: { ...jobOptions, jobId } }));
      await withTimeout(queue.addBulk(bulk), waitMs, refused).catch((e: unknown) => {
        this.tracker.forget(items.map((it) => it.jobId));
        throw e;
      });
      this.tracker.markSubmitted(chunk.map((it) => it.jobId));
    }
    this.stats.jobs += items.length;
    return promises;
  }

  private async removeJobs(ids: readonly string[]): Promise<void> {
    for (let i = 0; i < ids.length; i += 200) {
      // An active job cannot be removed (its worker holds the lock): it expires with removeOnComplete.
      await Promise.all(
        ids
          .slice(i, i + 200)
          .map((id) => withTimeout(this.s.queue.remove(id), 5000, () => new Error('timeout')).catch(() => 0)),
      );
    }
  }

  /** Answers in order; the first failure cancels the other jobs and is thrown. */
  private async collect(
    jobIds: string[],
    promises: Promise<QueueJobAnswer>[],
    onAnswer: (answer: QueueJobAnswer, index: number) => void,
    signal?: AbortSignal,
  ): Promise<void> {
    let failed: unknown;
    let stop!: (e: unknown) => void;
    const stopped = new Promise<void>((_, reject) => (stop = reject));
    stopped.catch(() => undefined);
    this.pollFailure = (e) => stop(e);
    const onAbort = () => stop(new Error('cancelled'));
    signal?.addEventListener('abort', onAbort, { once: true });
    const answered = promises.map((p, i) =>
      p.then((answer) => {
        if (failed === undefined) onAnswer(answer, i);
      }),
    );
    try {
      await Promise.race([Promise.all(answered), stopped]);
    } catch (e) {
      failed = e;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      this.pollFailure = undefined;
      await this.removeJobs(this.tracker.release(jobIds));
    }
    if (failed !== undefined) throw failed;
  }

  private checkAnswer(answer: QueueJobAnswer): void {
    checkAnswerGroup(answer, this.s.group.group);
    if (!answer.givenUp) this.stats.byWorker[answer.worker] = (this.stats.byWorker[answer.worker] ?? 0) + 1;
  }
}

function newBatchId(): string {
  return randomBytes(6).toString('hex');
}
