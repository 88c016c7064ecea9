import type { KernelKind, RunResult, RunnerMessage } from '@junobench/core';

/**
 * What one runner process is doing with the plans it was given, as a small
 * state machine over the runner's typed messages (no I/O: the local runtime
 * feeds it events and carries out what it returns).
 *
 *   sent ──started──▶ executing ──result──▶ finished
 *     │                   │
 *     └──runner exit──────┴──▶ finished (blamed) or back to the queue
 *
 * A plan is `sent` while it waits in the runner's queue or its kernel starts
 * ahead of its turn; `executing` from the runner's `started` message. Only
 * executing plans can have brought the runner down: when it dies with one
 * plan executing, that plan is blamed; with several, none can be told apart,
 * so each goes back to the queue as a suspect, to be run alone. Plans that
 * were only sent go back to the queue without blame.
 */
export interface TrackedPlan {
  /** Index of the run in the caller's list; the plan id is its decimal string. */
  run: number;
  /** The run's id, echoed in its result. */
  id: string;
  timeoutSeconds: number;
  /** Times this run was already executing when a runner died (0 the first time). */
  suspicions: number;
}

export interface TrackerLimits {
  /** Seconds a kernel may take to start (and import its prewarm modules). */
  startupSeconds: number;
  /** Seconds, beyond a plan's own limits, before the runner is declared hung. */
  graceSeconds: number;
}

export type TrackerOutcome =
  | { kind: 'finished'; run: number; result: RunResult }
  | { kind: 'requeue'; run: number; suspect: boolean }
  | { kind: 'kill'; reason: string };

interface Entry extends TrackedPlan {
  state: 'sent' | 'executing';
  sentAt: number;
  startedAt?: number;
  kernel?: KernelKind;
}

export class RunnerTracker {
  private readonly plans = new Map<string, Entry>();
  private lastMessageAt: number;
  private killedFor: string | undefined;

  constructor(
    private readonly limits: TrackerLimits,
    now: number,
  ) {
    this.lastMessageAt = now;
  }

  get inFlight(): number {
    return this.plans.size;
  }

  get executing(): number {
    let n = 0;
    for (const e of this.plans.values()) if (e.state === 'executing') n++;
    return n;
  }

  /** The plan was written to the runner's stdin. */
  sent(plan: TrackedPlan, now: number): void {
    // A runner with nothing to do was waiting, not silent: its silence counts from now.
    if (this.plans.size === 0) this.lastMessageAt = now;
    this.plans.set(String(plan.run), { ...plan, state: 'sent', sentAt: now });
  }

  /** A line the runner printed, parsed (see parseRunnerMessage). */
  message(message: RunnerMessage | { invalid: string; id?: string }, now: number): TrackerOutcome[] {
    const entry = message.id !== undefined ? this.plans.get(message.id) : undefined;
    // Only news of a plan in flight shows progress: a runner that talks of plans it
    // was never given (or answers one twice) is as stuck as a silent one.
    if (!entry) return [];
    this.lastMessageAt = now;
    if ('invalid' in message) {
      this.plans.delete(message.id!);
      return [
        {
          kind: 'finished',
          run: entry.run,
          result: failed(entry.id, `the runner printed an invalid message: ${message.invalid}`),
        },
      ];
    }
    switch (message.type) {
      case 'started':
        entry.state = 'executing';
        entry.startedAt = now;
        entry.kernel = message.kernel;
        return [];
      case 'result':
        this.plans.delete(message.id);
        return [{ kind: 'finished', run: entry.run, result: { ...message.result, id: entry.id } }];
      case 'rejected':
        this.plans.delete(message.id!);
        return [
          {
            kind: 'finished',
            run: entry.run,
            result: failed(entry.id, `the runner rejected the plan: ${message.reason}`),
          },
        ];
    }
  }

  /**
   * Periodic check. An executing plan past its own limit (plus start-up and
   * grace) means the runner failed to stop it: the runner is killed and that
   * plan is a timeout. A runner silent for longer than any plan in flight may
   * take is hung: killed, with the blame decided when it exits.
   */
  tick(now: number): TrackerOutcome[] {
    if (this.killedFor !== undefined) return [];
    const grace = (this.limits.startupSeconds + this.limits.graceSeconds) * 1000;
    for (const e of this.plans.values()) {
      if (e.state === 'executing' && now - e.startedAt! > e.timeoutSeconds * 1000 + grace) {
        this.plans.delete(String(e.run));
        const limit = Math.round(e.timeoutSeconds);
        this.killedFor = `a notebook ran past its ${limit} s limit and the runner did not stop it`;
        return [
          {
            kind: 'finished',
            run: e.run,
            result: {
              ...failed(
                e.id,
                `the notebook ran past its ${limit} s limit and the runner did not stop it; the runner was killed`,
              ),
              status: 'timeout',
              ...(e.kernel ? { kernel: e.kernel } : {}),
            },
          },
          { kind: 'kill', reason: this.killedFor },
        ];
      }
    }
    if (this.plans.size > 0) {
      const longest = Math.max(...[...this.plans.values()].map((e) => e.timeoutSeconds)) * 1000;
      if (now - this.lastMessageAt > longest + 2 * grace) {
        this.killedFor = `the runner printed nothing for ${Math.round((now - this.lastMessageAt) / 1000)} s`;
        return [{ kind: 'kill', reason: this.killedFor }];
      }
    }
    return [];
  }

  /**
   * The runner process ended (after its stdout closed). Every plan still in
   * flight is finished or requeued; the tracker is empty afterwards.
   */
  exited(info: { stderrTail: string; cancelled: boolean }): TrackerOutcome[] {
    const out: TrackerOutcome[] = [];
    const entries = [...this.plans.values()].sort((a, b) => a.run - b.run);
    this.plans.clear();
    const executing = entries.filter((e) => e.state === 'executing');
    const why =
      this.killedFor ?? `the runner process ended unexpectedly: ${lastLines(info.stderrTail) || 'no message'}`;
    for (const e of entries) {
      if (info.cancelled) {
        out.push({ kind: 'finished', run: e.run, result: failed(e.id, 'cancelled') });
      } else if (e.state === 'sent') {
        out.push({ kind: 'requeue', run: e.run, suspect: false });
      } else if (this.killedFor !== undefined && !this.killedFor.startsWith('the runner printed nothing')) {
        // The runner was killed because of another plan: this one is innocent.
        out.push({ kind: 'requeue', run: e.run, suspect: false });
      } else if (executing.length > 1 && e.suspicions === 0) {
        out.push({ kind: 'requeue', run: e.run, suspect: true });
      } else {
        const hung = this.killedFor?.startsWith('the runner printed nothing');
        out.push({
          kind: 'finished',
          run: e.run,
          result: {
            ...failed(
              e.id,
              hung ? `${why}; it was killed while this notebook ran` : `${why} (while this notebook ran)`,
            ),
            ...(hung ? { status: 'timeout' as const } : {}),
            ...(e.kernel ? { kernel: e.kernel } : {}),
          },
        });
      }
    }
    return out;
  }
}

function failed(id: string, reason: string): RunResult {
  return { id, status: 'failed', reason, cells: [], durationMs: 0 };
}

function lastLines(text: string): string {
  return text.trim().split('\n').slice(-3).join(' | ');
}
