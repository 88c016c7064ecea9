import type { RunResult } from '@junobench/core';
import { planNextRunner, type Pending } from './pending-runs.js';
import type { RunnerSettings } from './runner-command.js';
import type { LiveRunner } from './runner-process.js';
import { CallerFailure, RunnerDriver, failedResult, type DriverContext } from './runner-driver.js';
import type { NotebookRun } from './runtime.js';

export interface SessionOptions {
  settings: RunnerSettings;
  /** The run folder's part the sandbox sees. */
  box: string;
  live: Set<LiveRunner>;
  jobs: number;
  /** Called as each run finishes; a throw stops the session (its runs fail, `done` rejects with the error). */
  onResult?: (result: RunResult, run: NotebookRun) => void;
  /** A runner with nothing to do for this long ends; the next run starts another (default: it waits until the end). */
  idleMs?: number;
  /**
   * Keep every result in `results` (run's list). A stream keeps none: each goes to its submitter, and a finished
   * run keeps only its id, so a worker's session does not grow with every job it ever ran.
   */
  keepResults?: boolean;
  signal?: AbortSignal;
}

/** What a stream keeps of a run once it is answered (its id). */
const FINISHED: NotebookRun = {
  id: '',
  instanceDir: '',
  notebook: '',
  cells: [],
  cellTimeoutSeconds: 0,
  timeoutSeconds: 0,
};

/**
 * Every run of the local runtime, through runner processes, whether the runs
 * come as one list (`run`) or one by one as they arrive (`stream`, a queue
 * worker's jobs). One runner serves all jobs while all goes well, and takes
 * runs that arrive while it lives: its zygotes and started-ahead kernels serve
 * them without a new interpreter. When a runner dies with several notebooks
 * executing, the suspects are run one at a time in a runner of their own, so
 * the one that kills it is blamed and the others are not (planNextRunner);
 * runs arriving meanwhile wait for the next runner.
 *
 * The session ends once `end()` was called and every run is answered; while
 * it is open and has nothing to do, its runner waits for plans (idle kernels
 * cost nothing but their memory).
 */
export class RunSession {
  private readonly runs: NotebookRun[] = [];
  private readonly answered = new Set<number>();
  /** Each run's result, in the order added (keepResults). */
  readonly results: RunResult[] = [];
  /** Runner processes started so far. */
  runners = 0;
  private pending: Pending[] = [];
  private readonly waiters = new Map<number, { resolve: (r: RunResult) => void; reject: (e: unknown) => void }>();
  private ended = false;
  private cancelled = false;
  private callerFailure: CallerFailure | undefined;
  private open: RunnerDriver | undefined;
  private wake: (() => void) | undefined;
  private readonly ctx: DriverContext;
  /** Settles when every run is answered and no runner is left. */
  readonly done: Promise<void>;

  constructor(private readonly options: SessionOptions) {
    this.ctx = {
      settings: options.settings,
      box: options.box,
      live: options.live,
      runOf: (run) => this.runs[run]!,
      finish: (run, r) => this.finish(run, r),
      moreMayCome: () => !this.ended && !options.signal?.aborted,
      isCancelled: () => this.cancelled,
      ...(options.idleMs !== undefined ? { idleMs: options.idleMs } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    };
    options.signal?.addEventListener('abort', () => this.poke(), { once: true });
    this.done = this.loop().catch((e: unknown) => {
      // Not a notebook's outcome but the runtime's own failure: every run still waiting hears of it.
      if (!this.callerFailure) for (const w of this.waiters.values()) w.reject(e);
      this.waiters.clear();
      throw e;
    });
    // A session nobody awaits (a stream whose owner only reads its runs' results) must not reject unhandled.
    this.done.catch(() => undefined);
  }

  /** Add a run; resolves with its result. */
  add(run: NotebookRun): Promise<RunResult> {
    const index = this.runs.push(run) - 1;
    const answered = new Promise<RunResult>((resolve, reject) => this.waiters.set(index, { resolve, reject }));
    if (this.ended || this.callerFailure || this.options.signal?.aborted) {
      try {
        this.finish(index, failedResult(run.id, 'cancelled'));
      } catch (e) {
        // The caller's onResult failed: `done` rejects with its error (the loop sees callerFailure).
        if (!(e instanceof CallerFailure)) throw e;
        this.poke();
      }
      return answered;
    }
    const p: Pending = { run: index, suspicions: 0, restarts: 0 };
    if (!this.open?.accept(p)) {
      this.pending.push(p);
      this.poke();
    }
    return answered;
  }

  /** The runtime closes: no more runs, and those not sent to a runner yet are cancelled. */
  cancel(): void {
    this.cancelled = true;
    this.open?.cancel();
    this.end();
  }

  /** No more runs: the runner finishes those it has, then ends. */
  end(): void {
    this.ended = true;
    this.open?.poke();
    this.poke();
  }

  private poke(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  private finish(run: number, r: RunResult): void {
    if (this.answered.has(run)) return;
    this.answered.add(run);
    if (this.options.keepResults) this.results[run] = r;
    this.waiters.get(run)?.resolve(r);
    this.waiters.delete(run);
    const notebookRun = this.runs[run]!;
    // The driver may still name a finished run (by its id) while it winds down; nothing else of it is needed.
    if (!this.options.keepResults) this.runs[run] = { ...FINISHED, id: notebookRun.id };
    // Once the caller failed, it is not called again: the session rejects with its first error.
    if (this.callerFailure) return;
    try {
      this.options.onResult?.(r, notebookRun);
    } catch (e) {
      this.callerFailure = new CallerFailure(e);
      throw this.callerFailure;
    }
  }

  private async loop(): Promise<void> {
    const { signal } = this.options;
    try {
      for (;;) {
        if (signal?.aborted || this.callerFailure || this.cancelled) {
          for (const p of this.pending.splice(0)) this.finish(p.run, failedResult(this.runs[p.run]!.id, 'cancelled'));
          break;
        }
        if (this.pending.length === 0) {
          if (this.ended) break;
          await new Promise<void>((resolve) => (this.wake = resolve));
          continue;
        }
        const next = planNextRunner(this.pending, this.options.jobs);
        this.pending = this.pending.filter((p) => !next.take.includes(p));
        // Only a runner for every job takes runs that arrive while it lives; one for a suspect runs that one alone.
        const suspects = next.take.some((p) => p.suspicions > 0);
        const driver = new RunnerDriver(this.ctx, next.take, next.jobs, !suspects);
        this.open = suspects ? undefined : driver;
        this.runners++;
        const { back, failure } = await driver.run().finally(() => (this.open = undefined));
        if (this.callerFailure) break;
        if (failure !== undefined) {
          // What broke the runner (the scratch folder, a stuck file operation) would break the next one too:
          // every run it holds and every run waiting fails with the reason. A stream goes on: runs that come later
          // get a runner of their own, which fails them again only if the cause is still there.
          for (const p of [...back, ...this.pending.splice(0)])
            this.finish(p.run, failedResult(this.runs[p.run]!.id, failure));
          continue;
        }
        this.pending = [...back, ...this.pending];
      }
    } catch (e) {
      if (!(e instanceof CallerFailure)) throw e;
    }
    if (this.callerFailure) throw this.callerFailure.error;
  }
}
