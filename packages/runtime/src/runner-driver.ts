import { mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import type { RunResult } from '@junobench/core';
import { FileSteps, within } from './file-steps.js';
import { parseRunnerMessage } from './parse-runner-message.js';
import { MAX_RESTARTS, splitRestarted, type Pending } from './pending-runs.js';
import {
  planRunnerCommand,
  planRunnerPlan,
  planStepLimitSeconds,
  type RunnerCommand,
  type RunnerSettings,
} from './runner-command.js';
import { RunnerProcess, type LiveRunner, type RunnerChannel } from './runner-process.js';
import { RunnerTracker, type TrackerOutcome } from './runner-tracker.js';
import type { NotebookRun } from './runtime.js';
import { ScratchCopies } from './scratch-copies.js';

/** Plans kept in flight per job: one executing, one whose kernel starts meanwhile. */
const IN_FLIGHT_PER_JOB = 2;

/** What a driver needs of its session. */
export interface DriverContext {
  settings: RunnerSettings;
  /** The run folder's part the sandbox sees (scratch copies, the runner's own folder). */
  box: string;
  /** Runner processes alive: the runtime's close kills them. */
  live: Set<LiveRunner>;
  runOf(run: number): NotebookRun;
  /** A run's result; the first one given counts. Throws a CallerFailure when the caller's onResult throws. */
  finish(run: number, result: RunResult): void;
  /** More runs may still be given to an open driver (`accept`): its runner's input stays open while idle. */
  moreMayCome?(): boolean;
  /** An open driver whose runner had nothing to do for this long ends it (default: never); later runs get a new one. */
  idleMs?: number;
  /** The session was cancelled (the runtime closes): runs in flight end as `cancelled`, like an aborted signal's. */
  isCancelled?(): boolean;
  signal?: AbortSignal;
}

/** The caller's onResult threw: run() rejects with its error once the runner is gone. */
export class CallerFailure {
  constructor(readonly error: unknown) {}
}

export interface DriverOutcome {
  /** Runs to give to the next runner. */
  back: Pending[];
  /** Set when the runtime itself could not go on: every run of this driver was finished with it. */
  failure?: string;
}

/**
 * One runner process over the runs it is given: it copies each run's
 * instance to a scratch folder, sends the plan (two per job, so the next
 * kernel starts while one executes), turns the runner's messages into
 * results through a RunnerTracker and, when the runner ends, says which runs
 * go to the next runner. It ends when every run is answered, when it is
 * killed, or when its runner dies.
 *
 * It never hangs: the runner's messages are handled as they arrive, and the
 * watchdog ticks on its own timer, neither waiting for the file operations,
 * which go one at a time on a chain of their own (FileSteps). A failed file
 * operation stops the runner, and one that takes too long counts as failed:
 * every run of the driver then fails with the reason. So does a caller whose
 * onResult throws (a CallerFailure), with the reason `cancelled`.
 */
export class RunnerDriver {
  private readonly byRun = new Map<number, Pending>();
  private readonly waiting: Pending[] = [];
  private back: Pending[] = [];
  private readonly steps: FileSteps;
  private readonly scratch: ScratchCopies;
  private readonly tracker: RunnerTracker;
  private readonly stepMs: number;
  private proc: RunnerChannel | undefined;
  private command: RunnerCommand | undefined;
  private failure: string | undefined;
  private callerFailure: CallerFailure | undefined;
  private failed!: () => void;
  private readonly failedLatch = new Promise<void>((r) => (this.failed = r));
  private inputClosed = false;
  private over = false;
  /** Since when the runner has had nothing to do while more runs may come (an open driver). */
  private idleSince: number | undefined;
  /** Idle too long: it takes no more runs and its runner ends. */
  private retired = false;

  /**
   * `open`: the driver takes runs given to `accept` while its runner lives,
   * and keeps the runner waiting for them while `ctx.moreMayCome()` says so.
   */
  constructor(
    private readonly ctx: DriverContext,
    take: readonly Pending[],
    private readonly jobs: number,
    private readonly open = false,
  ) {
    for (const p of take) {
      this.byRun.set(p.run, p);
      this.waiting.push(p);
    }
    this.steps = new FileSteps(
      (e) => this.fail(e),
      () => this.broken(),
    );
    this.scratch = new ScratchCopies(ctx.box);
    const { startupSeconds, graceSeconds } = ctx.settings;
    this.tracker = new RunnerTracker({ startupSeconds, graceSeconds }, Date.now());
    this.stepMs = planStepLimitSeconds(ctx.settings) * 1000;
  }

  /** Run the runner until it ends; every run it was given is finished or given back. */
  async run(): Promise<DriverOutcome> {
    let runnerTmp: string;
    try {
      runnerTmp = await within(
        mkdtemp(path.join(this.ctx.box, 'runner-')),
        this.stepMs,
        "creating the runner's folder",
      );
    } catch (e) {
      const failure = `the local runtime could not go on: ${(e as Error).message}`;
      for (const p of this.byRun.values()) this.ctx.finish(p.run, failedResult(this.ctx.runOf(p.run).id, failure));
      return { back: [], failure };
    }
    const { settings, live } = this.ctx;
    const launcher = settings.launcher;
    this.command = (launcher?.plan ?? planRunnerCommand)(settings, this.jobs, runnerTmp, this.ctx.box);
    const proc = launcher ? launcher.start(this.command, live) : RunnerProcess.start(this.command, settings.env, live);
    this.proc = proc;
    proc.onLine((line) => this.onLine(line));
    const watchdog = setInterval(() => this.tick(), 1000);
    const onAbort = () => proc.kill('cancelled');
    this.ctx.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      this.steps.step(() => this.feed());
      await proc.waitForEnd();
      this.over = true;
      // Pending file operations finish first (their results are in), unless one is stuck (the watchdog's limit).
      await Promise.race([this.steps.drained(), this.failedLatch]);
      clearInterval(watchdog);
      this.settle();
    } finally {
      clearInterval(watchdog);
      this.over = true;
      this.ctx.signal?.removeEventListener('abort', onAbort);
      proc.dispose();
      await this.cleanUp(runnerTmp);
    }
    return this.outcome();
  }

  /**
   * A run that arrived while this runner lives: taken (true) unless the
   * driver is not open, its runner's input is closed, or it is stopping.
   */
  accept(p: Pending): boolean {
    if (!this.open || this.retired || this.inputClosed || this.stopping()) return false;
    this.byRun.set(p.run, p);
    this.waiting.push(p);
    this.poke();
    return true;
  }

  /** Stop the runner now: its runs in flight end as `cancelled` (ctx.isCancelled says so). */
  cancel(): void {
    this.proc?.kill('cancelled');
  }

  /** Something changed outside (a run arrived, no more will): send plans or end the input. */
  poke(): void {
    if (this.proc && !this.over) this.steps.step(() => this.feed());
  }

  private broken(): boolean {
    return this.failure !== undefined || this.callerFailure !== undefined;
  }

  private stopping(): boolean {
    return this.over || this.proc?.killed === true || this.broken();
  }

  /** Give the caller a result; a caller that fails stops the runner (see fail). */
  private finish(run: number, result: RunResult): void {
    try {
      this.ctx.finish(run, result);
    } catch (e) {
      this.fail(e);
    }
  }

  /** Send plans while there is room, each after its scratch copy; end the runner's input once it is all done. */
  private async feed(): Promise<void> {
    const proc = this.proc!;
    while (!this.inputClosed && !this.stopping() && this.tracker.inFlight < IN_FLIGHT_PER_JOB * this.jobs) {
      const p = this.waiting[0];
      if (!p) break;
      const r = this.ctx.runOf(p.run);
      this.steps.doing(`copying ${r.instanceDir} to a scratch folder`);
      const dir = await this.scratch.create();
      if (this.stopping()) return this.scratch.discard(dir);
      // Taken off the queue only now: had the folder not been made, the run would still be there to fail with the reason.
      this.waiting.shift();
      if (!(await this.fill(p, r, dir))) continue;
      if (this.stopping()) {
        // The runner is gone or going: the run was not sent, it stays in the queue.
        this.waiting.unshift(p);
        return this.scratch.discard(dir);
      }
      this.scratch.keep(p.run, dir);
      this.tracker.sent(
        { run: p.run, id: r.id, timeoutSeconds: r.timeoutSeconds, suspicions: p.suspicions },
        Date.now(),
      );
      proc.send(planRunnerPlan(String(p.run), r, dir, this.command!, this.ctx.settings.startupSeconds));
    }
    const more = this.open && !this.retired && this.ctx.moreMayCome?.() === true;
    const idle = this.tracker.inFlight === 0 && this.waiting.length === 0;
    this.idleSince = idle && more ? (this.idleSince ?? Date.now()) : undefined;
    if (!more && !this.inputClosed && !this.over && idle) {
      this.inputClosed = true;
      proc.endInput();
    }
  }

  /** Copy the instance; a copy that fails finishes its run (the runner goes on with the others). */
  private async fill(p: Pending, r: NotebookRun, dir: string): Promise<boolean> {
    try {
      await this.scratch.fill(dir, r.instanceDir);
      await this.ctx.settings.launcher?.prepareScratch?.(dir);
      return true;
    } catch (e) {
      await this.scratch.discard(dir);
      this.finish(
        p.run,
        failedResult(r.id, `cannot copy ${r.instanceDir} to a scratch folder: ${(e as Error).message}`),
      );
      return false;
    }
  }

  private onLine(line: string): void {
    if (this.over) return;
    try {
      const message = parseRunnerMessage(line, this.proc!.key);
      if (!message) return; // not a message (a library printing to the runner's stdout)
      this.apply(this.tracker.message(message, Date.now()));
    } catch (e) {
      this.fail(e);
      return;
    }
    this.steps.step(() => this.feed());
  }

  /** The watchdog: plans past their limits, a silent runner, a file operation that never ends. */
  private tick(): void {
    const { idleMs } = this.ctx;
    if (idleMs !== undefined && this.idleSince !== undefined && Date.now() - this.idleSince >= idleMs) {
      // Its zygotes hold the imported libraries' memory for nobody: the next run starts a runner again.
      this.retired = true;
      this.idleSince = undefined;
      this.poke();
    }
    try {
      if (!this.over) this.apply(this.tracker.tick(Date.now()));
    } catch (e) {
      this.fail(e);
    }
    const late = this.steps.overdue(this.stepMs);
    if (late) this.fail(new Error(late));
  }

  private apply(outcomes: TrackerOutcome[]): void {
    for (const o of outcomes) {
      if (o.kind === 'kill') {
        this.proc!.kill(o.reason);
        continue;
      }
      if (o.kind === 'finished') {
        this.finish(o.run, o.result);
      } else {
        const p = this.byRun.get(o.run)!;
        this.back.push(o.suspect ? { ...p, suspicions: p.suspicions + 1 } : { ...p, restarts: p.restarts + 1 });
      }
      this.steps.step(() => this.release(o.run));
    }
  }

  private async release(run: number): Promise<void> {
    this.steps.doing(`removing the scratch folder ${this.scratch.whereIs(run)}`);
    await this.scratch.release(run);
  }

  /**
   * The caller failed (a CallerFailure), or the runtime could not go on (a
   * scratch folder that cannot be made, a file operation that never ends).
   */
  private fail(error: unknown): void {
    if (this.broken()) return;
    if (error instanceof CallerFailure) {
      this.callerFailure = error;
      this.proc?.kill('the caller of the run failed');
    } else {
      this.failure = `the local runtime could not go on: ${error instanceof Error ? error.message : String(error)}`;
      this.proc?.kill(this.failure);
    }
    this.failed();
  }

  /** The runner has ended: every run still in flight is finished or goes back, by the tracker's rules. */
  private settle(): void {
    const stderrTail = this.proc!.stderrTail;
    if (this.broken()) {
      const why = this.failure ?? 'cancelled: the caller of the run failed';
      for (const o of this.tracker.exited({ stderrTail, cancelled: true }))
        if (o.kind === 'finished') this.finish(o.run, { ...o.result, reason: why });
      // Every run of this runner not finished yet (queued, requeued, or in a stuck copy) fails with the reason.
      for (const p of this.byRun.values()) this.finish(p.run, failedResult(this.ctx.runOf(p.run).id, why));
      this.waiting.splice(0);
      this.back = [];
      return;
    }
    const cancelled = Boolean(this.ctx.signal?.aborted) || this.ctx.isCancelled?.() === true;
    this.apply(this.tracker.exited({ stderrTail, cancelled }));
    // Never sent (the runner ended first): back to the queue, no blame.
    this.back.push(...this.waiting.splice(0));
  }

  /**
   * Remove what is left of the scratch copies and the runner's folder. Removals
   * wait for nothing else; when the file system does not answer, what is left
   * stays in the run folder, which goes when the runtime closes or the process exits.
   */
  private async cleanUp(runnerTmp: string): Promise<void> {
    const cleanup = (async () => {
      await this.steps.drained();
      for (const run of this.scratch.held()) await this.scratch.release(run);
      await rm(runnerTmp, { recursive: true, force: true });
    })();
    const broken = this.broken();
    await within(cleanup, broken ? this.stepMs : Number.POSITIVE_INFINITY, 'removing the scratch folders').catch(
      (e: unknown) => {
        if (!broken) throw e;
      },
    );
  }

  /** A run the runner keeps dying on without ever starting it fails rather than loops. */
  private outcome(): DriverOutcome {
    if (this.failure !== undefined) return { back: [], failure: this.failure };
    const { again, givenUp } = splitRestarted(this.back);
    const words = this.proc!.stderrTail.trim().split('\n').slice(-3).join(' | ') || 'no message';
    for (const p of givenUp) {
      this.finish(
        p.run,
        failedResult(
          this.ctx.runOf(p.run).id,
          `the runner process ended ${MAX_RESTARTS + 1} times before this notebook could start: ${words}`,
        ),
      );
    }
    return { back: again };
  }
}

export function failedResult(id: string, reason: string): RunResult {
  return { id, status: 'failed', reason, cells: [], durationMs: 0 };
}
