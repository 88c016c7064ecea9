import { rm } from 'node:fs/promises';
import type Docker from 'dockerode';
import type { RunResult } from '@junobench/core';
import { launchContainer, type ContainerOutcome, type LaunchedContainer } from './container-exec.js';
import { interpretContainerRun, planContainerRun, type ContainerRunSettings } from './container-sandbox.js';
import { createMessageKey } from './parse-runner-message.js';
import type { NotebookRun, RunOptions } from './runtime.js';
import { stageInstance } from './stage-instance.js';

/** What a batch uses of its runtime. */
export interface BatchContext {
  docker: Docker;
  settings: ContainerRunSettings;
  /** Where the staged views of the instances go. */
  stagingDir(): string;
  /** The next notebook uid. */
  nextUid(): number;
  /** Containers alive: the runtime's close removes them. */
  live: Set<string>;
  /** Aborted when the runtime closes. */
  closing: AbortSignal;
}

/**
 * One run() of the container runtime: `jobs` loops, each running one
 * container at a time while the next notebook's container starts (copy,
 * kernel, imports) and waits for "go". An engine failure in one run stops the
 * others (their containers are killed) before it is thrown; every container is
 * awaited to its removal before the batch ends, used or not.
 */
export class ContainerBatch {
  private readonly results: RunResult[];
  private readonly failure = new AbortController();
  private readonly signal: AbortSignal;
  private error: unknown;
  private next = 0;
  private readonly outcomes: Promise<unknown>[] = [];
  private readonly mine = new Set<string>();
  /** Each container's runner signs its messages with a key of its own. */
  private readonly keys = new Map<number, Buffer>();

  constructor(
    private readonly ctx: BatchContext,
    private readonly runs: readonly NotebookRun[],
    private readonly opts: RunOptions,
  ) {
    this.results = new Array(runs.length);
    this.signal = AbortSignal.any([ctx.closing, this.failure.signal, ...(opts.signal ? [opts.signal] : [])]);
  }

  /** Results in the order of the runs; throws the first engine failure once every container is gone. */
  async run(jobs: number): Promise<RunResult[]> {
    await Promise.all(Array.from({ length: jobs }, () => this.loop()));
    await Promise.all(this.outcomes);
    for (const id of this.mine) this.ctx.live.delete(id);
    if (this.error !== undefined) throw this.error;
    return this.results;
  }

  private async loop(): Promise<void> {
    let ahead: { i: number; container: Promise<LaunchedContainer> } | undefined;
    for (;;) {
      let current = ahead;
      ahead = undefined;
      if (!current) {
        const i = this.next++;
        if (i >= this.runs.length) return;
        if (this.signal.aborted) {
          this.finish(i, this.cancelled(i));
          continue;
        }
        current = { i, container: this.launch(i) };
      }
      // The next notebook's container starts (copy, kernel, imports) while this one runs.
      if (this.next < this.runs.length && !this.signal.aborted) {
        const j = this.next++;
        ahead = { i: j, container: this.launch(j) };
      }
      try {
        const c = await current.container;
        c.go();
        // On as soon as the result is known; the removal finishes in the background (awaited before run() returns).
        const outcome: ContainerOutcome = await c.exited;
        const { settings } = this.ctx;
        this.finish(
          current.i,
          interpretContainerRun(this.runs[current.i]!, outcome, settings, this.keys.get(current.i)!),
        );
      } catch (e) {
        this.error ??= e;
        this.failure.abort();
        if (ahead) this.finish(ahead.i, this.cancelled(ahead.i));
        return;
      }
    }
  }

  private launch(i: number): Promise<LaunchedContainer> {
    const key = createMessageKey();
    this.keys.set(i, key);
    const onContainer = (id: string) => {
      this.ctx.live.add(id);
      this.mine.add(id);
    };
    // The container mounts a staged view of the instance: its host path is nobody's business inside.
    const staged = stageInstance(this.runs[i]!.instanceDir, this.ctx.stagingDir());
    const p = staged.then((instanceDir) => {
      const { spec } = planContainerRun({ ...this.runs[i]!, instanceDir }, this.ctx.settings, key, this.ctx.nextUid());
      return launchContainer(this.ctx.docker, spec, { signal: this.signal, onContainer });
    });
    // Every container is awaited to its removal before run() returns, used or not; then its staged view goes.
    this.outcomes.push(
      p
        .then((c) => c.done)
        .catch(() => undefined)
        .finally(() => staged.then((d) => rm(d, { recursive: true, force: true })).catch(() => undefined)),
    );
    return p;
  }

  private finish(i: number, result: RunResult): void {
    this.results[i] = result;
    this.opts.onResult?.(result, this.runs[i]!);
  }

  private cancelled(i: number): RunResult {
    return { id: this.runs[i]!.id, status: 'failed', reason: 'cancelled', cells: [], durationMs: 0 };
  }
}
