import { randomBytes } from 'node:crypto';
import type { QueueJob } from '@junobench/core';
import type { InstanceManifest } from './instance-manifest.js';
import type { QueueJobAnswer } from './run-worker.js';

/** A job of the coordinator's that has no answer yet. */
export interface TrackedJob {
  data: QueueJob;
  /** In Redis (addBulk answered): only then can it be missing from there. */
  submitted: boolean;
  manifest?: InstanceManifest;
  resolve: (answer: QueueJobAnswer) => void;
  reject: (error: unknown) => void;
}

/**
 * What a job's fields in Redis say about it: gone (Redis lost it), answered,
 * failed for good, held by a worker (since `processedOn`), or waiting.
 */
export type JobState =
  | { kind: 'missing' }
  | { kind: 'completed'; answer: QueueJobAnswer }
  | { kind: 'failed'; reason: string }
  | { kind: 'held'; processedOn: number; worker?: string }
  | { kind: 'waiting' };

/** The fields of a job's hash that readJobState needs, in this order. */
export const JOB_STATE_FIELDS = [
  'timestamp',
  'finishedOn',
  'returnvalue',
  'failedReason',
  'processedOn',
  'pb',
] as const;

/**
 * A job's state from its hash fields (JOB_STATE_FIELDS) and whether its lock
 * exists: the lock is there only while a worker holds the job, since
 * processedOn stays set on a job a stalled or failed try sent back.
 */
export function readJobState(fields: readonly (string | null)[] | null, locked: unknown): JobState {
  const [timestamp, finishedOn, returnvalue, failedReason, processedOn, processedBy] = fields ?? [];
  if (!timestamp) return { kind: 'missing' };
  if (finishedOn && returnvalue != null)
    return { kind: 'completed', answer: JSON.parse(returnvalue) as QueueJobAnswer };
  if (finishedOn && failedReason) return { kind: 'failed', reason: failedReason };
  if (!finishedOn && processedOn && locked === 1)
    return { kind: 'held', processedOn: Number(processedOn), ...(processedBy ? { worker: processedBy } : {}) };
  return { kind: 'waiting' };
}

/**
 * Why a job held by a worker is given up on, or undefined while it is within
 * its limit: the run's own time limit plus `graceMs` (a probe gets the grace
 * alone). Each run's limits are enforced by the worker's runtime; this is the
 * coordinator's backstop for a worker that keeps its lock alive but never
 * answers (its runtime stuck).
 */
export function planGiveUp(
  job: QueueJob,
  held: { processedOn: number; worker?: string },
  now: number,
  graceMs: number,
): { heldMs: number; why: string } | undefined {
  const limitMs = (job.type === 'run' ? job.run.timeoutSeconds * 1000 : 0) + graceMs;
  const heldMs = now - held.processedOn;
  if (!Number.isFinite(held.processedOn) || heldMs <= limitMs) return undefined;
  const who = held.worker ? `worker ${held.worker}` : 'a worker';
  const limit = job.type === 'run' ? `is ${job.run.timeoutSeconds} s, ` : '';
  return {
    heldMs,
    why: `${who} took it ${Math.round(heldMs / 1000)} s ago and has not answered (its limit ${limit}plus ${Math.round(graceMs / 1000)} s of grace)`,
  };
}

/** The id a job gets when it is submitted again: a worker may still hold the old one. */
export function planSuccessorId(id: string, suffix = randomBytes(3).toString('hex')): string {
  return `${id.replace(/~.*$/, '')}~${suffix}`;
}

/**
 * The coordinator's jobs that have no answer yet, by job id, each with the
 * promise its run waits on. A job submitted again gets a new id (two live jobs
 * of one id confuse BullMQ's locks); the tracker remembers the chain, so
 * releasing a job releases every id it had. No I/O: the coordinator reads
 * Redis and tells the tracker what it found.
 */
export class JobTracker {
  private readonly jobs = new Map<string, TrackedJob>();
  private readonly successor = new Map<string, string>();

  get size(): number {
    return this.jobs.size;
  }

  get(jobId: string): TrackedJob | undefined {
    return this.jobs.get(jobId);
  }

  ids(): string[] {
    return [...this.jobs.keys()];
  }

  /** Jobs that Redis has taken: only those can be missing from there. */
  submittedIds(): string[] {
    return [...this.jobs.entries()].filter(([, t]) => t.submitted).map(([id]) => id);
  }

  /** Track a new job; the promise settles with its answer (it never counts as unhandled). */
  track(jobId: string, data: QueueJob, manifest?: InstanceManifest): Promise<QueueJobAnswer> {
    const answer = new Promise<QueueJobAnswer>((resolve, reject) => {
      this.jobs.set(jobId, { data, submitted: false, resolve, reject, ...(manifest ? { manifest } : {}) });
    });
    answer.catch(() => undefined);
    return answer;
  }

  markSubmitted(jobIds: readonly string[]): void {
    for (const id of jobIds) {
      const t = this.jobs.get(id);
      if (t) t.submitted = true;
    }
  }

  /** Stop tracking the jobs (their promises never settle). */
  forget(jobIds: readonly string[]): void {
    for (const id of jobIds) this.jobs.delete(id);
  }

  resolve(jobId: string, answer: QueueJobAnswer): void {
    this.settle(jobId)?.resolve(answer);
  }

  reject(jobId: string, error: unknown): void {
    this.settle(jobId)?.reject(error);
  }

  rejectAll(error: unknown): void {
    for (const id of this.ids()) this.reject(id, error);
  }

  /** What a job is, for messages: `run <id>` or `the runtime probe`. */
  describe(jobId: string): string {
    const t = this.jobs.get(jobId);
    return t?.data.type === 'run' ? `run ${t.data.run.id}` : 'the runtime probe';
  }

  /** Move the jobs to new ids (planSuccessorId), not yet submitted; returns them under their new ids. */
  renew(jobIds: readonly string[], nextId: (id: string) => string = planSuccessorId): [string, TrackedJob][] {
    const renewed: [string, TrackedJob][] = [];
    for (const id of jobIds) {
      const t = this.jobs.get(id);
      if (!t) continue;
      const next = nextId(id);
      this.jobs.delete(id);
      this.successor.set(id, next);
      t.submitted = false;
      this.jobs.set(next, t);
      renewed.push([next, t]);
    }
    return renewed;
  }

  /** Stop tracking the jobs and every id they were renewed to; returns all those ids (to remove from Redis). */
  release(jobIds: readonly string[]): string[] {
    const all = jobIds.flatMap((id) => this.chain(id));
    for (const id of all) {
      this.jobs.delete(id);
      this.successor.delete(id);
    }
    return all;
  }

  private chain(id: string): string[] {
    const ids = [id];
    for (let next = this.successor.get(id); next !== undefined; next = this.successor.get(next)) ids.push(next);
    return ids;
  }

  private settle(jobId: string): TrackedJob | undefined {
    const t = this.jobs.get(jobId);
    if (t) this.jobs.delete(jobId);
    return t;
  }
}
