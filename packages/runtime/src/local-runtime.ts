import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ResultPromise } from 'execa';
import { JunoError, type RunResult, type RuntimeIdentity } from '@junobench/core';
import type { NotebookRun, RunOptions, Runtime } from './runtime.js';
import { RUNNER_PATH } from './runner-path.js';
import { execaRunner, findPython, type CommandRunner } from './find-python.js';
import { createRunFolder, sweepStaleRunFolders, type RunFolder } from './run-folder.js';
import { omitSecretVariables } from './omit-secret-variables.js';
import { planNextRunner, type Pending } from './pending-runs.js';
import { prepareSandbox, type RunnerSettings } from './runner-command.js';
import { CallerFailure, RunnerDriver, failedResult, type DriverContext } from './runner-driver.js';

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

/**
 * Every run through runner processes: one for all jobs while all goes well;
 * when a runner dies with several notebooks executing, the suspects are run
 * one at a time in a runner of their own, so the one that kills it is blamed
 * and the others are not (planNextRunner).
 */
async function runAll(
  runs: readonly NotebookRun[],
  opts: RunOptions,
  settings: RunnerSettings,
  box: string,
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
  const ctx: DriverContext = {
    settings,
    box,
    live,
    runOf: (run) => runs[run]!,
    finish,
    ...(opts.signal ? { signal: opts.signal } : {}),
  };
  try {
    while (pending.length > 0) {
      if (opts.signal?.aborted) {
        for (const p of pending.splice(0)) finish(p.run, failedResult(runs[p.run]!.id, 'cancelled'));
        break;
      }
      const next = planNextRunner(pending, jobs);
      pending = pending.filter((p) => !next.take.includes(p));
      const { back, failure } = await new RunnerDriver(ctx, next.take, next.jobs).run();
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
