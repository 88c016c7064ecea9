import { createInterface } from 'node:readline';
import { execa, type ResultPromise } from 'execa';
import type { RunPlan } from '@junobench/core';
import { createMessageKey } from './parse-runner-message.js';
import type { RunnerCommand } from './runner-command.js';

/** How long the reaper may take to kill a runner and its processes (on SIGTERM) before it is SIGKILLed itself. */
const FORCE_KILL_MS = 15_000;
/** How long a runner killed (or ended) may take to close its output before it is given up on. */
const END_WAIT_MS = 10_000;

/** What a RunnerDriver needs of its runner, wherever it runs (a process here, a slot container: container-slots.ts). */
export interface RunnerChannel {
  /** The key the runner signs its messages with. */
  readonly key: Buffer;
  onLine(handler: (line: string) => void): void;
  readonly stderrTail: string;
  readonly killed: boolean;
  send(plan: RunPlan): void;
  endInput(): void;
  kill(reason: string): void;
  waitForEnd(): Promise<void>;
  dispose(): void;
}

/** A runner alive, as the runtime's close sees it: killed, then awaited. */
export interface LiveRunner extends PromiseLike<unknown> {
  kill(signal?: NodeJS.Signals): unknown;
}

/**
 * One runner process (`junobench_runner.py serve`, through the reaper, in the
 * sandbox when there is one): its stdin takes the message key and then one
 * plan per line, its stdout gives signed message lines, its stderr's tail
 * says why it ended. Only I/O: what the lines mean is the tracker's business.
 */
export class RunnerProcess implements RunnerChannel {
  /** The key the runner signs its messages with: its stdin's first line, where no kernel can read it. */
  readonly key = createMessageKey();
  private stderr = '';
  private killedFor: string | undefined;
  private inputEnded = false;
  private readonly stoppedOrKilled: Promise<void>;
  private stopped!: () => void;
  private readonly outputClosed: Promise<void>;
  private readonly lines: ReturnType<typeof createInterface>;

  private constructor(
    private readonly proc: ResultPromise,
    private readonly live: Set<LiveRunner>,
  ) {
    this.stoppedOrKilled = new Promise<void>((r) => (this.stopped = r));
    proc.once('exit', () => this.stopped());
    proc.stderr?.on('data', (d: Buffer) => {
      this.stderr = (this.stderr + d.toString()).slice(-4000);
    });
    // Writing to a runner that has just died fails: its exit says what happened.
    proc.stdin?.on('error', () => undefined);
    this.lines = createInterface({ input: proc.stdout! });
    this.outputClosed = new Promise((r) => this.lines.once('close', r));
    proc.stdin?.write(`${this.key.toString('hex')}\n`);
  }

  /** Start the runner; `live` holds it until it is disposed (the runtime's close kills what is there). */
  static start(command: RunnerCommand, env: NodeJS.ProcessEnv, live: Set<LiveRunner>): RunnerProcess {
    // Through the reaper (junobench_reaper.py): what the notebooks detach from their kernels
    // (a new session, a double fork) is killed when the runner ends, however it ends. It is
    // stopped with SIGTERM (it then SIGKILLs the runner and everything below it); SIGKILL
    // follows if it has not gone within FORCE_KILL_MS.
    const proc = execa(command.file, command.args, {
      env: { ...env, PYTHONUNBUFFERED: '1' },
      extendEnv: false,
      stdio: ['pipe', 'pipe', 'pipe', ...(command.fd3 ? [command.fd3] : [])],
      buffer: false,
      reject: false,
      cleanup: true,
      forceKillAfterDelay: FORCE_KILL_MS,
    });
    live.add(proc);
    return new RunnerProcess(proc, live);
  }

  /** Every line the runner prints on its message channel. */
  onLine(handler: (line: string) => void): void {
    this.lines.on('line', handler);
  }

  /** The last few kilobytes of its stderr, with why it was killed if it was. */
  get stderrTail(): string {
    return this.stderr;
  }

  get killed(): boolean {
    return this.killedFor !== undefined;
  }

  send(plan: RunPlan): void {
    this.proc.stdin?.write(`${JSON.stringify(plan)}\n`);
  }

  /** No more plans: the runner finishes those it has, then exits. */
  endInput(): void {
    if (this.inputEnded) return;
    this.inputEnded = true;
    this.proc.stdin?.end();
  }

  kill(reason: string): void {
    if (this.killedFor !== undefined) return;
    this.killedFor = reason;
    this.stderr += `\n[junobench] ${reason}; runner killed`;
    this.proc.kill('SIGTERM');
    this.stopped();
  }

  /**
   * Until the runner has ended and closed its output. A process it left
   * behind may hold its output open, and a killed one may not go at all: after
   * END_WAIT_MS it is given up on. A killed runner's reaper may still be
   * killing what the notebooks left: the wait covers it (bounded, since execa
   * SIGKILLs the reaper FORCE_KILL_MS after the SIGTERM).
   */
  async waitForEnd(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const after = (ms: number) => new Promise<void>((r) => (timer = setTimeout(r, ms)));
    try {
      await Promise.race([
        Promise.all([this.proc, this.outputClosed]),
        this.stoppedOrKilled.then(() => after(END_WAIT_MS)),
      ]);
      clearTimeout(timer);
      if (this.killed) await Promise.race([this.proc, after(FORCE_KILL_MS + END_WAIT_MS)]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Stop reading it and forget it (it has ended, or been given up on). */
  dispose(): void {
    this.live.delete(this.proc);
    this.proc.stdout?.destroy();
    this.proc.stderr?.destroy();
  }
}
