import { UnrecoverableError, WaitingError, type Job } from 'bullmq';
import { checkSchema, formatIssue, type QueueJob, type QueueRunJob, type RunResult } from '@junobench/core';
import type { Runtime } from '@junobench/runtime';
import type { BlobCache } from './blob-store.js';
import { planTreeHash } from './instance-manifest.js';
import { withTimeout } from './redis-connection.js';
import { createRunBatcher, type RunBatcher } from './run-batcher.js';
import type { QueueJobAnswer, WorkerEvent } from './worker-types.js';
import type { SharedFolderCheck } from './shared-folder-check.js';

export interface ProcessorParts {
  name: string;
  group: string;
  runtime: Runtime;
  jobs: number;
  cache: BlobCache;
  shared: SharedFolderCheck;
  emit: (e: WorkerEvent) => void;
}

/**
 * What a worker does with each job BullMQ gives it: checks it, builds the
 * instance folder (from blobs, or the shared folder), runs it through a
 * RunBatcher and answers with the result. While the worker stops, the jobs
 * it holds go back to the queue, untouched (`returnAll`), and `drain` waits
 * for those running to end.
 */
export class JobProcessor {
  readonly stats = { completed: 0, errors: 0, returned: 0 };
  /** Jobs this worker handed back to the queue while stopping (BullMQ ids). */
  readonly handedBack = new Set<string>();
  private running = 0;
  private idle: (() => void) | undefined;
  private forceReturn: (() => void) | undefined;
  private readonly returning = new AbortController();
  private readonly batcher: RunBatcher;

  constructor(private readonly parts: ProcessorParts) {
    this.batcher = createRunBatcher(parts.runtime, { jobs: parts.jobs, signal: this.returning.signal });
  }

  /** Jobs being processed now. */
  get runningJobs(): number {
    return this.running;
  }

  /** runtime.run calls so far. */
  get batches(): number {
    return this.batcher.batches;
  }

  /** BullMQ's processor function. */
  async process(job: Job<QueueJob, QueueJobAnswer>, token?: string): Promise<QueueJobAnswer> {
    const issues = checkSchema('queue-job', job.data);
    if (issues.length > 0)
      throw new UnrecoverableError(`job ${job.id} is not a junobench queue job: ${issues.map(formatIssue).join('; ')}`);
    const data = job.data;
    const { name, group, runtime } = this.parts;
    if (data.type === 'describe') return { worker: name, group, identity: await runtime.describe(data.modules) };
    this.running++;
    try {
      const dir = await this.instanceFolder(job, data);
      const result = this.returning.signal.aborted
        ? undefined
        : await this.batcher.submit({ ...data.run, instanceDir: dir });
      if (!result || (this.returning.signal.aborted && result.status === 'failed' && result.reason === 'cancelled'))
        return await this.handBack(job, data, token);
      this.stats.completed++;
      this.parts.emit({ type: 'job-done', id: data.run.id, status: result.status, durationMs: result.durationMs });
      return { worker: name, group, result: { ...result, id: data.run.id } satisfies RunResult };
    } catch (e) {
      if (!(e instanceof WaitingError)) {
        this.stats.errors++;
        const error = (e as { detail?: string }).detail ?? (e as Error).message;
        this.parts.emit({ type: 'job-error', id: data.run.id, error });
      }
      throw e;
    } finally {
      this.running--;
      if (this.running === 0) this.idle?.();
    }
  }

  /**
   * Until no job runs, `ms` have passed, or returnNow() is called: the jobs
   * running when the worker stops get their chance to finish.
   */
  async drain(ms: number): Promise<void> {
    if (this.running === 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.forceReturn = () => {
        clearTimeout(timer);
        resolve();
      };
      this.idle = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /** End a drain at once. */
  returnNow(): void {
    this.forceReturn?.();
  }

  /** Hand every job held back to the queue (their runs are cancelled), and wait until none runs. */
  async returnAll(): Promise<void> {
    this.returning.abort();
    if (this.running > 0) await new Promise<void>((resolve) => (this.idle = resolve));
  }

  private async instanceFolder(job: Job<QueueJob, QueueJobAnswer>, data: QueueRunJob): Promise<string> {
    const { files } = data;
    if (files.blobs && !files.shared) {
      if (planTreeHash(files.blobs) !== files.treeHash)
        throw new UnrecoverableError(`job ${job.id}: its file list does not match its tree hash`);
      return this.parts.cache.materialize(files.treeHash, files.blobs);
    }
    if (files.shared && !files.blobs) return this.parts.shared.resolve(files);
    throw new UnrecoverableError(`job ${job.id}: it must carry either blobs or a shared folder`);
  }

  /**
   * Stopping: the job goes back to the queue for another worker, untouched. If
   * Redis does not take it back now, the lock simply expires and another
   * worker takes it over.
   */
  private async handBack(job: Job<QueueJob, QueueJobAnswer>, data: QueueRunJob, token?: string): Promise<never> {
    if (job.id) this.handedBack.add(job.id);
    await withTimeout(job.moveToWait(token), 5000, () => new Error('Redis does not answer')).catch(() => undefined);
    this.stats.returned++;
    this.parts.emit({ type: 'job-returned', id: data.run.id });
    throw new WaitingError();
  }
}
