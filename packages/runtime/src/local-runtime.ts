import { mkdtemp, rm } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import os from 'node:os';
import path from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { JunoError, copyInstanceTree, type RunPlan, type RunResult, type RuntimeIdentity } from '@junobench/core';
import type { NotebookRun, RunOptions, Runtime } from './runtime.js';
import { RUNNER_PATH } from './runner-path.js';
import { execaRunner, findPython, type CommandRunner } from './find-python.js';
import { parseRunnerMessage } from './parse-runner-message.js';
import { createRunFolder, sweepStaleRunFolders, type RunFolder } from './run-folder.js';
import { RunnerTracker, type TrackerOutcome } from './runner-tracker.js';

export interface LocalRuntimeOptions {
  /** Interpreter with ipykernel; else $JUNOBENCH_PYTHON, else found automatically. */
  python?: string;
  env?: NodeJS.ProcessEnv;
  /** Command runner for the interpreter checks and probes (tests inject fakes). */
  run?: CommandRunner;
  /** Seconds a kernel may take to start (and import prewarm modules). */
  startupTimeoutSeconds?: number;
  /** Where the run's temporary folder (scratch copies, connection files, zygotes) goes; default the OS temp folder. */
  scratchRoot?: string;
  /**
   * Fork kernels from a zygote process that has the kernel stack and the
   * instance's required modules imported (default), instead of starting a
   * new interpreter per notebook. Each notebook still gets its own fresh
   * kernel process, with the process settings and seeds of a launched one.
   */
  fork?: boolean;
  /**
   * Threads per kernel for the OpenMP/BLAS/torch pools (default 1): parallel
   * kernels then do not oversubscribe the cores, and results do not depend
   * on --jobs. Part of the runtime identity.
   */
  threads?: number;
}

/** Plans kept in flight per job: one executing, one whose kernel starts meanwhile. */
const IN_FLIGHT_PER_JOB = 2;
/** Extra seconds, beyond a plan's own limits, before a runner is declared hung. */
const WATCHDOG_GRACE_SECONDS = 60;

/**
 * The local runtime: notebooks run in fresh kernels of a local interpreter,
 * through one long-lived runner process (`junobench_runner.py serve --jobs N`)
 * executing up to `jobs` notebooks at once. Each of its workers starts the
 * next plan's kernel while the current one executes, which hides kernel
 * start-up without ever sharing a kernel, and forks kernels from a "zygote"
 * that has imported the kernel stack and the required modules once, so a
 * kernel costs a fork rather than an interpreter start. Each notebook runs in
 * a scratch copy of its instance folder, so it cannot change the instance.
 */
export async function createLocalRuntime(options: LocalRuntimeOptions = {}): Promise<Runtime> {
  const env = options.env ?? process.env;
  const commandRunner = options.run ?? execaRunner;
  const python = await findPython({ ...(options.python ? { explicit: options.python } : {}), env, run: commandRunner });
  const threads = options.threads ?? 1;
  if (!Number.isInteger(threads) || threads < 1) {
    throw new JunoError('E_USAGE', `invalid number of threads per kernel: ${threads}`, { hint: 'give a whole number ≥ 1, e.g. --threads 1' });
  }
  const settings: RunnerSettings = {
    python,
    env,
    startupSeconds: options.startupTimeoutSeconds ?? 60,
    fork: options.fork !== false,
    threads,
    scratchRoot: options.scratchRoot ?? os.tmpdir(),
  };
  const probes = new Map<string, Promise<RuntimeIdentity>>();
  const live = new Set<ResultPromise>();
  let folder: RunFolder | undefined;
  const runFolder = (): RunFolder => {
    if (!folder) {
      // Whatever a killed earlier run left (scratch copies, signing keys, zygote sockets) goes first.
      sweepStaleRunFolders(settings.scratchRoot);
      folder = createRunFolder(settings.scratchRoot);
    }
    return folder;
  };

  const describe = (modules: readonly string[]): Promise<RuntimeIdentity> => {
    const key = [...new Set(modules)].sort().join(',');
    let p = probes.get(key);
    if (!p) {
      p = probeRuntime(python, key ? key.split(',') : [], commandRunner).then((id) => ({
        ...id,
        kernelStart: settings.fork ? 'fork' : 'launch',
        threads: settings.threads,
      }));
      probes.set(key, p);
    }
    return p;
  };

  const run = (runs: readonly NotebookRun[], opts: RunOptions = {}): Promise<RunResult[]> =>
    runAll(runs, opts, settings, runFolder().dir, live);

  let fingerprintPromise: Promise<string> | undefined;
  const fingerprint = (): Promise<string> => {
    fingerprintPromise ??= (async () => {
      const r = await commandRunner(python, [RUNNER_PATH, 'fingerprint'], { timeoutMs: 60_000 });
      if (r.exitCode !== 0) throw new JunoError('E_ENV_PYTHON', `cannot list the packages of ${python}: ${r.stderr.trim().split('\n').pop() ?? ''}`);
      return `local:${r.stdout.trim()}:${settings.fork ? 'fork' : 'launch'}:threads=${settings.threads}`;
    })();
    return fingerprintPromise;
  };

  return {
    kind: 'local',
    describe,
    fingerprint,
    run,
    async close() {
      for (const p of live) p.kill('SIGKILL');
      await Promise.allSettled([...live]);
      live.clear();
      folder?.remove();
      folder = undefined;
    },
  };
}

interface RunnerSettings {
  python: string;
  env: NodeJS.ProcessEnv;
  startupSeconds: number;
  fork: boolean;
  threads: number;
  scratchRoot: string;
}

interface Pending {
  run: number;
  suspicions: number;
  /** Runner deaths this run survived without having started: bounded, so a runner that cannot start ends the run. */
  restarts: number;
}

const MAX_RESTARTS = 3;

/**
 * Every run through runner processes: one for all jobs while all goes well;
 * when a runner dies with several notebooks executing, the suspects are run
 * one at a time in a runner of their own, so the one that kills it is blamed
 * and the others are not.
 */
async function runAll(
  runs: readonly NotebookRun[],
  opts: RunOptions,
  settings: RunnerSettings,
  tmpDir: string,
  live: Set<ResultPromise>,
): Promise<RunResult[]> {
  const results: RunResult[] = new Array(runs.length);
  if (runs.length === 0) return results;
  const jobs = Math.max(1, Math.min(opts.jobs ?? 1, runs.length));
  let pending: Pending[] = runs.map((_, run) => ({ run, suspicions: 0, restarts: 0 }));
  const finish = (run: number, r: RunResult) => {
    results[run] = r;
    opts.onResult?.(r, runs[run]!);
  };
  while (pending.length > 0) {
    if (opts.signal?.aborted) {
      for (const p of pending.splice(0)) finish(p.run, failedResult(runs[p.run]!.id, 'cancelled'));
      break;
    }
    const suspects = pending.filter((p) => p.suspicions > 0);
    const batch = suspects.length > 0 ? suspects : pending;
    pending = pending.filter((p) => !batch.includes(p));
    const back = await runOneRunner(batch, suspects.length > 0 ? 1 : jobs, { runs, opts, settings, tmpDir, live, finish });
    pending = [...back, ...pending];
  }
  return results;
}

interface RunnerContext {
  runs: readonly NotebookRun[];
  opts: RunOptions;
  settings: RunnerSettings;
  tmpDir: string;
  live: Set<ResultPromise>;
  finish: (run: number, r: RunResult) => void;
}

/** One runner process over `queue`; returns the runs it gave back (to run again). */
async function runOneRunner(queue: Pending[], jobs: number, ctx: RunnerContext): Promise<Pending[]> {
  const { runs, opts, settings } = ctx;
  const byRun = new Map(queue.map((p) => [p.run, p]));
  const waiting = [...queue];
  const back: Pending[] = [];
  const scratch = new Map<number, string>();
  const runnerTmp = await mkdtemp(path.join(ctx.tmpDir, 'runner-'));
  const proc = execa(
    settings.python,
    [RUNNER_PATH, 'serve', '--jobs', String(jobs), '--threads', String(settings.threads), '--tmp', runnerTmp, ...(settings.fork ? [] : ['--no-fork'])],
    { env: { ...settings.env, PYTHONUNBUFFERED: '1' }, extendEnv: false, stdin: 'pipe', stdout: 'pipe', stderr: 'pipe', buffer: false, reject: false, cleanup: true },
  );
  ctx.live.add(proc);
  let stderrTail = '';
  proc.stderr?.on('data', (d: Buffer) => {
    stderrTail = (stderrTail + d.toString()).slice(-4000);
  });
  const tracker = new RunnerTracker({ startupSeconds: settings.startupSeconds, graceSeconds: WATCHDOG_GRACE_SECONDS }, Date.now());
  let closed = false;

  const release = async (run: number) => {
    const dir = scratch.get(run);
    scratch.delete(run);
    if (dir) await rm(dir, { recursive: true, force: true });
  };
  const apply = async (outcomes: TrackerOutcome[]) => {
    for (const o of outcomes) {
      if (o.kind === 'kill') {
        stderrTail += `\n[junobench] ${o.reason}; runner killed`;
        proc.kill('SIGKILL');
      } else if (o.kind === 'finished') {
        await release(o.run);
        ctx.finish(o.run, o.result);
      } else {
        await release(o.run);
        const p = byRun.get(o.run)!;
        back.push(o.suspect ? { ...p, suspicions: p.suspicions + 1 } : { ...p, restarts: p.restarts + 1 });
      }
    }
  };

  const feed = async (): Promise<void> => {
    while (!closed && tracker.inFlight < IN_FLIGHT_PER_JOB * jobs && waiting.length > 0) {
      const { run } = waiting.shift()!;
      const r = runs[run]!;
      const dir = await mkdtemp(path.join(ctx.tmpDir, 'scratch-'));
      try {
        // Links are materialised (never followed back into the instance): a notebook
        // writing its copy cannot change the instance or anything outside it.
        await copyInstanceTree(r.instanceDir, dir);
      } catch (e) {
        await rm(dir, { recursive: true, force: true });
        ctx.finish(run, failedResult(r.id, `cannot copy ${r.instanceDir} to a scratch folder: ${(e as Error).message}`));
        continue;
      }
      scratch.set(run, dir);
      const plan: RunPlan = {
        id: String(run),
        notebook: path.join(dir, r.notebook),
        cells: r.cells,
        cwd: dir,
        cellTimeoutSeconds: r.cellTimeoutSeconds,
        timeoutSeconds: r.timeoutSeconds,
        startupTimeoutSeconds: settings.startupSeconds,
        ...(r.prewarm && r.prewarm.length > 0 ? { prewarm: r.prewarm } : {}),
      };
      tracker.sent({ run, id: r.id, timeoutSeconds: r.timeoutSeconds, suspicions: byRun.get(run)!.suspicions }, Date.now());
      proc.stdin?.write(`${JSON.stringify(plan)}\n`);
    }
    if (!closed && tracker.inFlight === 0 && waiting.length === 0) {
      closed = true;
      proc.stdin?.end();
    }
  };

  // Messages are handled one at a time, in order: a result's scratch folder
  // is gone before the next plan is fed.
  let chain = Promise.resolve();
  const rl = createInterface({ input: proc.stdout! });
  rl.on('line', (line) => {
    const message = parseRunnerMessage(line);
    if (!message) return; // not a message (a library printing to the runner's stdout)
    chain = chain.then(async () => {
      await apply(tracker.message(message, Date.now()));
      await feed();
    });
  });
  const watchdog = setInterval(() => {
    chain = chain.then(() => apply(tracker.tick(Date.now())));
  }, 1000);
  const onAbort = () => proc.kill('SIGKILL');
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    chain = chain.then(feed);
    await Promise.all([proc, new Promise((r) => rl.once('close', r))]);
    clearInterval(watchdog);
    await chain;
    await apply(tracker.exited({ stderrTail, cancelled: Boolean(opts.signal?.aborted) }));
    // Never sent (the runner ended first): back to the queue, no blame.
    for (const p of waiting) back.push(p);
  } finally {
    clearInterval(watchdog);
    opts.signal?.removeEventListener('abort', onAbort);
    ctx.live.delete(proc);
    for (const run of [...scratch.keys()]) await release(run);
    await rm(runnerTmp, { recursive: true, force: true });
  }
  // A run the runner keeps dying on without ever starting it fails rather than loops.
  return back.filter((p) => {
    if (p.restarts <= MAX_RESTARTS) return true;
    ctx.finish(p.run, failedResult(runs[p.run]!.id, `the runner process ended ${MAX_RESTARTS + 1} times before this notebook could start: ${stderrTail.trim().split('\n').slice(-3).join(' | ') || 'no message'}`));
    return false;
  });
}

function failedResult(id: string, reason: string): RunResult {
  return { id, status: 'failed', reason, cells: [], durationMs: 0 };
}

async function probeRuntime(python: string, modules: string[], run: CommandRunner): Promise<RuntimeIdentity> {
  const r = await run(python, [RUNNER_PATH, 'probe', ...modules], { timeoutMs: 300_000 });
  if (r.exitCode !== 0) {
    throw new JunoError('E_ENV_PYTHON', `probing ${python} failed: ${r.stderr.trim().split('\n').pop() ?? 'no message'}`, {
      hint: 'check that the interpreter runs: `' + python + ' -c "import ipykernel"`',
    });
  }
  const info = JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as {
    executable?: string;
    version?: string;
    packages?: Record<string, string | null>;
  };
  return {
    kind: 'local',
    python: info.executable ?? python,
    ...(info.version ? { pythonVersion: info.version } : {}),
    packages: info.packages ?? {},
  };
}
