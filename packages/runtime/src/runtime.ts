import type { RunProbe, RunResult, RuntimeIdentity } from '@junobench/core';

/**
 * One notebook execution asked of a runtime. Paths are host paths; each
 * runtime decides how the notebook sees them (the local runtime copies the
 * instance folder to a scratch folder; the container runtime mounts it
 * read-only and copies it to a writable scratch folder inside the container).
 * Either way the notebook runs with (a copy of) the instance folder as its
 * working directory and can never change the instance itself.
 */
export interface NotebookRun {
  /** Echoed as RunResult.id. */
  id: string;
  /** The instance folder (notebooks, data/). */
  instanceDir: string;
  /** Notebook path relative to instanceDir, e.g. `reproduced.ipynb`. */
  notebook: string;
  /** Code-cell indices in execution order (a repeated index is a re-execution). */
  cells: number[];
  cellTimeoutSeconds: number;
  timeoutSeconds: number;
  /** Modules imported silently into the fresh kernel before the first cell. */
  prewarm?: string[];
  /**
   * Code of the run's owner executed silently in the notebook's kernel: `setup` before the first cell, `finish` after
   * the last (when every cell ran); what each printed comes back in RunResult.probe (schemas/run-plan.schema.json).
   */
  probe?: RunProbe;
}

export interface RunOptions {
  /** How many notebooks run at once. */
  jobs?: number;
  /** Called as each run finishes (in completion order). */
  onResult?: (result: RunResult, run: NotebookRun) => void;
  signal?: AbortSignal;
}

export interface StreamOptions {
  /** How many notebooks run at once. */
  jobs?: number;
  /** Aborting cancels every run of the stream, those to come included. */
  signal?: AbortSignal;
  /**
   * Seconds the stream's runner may wait with nothing to do before it ends, releasing its zygotes' memory (default
   * 300); the next run starts a new one.
   */
  idleSeconds?: number;
}

/**
 * Runs given one at a time as they arrive (a queue worker's jobs), executed
 * by one long-lived runner: no runner start, interpreter or zygote import per
 * run or per batch.
 */
export interface RunStream {
  /** Execute one run; resolves with its result (timeouts, crashes, a cancel: results, never rejections). */
  submit(run: NotebookRun): Promise<RunResult>;
  /** No more runs: resolves once every run submitted has its result and the runner is gone. */
  end(): Promise<void>;
  /** Runner processes started so far (one while all goes well). */
  readonly runners: number;
}

/** A place where notebooks execute in fresh Jupyter kernels: local Python or a container image. */
export interface Runtime {
  readonly kind: 'local' | 'docker';
  /**
   * Notebooks run isolated from the machine: in a container, or in the local
   * runtime's bubblewrap sandbox. Unset: the runtime cannot tell (the queue's
   * workers decide), and a docker kind is taken as sandboxed.
   */
  readonly sandboxed?: boolean;
  /**
   * Interpreter/image identity and the version of each module (null when it
   * cannot be imported there). Results are cached per identity.
   */
  describe(modules: readonly string[]): Promise<RuntimeIdentity>;
  /**
   * A cheap identity of the whole environment (interpreter and every installed
   * package, or the image id) without importing anything: a build skips
   * re-verification only while this is unchanged.
   */
  fingerprint(): Promise<string>;
  /** Execute the runs; results come back in the order of `runs`. Never hangs: timeouts are results. */
  run(runs: readonly NotebookRun[], options?: RunOptions): Promise<RunResult[]>;
  /** Runs as they arrive, through one long-lived runner, where the runtime has one (the local runtime). */
  stream?(options?: StreamOptions): RunStream;
  /** Release kernels, processes or containers held between calls. */
  close(): Promise<void>;
}
