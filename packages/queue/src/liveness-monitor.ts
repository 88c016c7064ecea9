import { JunoError } from '@junobench/core';
import type { RedisAddress } from './redis-url.js';
import type { WorkerGroup } from './worker-registry.js';

/** What a live worker's record says, as far as liveness goes. */
export interface SeenWorker {
  name: string;
  host: string;
  kind: string;
  group: string;
}

/** What the monitor concluded from a poll: notices for the user, and an error that ends every unfinished job. */
export interface LivenessVerdict {
  notices: string[];
  failure?: JunoError;
}

export interface LivenessSettings {
  address: RedisAddress;
  kind: 'local' | 'docker';
  group: WorkerGroup;
  /** How long a run waits with no live worker, or no answer from Redis, before it gives up. */
  waitMs: number;
  /** How quiet the queue's events must be before the jobs' states are read. */
  pollMs: number;
}

/** Every 30 s, the jobs' states are read whatever the events say. */
const FULL_CHECK_MS = 30_000;

/**
 * The coordinator's view of whether its run can go on: is Redis answering,
 * is a worker of the run's identity live, and when should every job's state
 * be read. Events are fast; the poll this monitor drives is what makes the
 * run survive what events cannot tell (a job that vanished with a Redis
 * restart, no live worker, Redis not answering). No I/O: the coordinator
 * tells it what it saw, with the time.
 */
export class LivenessMonitor {
  private lastContact: number;
  private lastEventAt: number;
  private lastFullCheck: number;
  private noWorkerSince: number | undefined;
  private lostNoticed = false;
  private reconnected = false;
  private readonly otherWorkersSeen = new Set<string>();

  constructor(
    private readonly settings: LivenessSettings,
    now: number,
  ) {
    this.lastContact = now;
    this.lastEventAt = now;
    this.lastFullCheck = now;
  }

  /** The queue sent an event (a job completed or failed). */
  event(now: number): void {
    this.lastEventAt = now;
  }

  /** The Redis connection came back: the next poll reads every job's state. */
  reconnect(): void {
    this.reconnected = true;
  }

  /** No job is unfinished: nothing is waited for, so nothing is late. */
  idle(now: number): void {
    this.lastContact = now;
    this.noWorkerSince = undefined;
  }

  /**
   * Whether this poll reads every job's state (costly: Redis work per job): when
   * the events have gone quiet, after a reconnection, and every 30 s in any case.
   */
  startFullCheck(now: number): boolean {
    const due =
      now - this.lastEventAt >= this.settings.pollMs || this.reconnected || now - this.lastFullCheck >= FULL_CHECK_MS;
    if (due) this.reconnected = false;
    return due;
  }

  fullCheckDone(now: number): void {
    this.lastFullCheck = now;
  }

  /** Redis answered with the live workers: is one of the run's identity among them? */
  answered(workers: readonly SeenWorker[], unfinished: number, now: number): LivenessVerdict {
    const { address, kind, group, waitMs } = this.settings;
    const notices: string[] = [];
    if (this.lostNoticed) notices.push(`Redis at ${address.display} answers again`);
    this.lostNoticed = false;
    this.lastContact = now;
    for (const w of workers) {
      if (w.group !== group.group && w.kind === kind && !this.otherWorkersSeen.has(w.name)) {
        this.otherWorkersSeen.add(w.name);
        notices.push(
          `worker ${w.name}@${w.host} has another runtime identity (${w.group}): it takes none of this run's jobs`,
        );
      }
    }
    if (workers.some((w) => w.group === group.group)) {
      this.noWorkerSince = undefined;
      return { notices };
    }
    if (this.noWorkerSince === undefined) {
      this.noWorkerSince = now;
      notices.push(
        `no live worker of identity ${group.group} on ${address.display}; waiting up to ${Math.round(waitMs / 1000)} s for one`,
      );
    }
    if (now - this.noWorkerSince > waitMs)
      return { notices, failure: noWorkerError(address, kind, group, workers, unfinished, waitMs) };
    return { notices };
  }

  /** Redis did not answer the poll (`error` says how). */
  unanswered(error: Error, unfinished: number, now: number): LivenessVerdict {
    const { address, waitMs } = this.settings;
    const notices: string[] = [];
    if (!this.lostNoticed)
      notices.push(
        `Redis at ${address.display} does not answer (${error.message}); waiting up to ${Math.round(waitMs / 1000)} s`,
      );
    this.lostNoticed = true;
    if (now - this.lastContact <= waitMs) return { notices };
    const failure = new JunoError(
      'E_ENV_QUEUE',
      `Redis at ${address.display} has not answered for ${Math.round((now - this.lastContact) / 1000)} s; ${unfinished} job(s) unfinished`,
      {
        hint: 'check that Redis is running there; the finished results are cached, so running the command again redoes only the rest',
      },
    );
    return { notices, failure };
  }
}

/** No live worker that qualifies (of `kind`, and of `group` when there is one) for `waitMs`. */
export function noWorkerError(
  address: RedisAddress,
  kind: string,
  group: WorkerGroup | undefined,
  workers: readonly SeenWorker[],
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
