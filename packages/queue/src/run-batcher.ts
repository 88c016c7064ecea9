import type { RunResult } from '@junobench/core';
import type { NotebookRun, RunStream, Runtime } from '@junobench/runtime';

/**
 * Runs submitted one at a time (one per queue job). A runtime that takes runs
 * as they arrive (`runtime.stream`, the local runtime) gets each one at once,
 * on one long-lived stream: its runner, zygotes and started-ahead kernels
 * serve every job of the worker. Other runtimes get them in batches: the
 * runs waiting when an execution slot is free go into one `runtime.run`
 * call. For the local runtime a batch is one runner process whose kernel
 * zygotes and look-ahead serve all its runs, instead of one process per job.
 * A worker holds about twice as many jobs as it runs at once (see runWorker),
 * so batches usually hold several runs. Batches overlap, but never use more
 * than `jobs` execution slots together.
 */
export interface RunBatcher {
  submit(run: NotebookRun): Promise<RunResult>;
  /** Runs submitted and not yet answered. */
  readonly size: number;
  /** Batches started so far, or the stream's runner processes (for the worker's statistics and tests). */
  readonly batches: number;
}

interface Batch {
  remaining: number;
  jobs: number;
}

interface BatcherOptions {
  jobs: number;
  /** Aborting cancels the runs not answered yet (and, on a stream, those to come). */
  signal?: AbortSignal;
  /** How long a small batch waits for more runs (default 200 ms). */ gatherMs?: number;
}

export function createRunBatcher(runtime: Runtime, options: BatcherOptions): RunBatcher {
  return runtime.stream ? streamRuns(runtime, options) : batchRuns(runtime, options);
}

/** Every run straight to one stream, opened at the first run. */
function streamRuns(runtime: Runtime, options: BatcherOptions): RunBatcher {
  let stream: RunStream | undefined;
  let pending = 0;
  return {
    async submit(run) {
      stream ??= runtime.stream!({
        jobs: Math.max(1, options.jobs),
        ...(options.signal ? { signal: options.signal } : {}),
      });
      pending++;
      try {
        return await stream.submit(run);
      } finally {
        pending--;
      }
    },
    get size() {
      return pending;
    },
    get batches() {
      return stream?.runners ?? 0;
    },
  };
}

function batchRuns(runtime: Runtime, options: BatcherOptions): RunBatcher {
  interface Entry {
    run: NotebookRun;
    resolve: (r: RunResult) => void;
    reject: (e: unknown) => void;
  }
  const jobs = Math.max(1, options.jobs);
  let waiting: Entry[] = [];
  const active = new Set<Batch>();
  let pending = 0;
  let batches = 0;
  let scheduled = false;
  let gathering: NodeJS.Timeout | undefined;
  const gatherMs = options.gatherMs ?? 200;

  const occupied = (): number => [...active].reduce((n, b) => n + Math.min(b.remaining, b.jobs), 0);

  const pump = (force = false): void => {
    scheduled = false;
    const free = jobs - occupied();
    if (waiting.length === 0 || free <= 0) return;
    // A batch of one run would start a runner for one notebook: give the jobs
    // the worker is fetching a moment to arrive (the runner's start costs far more).
    if (!force && waiting.length < 2 * free && !options.signal?.aborted) {
      gathering ??= setTimeout(() => {
        gathering = undefined;
        pump(true);
      }, gatherMs);
      return;
    }
    clearTimeout(gathering);
    gathering = undefined;
    const entries = waiting;
    waiting = [];
    const batch: Batch = { remaining: entries.length, jobs: Math.min(free, entries.length) };
    active.add(batch);
    batches++;
    const runs = entries.map((e) => e.run);
    const index = new Map(runs.map((r, i) => [r, i]));
    const answered = new Set<number>();
    const answer = (i: number | undefined, fn: (e: Entry) => void) => {
      // A run this batch does not hold (a runtime reporting another object) is not
      // answered here: the batch's settled promise answers each of its own runs.
      if (i === undefined || answered.has(i)) return;
      answered.add(i);
      batch.remaining--;
      pending--;
      fn(entries[i]!);
    };
    // A runtime that throws instead of rejecting (e.g. its scratch folder cannot be
    // made) is a rejection too: its runs are answered, the batch's slots freed.
    Promise.resolve()
      .then(() =>
        runtime.run(runs, {
          jobs: batch.jobs,
          ...(options.signal ? { signal: options.signal } : {}),
          onResult: (result, run) => {
            answer(index.get(run), (e) => e.resolve(result));
            // A slot of this batch is free: runs that arrived meanwhile may start.
            schedule();
          },
        }),
      )
      .then(
        (results) => {
          for (const i of runs.keys()) {
            const r = results[i];
            answer(i, (e) =>
              r ? e.resolve(r) : e.reject(new Error(`the runtime returned no result for run ${runs[i]!.id}`)),
            );
          }
        },
        (error: unknown) => {
          for (const i of runs.keys()) answer(i, (e) => e.reject(error));
        },
      )
      .finally(() => {
        active.delete(batch);
        schedule();
      });
  };

  const schedule = (): void => {
    if (scheduled) return;
    scheduled = true;
    // Runs that arrive together (a worker fetching several jobs) join one batch.
    setImmediate(() => pump());
  };

  return {
    submit(run) {
      return new Promise<RunResult>((resolve, reject) => {
        waiting.push({ run, resolve, reject });
        pending++;
        schedule();
      });
    },
    get size() {
      return pending;
    },
    get batches() {
      return batches;
    },
  };
}
