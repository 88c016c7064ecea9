/**
 * The local runtime's file operations (scratch copies and their removal), one
 * at a time and in order, on a chain of their own: a result's scratch folder
 * is gone before the next plan is fed, and neither the runner's messages nor
 * the watchdog ever wait for the disk. The chain never rejects: a failed step
 * is reported to `onError` (which stops the runner) and, once `halted()`, the
 * steps left are skipped. `overdue` tells the watchdog when one has taken too long.
 */
export class FileSteps {
  private chain: Promise<void> = Promise.resolve();
  private busy: { what: string; since: number } | undefined;

  constructor(
    private readonly onError: (error: unknown) => void,
    private readonly halted: () => boolean,
    private readonly now: () => number = Date.now,
  ) {}

  /** Queue `fn` after the steps before it. */
  step(fn: () => Promise<void>): void {
    this.chain = this.chain.then(async () => {
      if (this.halted()) return;
      try {
        await fn();
      } catch (e) {
        this.onError(e);
      } finally {
        this.busy = undefined;
      }
    });
  }

  /** What the running step is doing now (named in the watchdog's message if it never ends). */
  doing(what: string): void {
    this.busy = { what, since: this.now() };
  }

  /** Why the running step counts as failed: it has taken longer than `limitMs`; undefined while it has not. */
  overdue(limitMs: number): string | undefined {
    if (!this.busy) return undefined;
    const ms = this.now() - this.busy.since;
    return ms > limitMs ? `${this.busy.what} has not finished after ${Math.round(ms / 1000)} s` : undefined;
  }

  /** Settles when every step queued so far has ended. */
  drained(): Promise<void> {
    return this.chain;
  }
}

/** `promise`, or a rejection naming `what` if it has not settled after `ms`. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  if (!Number.isFinite(ms)) return promise;
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} has not finished after ${Math.round(ms / 1000)} s`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
