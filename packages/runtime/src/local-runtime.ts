import { mkdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import os from 'node:os';
import path from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { JunoError, copyInstanceTree, type RunPlan, type RunResult, type RuntimeIdentity } from '@junobench/core';
import type { NotebookRun, RunOptions, Runtime } from './runtime.js';
import { RUNNER_DIR, RUNNER_PATH } from './runner-path.js';
import {
  SANDBOX_LAYOUT,
  findBubblewrap,
  insideRunFolder,
  planSandboxArgs,
  readHostLayout,
  readPythonFolders,
  type HostLayout,
} from './local-sandbox.js';
import { formatBpfProgram, planLocalSeccompProgram } from './local-seccomp.js';
import { execaRunner, findPython, type CommandRunner } from './find-python.js';
import { createMessageKey, parseRunnerMessage } from './parse-runner-message.js';
import { createRunFolder, sweepStaleRunFolders, type RunFolder } from './run-folder.js';
import { RunnerTracker, type TrackerOutcome } from './runner-tracker.js';
import { omitSecretVariables } from './omit-secret-variables.js';

export interface LocalRuntimeOptions {
  /** Interpreter with ipykernel; else $JUNOBENCH_PYTHON, else found automatically. */
  python?: string;
  env?: NodeJS.ProcessEnv;
  /** Command runner for the interpreter checks and probes (tests inject fakes). */
  run?: CommandRunner;
  /** Seconds a kernel may take to start (and import prewarm modules). */
  startupTimeoutSeconds?: number;
  /**
   * Seconds, beyond a plan's own limits, before the runner is declared hung
   * and killed (default 60). Also bounds the runtime's own file operations.
   */
  watchdogGraceSeconds?: number;
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
  /**
   * Run the runner and every kernel in the bubblewrap sandbox (default; see
   * local-sandbox.ts). Where it cannot start, createLocalRuntime fails with
   * E_ENV_SANDBOX rather than run notebooks with the user's rights; `false`
   * (the CLI's --unsandboxed) runs them unsandboxed.
   */
  sandbox?: boolean;
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
    throw new JunoError('E_USAGE', `invalid number of threads per kernel: ${threads}`, {
      hint: 'give a whole number ≥ 1, e.g. --threads 1',
    });
  }
  const sandbox = options.sandbox === false ? undefined : await prepareSandbox(python, env, commandRunner);
  const settings: RunnerSettings = {
    python,
    ...(sandbox ? { sandbox } : {}),
    // The runner's environment is every kernel's: credentials the toolchain
    // holds (GITHUB_TOKEN, KAGGLE_KEY…) are not the notebook's to read.
    env: omitSecretVariables(env).env,
    startupSeconds: options.startupTimeoutSeconds ?? 60,
    graceSeconds: options.watchdogGraceSeconds ?? WATCHDOG_GRACE_SECONDS,
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
      // What the sandbox sees of the run folder (its owner file stays outside).
      for (const dir of ['box', 'box/home', 'box/tmp']) mkdirSync(path.join(folder.dir, dir), { mode: 0o700 });
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

  // async: a run folder that cannot be made is a rejection, never a throw at the caller.
  const run = async (runs: readonly NotebookRun[], opts: RunOptions = {}): Promise<RunResult[]> =>
    runAll(runs, opts, settings, path.join(runFolder().dir, 'box'), live);

  let fingerprintPromise: Promise<string> | undefined;
  const fingerprint = (): Promise<string> => {
    fingerprintPromise ??= (async () => {
      const r = await commandRunner(python, [RUNNER_PATH, 'fingerprint'], { timeoutMs: 60_000 });
      if (r.exitCode !== 0)
        throw new JunoError(
          'E_ENV_PYTHON',
          `cannot list the packages of ${python}: ${r.stderr.trim().split('\n').pop() ?? ''}`,
        );
      return `local:${r.stdout.trim()}:${settings.fork ? 'fork' : 'launch'}:threads=${settings.threads}`;
    })();
    return fingerprintPromise;
  };

  return {
    kind: 'local',
    sandboxed: sandbox !== undefined,
    describe,
    fingerprint,
    run,
    async close() {
      for (const p of live) p.kill('SIGTERM');
      await Promise.allSettled([...live]);
      live.clear();
      folder?.remove();
      folder = undefined;
    },
  };
}

interface RunnerSettings {
  python: string;
  /** Set: every runner and its kernels run in the bubblewrap sandbox. */
  sandbox?: PreparedSandbox;
  env: NodeJS.ProcessEnv;
  startupSeconds: number;
  graceSeconds: number;
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
/** How long the reaper may take to kill a runner and its processes (on SIGTERM) before it is SIGKILLed itself. */
const FORCE_KILL_MS = 15_000;
/** How long a runner killed (or ended) may take to close its output before it is given up on. */
const END_WAIT_MS = 10_000;

/** The caller's onResult threw: run() rejects with its error once the runner is gone. */
class CallerFailure {
  constructor(readonly error: unknown) {}
}

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
  let callerFailure: CallerFailure | undefined;
  const finish = (run: number, r: RunResult) => {
    if (results[run]) return;
    results[run] = r;
    // Once the caller failed, it is not called again: run() rejects with its first error.
    if (callerFailure) return;
    try {
      opts.onResult?.(r, runs[run]!);
    } catch (e) {
      callerFailure = new CallerFailure(e);
      throw callerFailure;
    }
  };
  try {
    while (pending.length > 0) {
      if (opts.signal?.aborted) {
        for (const p of pending.splice(0)) finish(p.run, failedResult(runs[p.run]!.id, 'cancelled'));
        break;
      }
      const suspects = pending.filter((p) => p.suspicions > 0);
      const batch = suspects.length > 0 ? suspects : pending;
      pending = pending.filter((p) => !batch.includes(p));
      const { back, failure } = await runOneRunner(batch, suspects.length > 0 ? 1 : jobs, {
        runs,
        opts,
        settings,
        tmpDir,
        live,
        finish,
      });
      if (callerFailure) break;
      if (failure !== undefined) {
        // What broke the runner (the scratch folder, a stuck file operation) would break the next one too.
        for (const p of [...back, ...pending]) finish(p.run, failedResult(runs[p.run]!.id, failure));
        break;
      }
      pending = [...back, ...pending];
    }
  } catch (e) {
    if (!(e instanceof CallerFailure)) throw e;
  }
  if (callerFailure) throw callerFailure.error;
  return results;
}

interface RunnerContext {
  runs: readonly NotebookRun[];
  opts: RunOptions;
  settings: RunnerSettings;
  tmpDir: string;
  live: Set<ResultPromise>;
  /** Throws a CallerFailure when the caller's onResult throws. */
  finish: (run: number, r: RunResult) => void;
}

/**
 * One runner process over `queue`. Returns the runs it gave back (to run
 * again) and, when the runtime itself could not go on (a scratch folder that
 * cannot be made, a file operation that never completes), why: every run of
 * `queue` is then finished, as failed with that reason if nothing else.
 *
 * It never hangs: the runner's messages are handled as they arrive, and the
 * watchdog ticks on its own timer, neither waiting for the file operations
 * (scratch copies and removals), which go one at a time on a chain of their
 * own. A failed operation stops the runner instead of silently stopping the
 * chain, and one that takes too long counts as failed.
 */
async function runOneRunner(
  queue: Pending[],
  jobs: number,
  ctx: RunnerContext,
): Promise<{ back: Pending[]; failure?: string }> {
  const { runs, opts, settings } = ctx;
  const stepMs = stepLimitSeconds(settings) * 1000;
  let failure: string | undefined;
  let runnerTmp: string;
  try {
    runnerTmp = await within(mkdtemp(path.join(ctx.tmpDir, 'runner-')), stepMs, "creating the runner's folder");
  } catch (e) {
    failure = `the local runtime could not go on: ${(e as Error).message}`;
    for (const p of queue) ctx.finish(p.run, failedResult(runs[p.run]!.id, failure));
    return { back: [], failure };
  }
  const byRun = new Map(queue.map((p) => [p.run, p]));
  const waiting = [...queue];
  const back: Pending[] = [];
  const scratch = new Map<number, string>();
  // Through the reaper (junobench_reaper.py): what the notebooks detach from their kernels
  // (a new session, a double fork) is killed when the runner ends, however it ends. It is
  // stopped with SIGTERM (it then SIGKILLs the runner and everything below it); SIGKILL
  // follows if it has not gone within FORCE_KILL_MS.
  const command = planRunnerCommand(settings, jobs, runnerTmp, ctx.tmpDir);
  const proc = execa(command.file, command.args, {
    env: { ...settings.env, PYTHONUNBUFFERED: '1' },
    extendEnv: false,
    stdio: ['pipe', 'pipe', 'pipe', ...(command.fd3 ? [command.fd3] : [])],
    buffer: false,
    reject: false,
    cleanup: true,
    forceKillAfterDelay: FORCE_KILL_MS,
  });
  ctx.live.add(proc);
  let stderrTail = '';
  proc.stderr?.on('data', (d: Buffer) => {
    stderrTail = (stderrTail + d.toString()).slice(-4000);
  });
  // Writing to a runner that has just died fails: its exit says what happened.
  proc.stdin?.on('error', () => undefined);
  // The runner signs its messages with this key, its stdin's first line: no
  // kernel can read it there (packages/runtime/README.md, "The runner protocol").
  const key = createMessageKey();
  proc.stdin?.write(`${key.toString('hex')}\n`);
  const tracker = new RunnerTracker(
    { startupSeconds: settings.startupSeconds, graceSeconds: settings.graceSeconds },
    Date.now(),
  );
  let closed = false;
  let over = false;

  let stopped!: () => void;
  const stoppedOrKilled = new Promise<void>((r) => (stopped = r));
  let killed = false;
  const kill = (reason: string) => {
    if (killed) return;
    killed = true;
    stderrTail += `\n[junobench] ${reason}; runner killed`;
    proc.kill('SIGTERM');
    stopped();
  };
  let failed!: () => void;
  const failedPromise = new Promise<void>((r) => (failed = r));
  let callerFailure: CallerFailure | undefined;
  const fail = (error: unknown) => {
    if (failure !== undefined || callerFailure) return;
    if (error instanceof CallerFailure) {
      callerFailure = error;
      kill('the caller of the run failed');
    } else {
      failure = `the local runtime could not go on: ${error instanceof Error ? error.message : String(error)}`;
      kill(failure);
    }
    failed();
  };
  const stopping = () => over || killed || failure !== undefined || callerFailure !== undefined;
  const finish = (run: number, result: RunResult) => {
    try {
      ctx.finish(run, result);
    } catch (e) {
      fail(e);
    }
  };

  // File operations, one at a time and in order: a result's scratch folder is
  // gone before the next plan is fed. The chain never rejects; `busy` is when
  // the current operation began, for the watchdog.
  let chain = Promise.resolve();
  let busy: { what: string; since: number } | undefined;
  const step = (fn: () => Promise<void>) => {
    chain = chain.then(async () => {
      if (failure !== undefined || callerFailure) return;
      try {
        await fn();
      } catch (e) {
        fail(e);
      } finally {
        busy = undefined;
      }
    });
  };
  const release = async (run: number) => {
    const dir = scratch.get(run);
    scratch.delete(run);
    busy = { what: `removing the scratch folder ${dir}`, since: Date.now() };
    if (dir) await rm(dir, { recursive: true, force: true });
  };
  const apply = (outcomes: TrackerOutcome[]) => {
    for (const o of outcomes) {
      if (o.kind === 'kill') {
        kill(o.reason);
      } else if (o.kind === 'finished') {
        finish(o.run, o.result);
        step(() => release(o.run));
      } else {
        const p = byRun.get(o.run)!;
        back.push(o.suspect ? { ...p, suspicions: p.suspicions + 1 } : { ...p, restarts: p.restarts + 1 });
        step(() => release(o.run));
      }
    }
  };

  const feed = async (): Promise<void> => {
    while (!closed && !stopping() && tracker.inFlight < IN_FLIGHT_PER_JOB * jobs && waiting.length > 0) {
      const p = waiting[0]!;
      const { run } = p;
      const r = runs[run]!;
      busy = { what: `copying ${r.instanceDir} to a scratch folder`, since: Date.now() };
      const dir = await mkdtemp(path.join(ctx.tmpDir, 'scratch-'));
      if (stopping()) {
        await rm(dir, { recursive: true, force: true });
        return;
      }
      // Taken off the queue only now: had mkdtemp failed, the run would still be there to fail with the reason.
      waiting.shift();
      try {
        // Links are materialised (never followed back into the instance): a notebook
        // writing its copy cannot change the instance or anything outside it.
        await copyInstanceTree(r.instanceDir, dir);
      } catch (e) {
        await rm(dir, { recursive: true, force: true });
        finish(run, failedResult(r.id, `cannot copy ${r.instanceDir} to a scratch folder: ${(e as Error).message}`));
        continue;
      }
      if (stopping()) {
        // The runner is gone or going: the run was not sent, it stays in the queue.
        waiting.unshift(p);
        await rm(dir, { recursive: true, force: true });
        return;
      }
      scratch.set(run, dir);
      const plan: RunPlan = {
        id: String(run),
        notebook: command.inside(path.join(dir, r.notebook)),
        cells: r.cells,
        cwd: command.inside(dir),
        cellTimeoutSeconds: r.cellTimeoutSeconds,
        timeoutSeconds: r.timeoutSeconds,
        startupTimeoutSeconds: settings.startupSeconds,
        ...(r.prewarm && r.prewarm.length > 0 ? { prewarm: r.prewarm } : {}),
        ...(r.probe ? { probe: r.probe } : {}),
      };
      tracker.sent(
        { run, id: r.id, timeoutSeconds: r.timeoutSeconds, suspicions: byRun.get(run)!.suspicions },
        Date.now(),
      );
      proc.stdin?.write(`${JSON.stringify(plan)}\n`);
    }
    if (!closed && !over && tracker.inFlight === 0 && waiting.length === 0) {
      closed = true;
      proc.stdin?.end();
    }
  };

  const rl = createInterface({ input: proc.stdout! });
  rl.on('line', (line) => {
    if (over) return;
    try {
      const message = parseRunnerMessage(line, key);
      if (!message) return; // not a message (a library printing to the runner's stdout)
      apply(tracker.message(message, Date.now()));
    } catch (e) {
      fail(e);
      return;
    }
    step(feed);
  });
  const watchdog = setInterval(() => {
    const now = Date.now();
    try {
      if (!over) apply(tracker.tick(now));
    } catch (e) {
      fail(e);
    }
    if (busy && now - busy.since > stepMs)
      fail(new Error(`${busy.what} has not finished after ${Math.round((now - busy.since) / 1000)} s`));
  }, 1000);
  const onAbort = () => kill('cancelled');
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  let endTimer: NodeJS.Timeout | undefined;
  try {
    step(feed);
    proc.once('exit', stopped);
    const closedOutput = new Promise((r) => rl.once('close', r));
    // Normally the runner's output closes right after it exits. A process it left
    // behind may hold its stderr open, and a killed one may not go at all: after
    // END_WAIT_MS it is given up on.
    await Promise.race([
      Promise.all([proc, closedOutput]),
      stoppedOrKilled.then(() => new Promise<void>((r) => (endTimer = setTimeout(r, END_WAIT_MS)))),
    ]);
    clearTimeout(endTimer);
    // A killed runner's reaper may still be killing what the notebooks left: the run ends
    // after it (bounded: execa SIGKILLs the reaper FORCE_KILL_MS after the SIGTERM).
    if (killed)
      await Promise.race([proc, new Promise<void>((r) => (endTimer = setTimeout(r, FORCE_KILL_MS + END_WAIT_MS)))]);
    clearTimeout(endTimer);
    over = true;
    // Pending file operations finish first (their results are in), unless one is stuck (the watchdog's limit).
    await Promise.race([chain, failedPromise]);
    clearInterval(watchdog);
    if (failure !== undefined || callerFailure) {
      const why = failure ?? 'cancelled: the caller of the run failed';
      for (const o of tracker.exited({ stderrTail, cancelled: true }))
        if (o.kind === 'finished') finish(o.run, { ...o.result, reason: why });
      // Every run of this runner not finished yet (queued, requeued, or in a stuck copy) fails with the reason.
      for (const p of queue) finish(p.run, failedResult(runs[p.run]!.id, why));
      waiting.splice(0);
      back.splice(0);
    } else {
      apply(tracker.exited({ stderrTail, cancelled: Boolean(opts.signal?.aborted) }));
      // Never sent (the runner ended first): back to the queue, no blame.
      for (const p of waiting) back.push(p);
    }
  } finally {
    clearInterval(watchdog);
    clearTimeout(endTimer);
    over = true;
    opts.signal?.removeEventListener('abort', onAbort);
    ctx.live.delete(proc);
    proc.stdout?.destroy();
    proc.stderr?.destroy();
    // Removals wait for nothing else; when the file system does not answer, what is left
    // stays in the run folder, which goes when the runtime closes or the process exits.
    const cleanup = (async () => {
      await chain;
      for (const run of [...scratch.keys()]) await release(run);
      await rm(runnerTmp, { recursive: true, force: true });
    })();
    const broken = failure !== undefined || callerFailure !== undefined;
    await within(cleanup, broken ? stepMs : Number.POSITIVE_INFINITY, 'removing the scratch folders').catch(
      (e: unknown) => {
        if (!broken) throw e;
      },
    );
  }
  if (failure !== undefined) return { back: [], failure };
  // A run the runner keeps dying on without ever starting it fails rather than loops.
  return {
    back: back.filter((p) => {
      if (p.restarts <= MAX_RESTARTS) return true;
      finish(
        p.run,
        failedResult(
          runs[p.run]!.id,
          `the runner process ended ${MAX_RESTARTS + 1} times before this notebook could start: ${stderrTail.trim().split('\n').slice(-3).join(' | ') || 'no message'}`,
        ),
      );
      return false;
    }),
  };
}

interface PreparedSandbox {
  bwrap: string;
  host: HostLayout;
  /** The seccomp program for this machine's architecture, if the filter knows it. */
  seccomp?: Buffer;
}

async function prepareSandbox(python: string, env: NodeJS.ProcessEnv, run: CommandRunner): Promise<PreparedSandbox> {
  const [bwrap, folders] = await Promise.all([findBubblewrap(env, run), readPythonFolders(python, run)]);
  const program = planLocalSeccompProgram(process.arch);
  return { bwrap, host: readHostLayout(folders), ...(program ? { seccomp: formatBpfProgram(program) } : {}) };
}

/**
 * How one runner process starts: through the reaper (junobench_reaper.py),
 * which kills what the notebooks detach from their kernels when the runner
 * ends; in the sandbox, bubblewrap around both (its pid namespace ends the
 * rest). `inside` maps a host path of the run folder to the runner's view.
 */
function planRunnerCommand(
  settings: RunnerSettings,
  jobs: number,
  runnerTmp: string,
  box: string,
): { file: string; args: string[]; fd3?: Buffer; inside: (hostPath: string) => string } {
  const runner = (dir: string, tmp: string) => [
    path.join(dir, 'junobench_reaper.py'),
    settings.python,
    path.join(dir, 'junobench_runner.py'),
    'serve',
    '--jobs',
    String(jobs),
    '--threads',
    String(settings.threads),
    '--tmp',
    tmp,
    '--authenticate',
    ...(settings.fork ? [] : ['--no-fork']),
  ];
  const sb = settings.sandbox;
  if (!sb) return { file: settings.python, args: runner(RUNNER_DIR, runnerTmp), inside: (p) => p };
  const sandboxArgs = planSandboxArgs({
    runFolder: box,
    runnerDir: RUNNER_DIR,
    host: sb.host,
    ...(sb.seccomp ? { seccompFd: 3 } : {}),
  });
  return {
    file: sb.bwrap,
    args: [...sandboxArgs, settings.python, ...runner(SANDBOX_LAYOUT.runner, insideRunFolder(box, runnerTmp))],
    ...(sb.seccomp ? { fd3: sb.seccomp } : {}),
    inside: (p) => insideRunFolder(box, p),
  };
}

/**
 * Seconds a single file operation of the runtime (copying an instance to its
 * scratch folder, removing one) may take before the runtime gives up: far
 * beyond any healthy copy, well within the watchdog's own limits.
 */
function stepLimitSeconds(settings: RunnerSettings): number {
  return 5 * (settings.startupSeconds + settings.graceSeconds);
}

/** `promise`, or a rejection naming `what` if it has not settled after `ms`. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  if (!Number.isFinite(ms)) return promise;
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} has not finished after ${Math.round(ms / 1000)} s`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

function failedResult(id: string, reason: string): RunResult {
  return { id, status: 'failed', reason, cells: [], durationMs: 0 };
}

async function probeRuntime(python: string, modules: string[], run: CommandRunner): Promise<RuntimeIdentity> {
  const r = await run(python, [RUNNER_PATH, 'probe', ...modules], { timeoutMs: 300_000 });
  if (r.exitCode !== 0) {
    throw new JunoError(
      'E_ENV_PYTHON',
      `probing ${python} failed: ${r.stderr.trim().split('\n').pop() ?? 'no message'}`,
      {
        hint: 'check that the interpreter runs: `' + python + ' -c "import ipykernel"`',
      },
    );
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
