import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LiveRunner } from './runner-process.js';
import { JunoError, type RunResult, type RuntimeIdentity } from '@junobench/core';
import type { NotebookRun, RunOptions, RunStream, Runtime, StreamOptions } from './runtime.js';
import { RUNNER_PATH } from './runner-path.js';
import { execaRunner, findPython, type CommandRunner } from './find-python.js';
import { createRunFolder, sweepStaleRunFolders, type RunFolder } from './run-folder.js';
import { omitSecretVariables } from './omit-secret-variables.js';
import { prepareSandbox, type RunnerSettings } from './runner-command.js';
import { RunSession } from './run-session.js';
import { ProbeCache, modulesToProbe, packagesFrom, type ProbeRecord } from './probe-cache.js';

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
  /**
   * Where probe results are kept between runtimes (probe-cache.ts), keyed by
   * the interpreter's fingerprint; absent: every runtime probes anew. The CLI
   * passes a folder under the user's cache ($XDG_CACHE_HOME or ~/.cache).
   */
  probeCacheDir?: string;
}

/** Seconds a stream's runner waits with nothing to do before it ends (RunStream: the next run starts another). */
const STREAM_IDLE_SECONDS = 300;

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
  const live = new Set<LiveRunner>();
  let folder: RunFolder | undefined;
  const runFolder = (): RunFolder => {
    if (!folder) {
      // Whatever a killed earlier run left (scratch copies, signing keys, zygote sockets) goes first.
      sweepStaleRunFolders(settings.scratchRoot);
      // At exit, the runners are told to stop before their folder goes (execa's own cleanup comes later).
      folder = createRunFolder(settings.scratchRoot, {
        beforeExitRemoval: () => {
          for (const p of live) p.kill('SIGTERM');
        },
      });
      // What the sandbox sees of the run folder (its owner file stays outside).
      for (const dir of ['box', 'box/home', 'box/tmp']) mkdirSync(path.join(folder.dir, dir), { mode: 0o700 });
    }
    return folder;
  };

  // The interpreter's state, without this runtime's settings: the key of the probe cache and part of the fingerprint.
  let pythonFingerprintPromise: Promise<string> | undefined;
  const pythonFingerprint = (): Promise<string> => {
    pythonFingerprintPromise ??= (async () => {
      const r = await commandRunner(python, [RUNNER_PATH, 'fingerprint'], { timeoutMs: 60_000 });
      if (r.exitCode !== 0)
        throw new JunoError(
          'E_ENV_PYTHON',
          `cannot list the packages of ${python}: ${r.stderr.trim().split('\n').pop() ?? ''}`,
        );
      return r.stdout.trim();
    })();
    return pythonFingerprintPromise;
  };
  const cache = options.probeCacheDir ? new ProbeCache(options.probeCacheDir) : undefined;
  const identity = (record: ProbeRecord, packages: Record<string, string | null>): RuntimeIdentity => ({
    kind: 'local',
    python: record.python,
    ...(record.pythonVersion ? { pythonVersion: record.pythonVersion } : {}),
    packages,
    kernelStart: settings.fork ? 'fork' : 'launch',
    threads: settings.threads,
  });
  const probeModules = async (modules: string[]): Promise<RuntimeIdentity> => {
    if (!cache) {
      const r = await probeRuntime(python, modules, commandRunner);
      return identity(r, r.packages);
    }
    // A fingerprint that cannot be read only means no cache (the probe says what is wrong, if anything).
    const print = await pythonFingerprint().catch(() => undefined);
    const known = print ? await cache.read(python, print) : undefined;
    const missing = modulesToProbe(known, modules);
    if (known && missing.length === 0) return identity(known, packagesFrom(known, modules) ?? {});
    const probed = await probeRuntime(python, missing, commandRunner);
    const record: ProbeRecord = { ...probed, packages: { ...known?.packages, ...probed.packages } };
    if (print) await cache.write(python, print, record);
    return identity(record, packagesFrom(record, modules) ?? {});
  };
  const describe = (modules: readonly string[]): Promise<RuntimeIdentity> => {
    const key = [...new Set(modules)].sort().join(',');
    let p = probes.get(key);
    if (!p) {
      p = probeModules(key ? key.split(',') : []);
      probes.set(key, p);
    }
    return p;
  };

  // async: a run folder that cannot be made is a rejection, never a throw at the caller.
  const run = async (runs: readonly NotebookRun[], opts: RunOptions = {}): Promise<RunResult[]> =>
    runAll(runs, opts, settings, path.join(runFolder().dir, 'box'), live);

  const streams = new Set<RunSession>();
  const stream = (opts: StreamOptions = {}): RunStream => {
    const session = new RunSession({
      settings,
      box: path.join(runFolder().dir, 'box'),
      live,
      jobs: Math.max(1, opts.jobs ?? 1),
      idleMs: Math.max(0, opts.idleSeconds ?? STREAM_IDLE_SECONDS) * 1000,
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    streams.add(session);
    void session.done.finally(() => streams.delete(session)).catch(() => undefined);
    return {
      submit: (r) => session.add(r),
      end: async () => {
        session.end();
        await session.done;
      },
      get runners() {
        return session.runners;
      },
    };
  };

  let fingerprintPromise: Promise<string> | undefined;
  const fingerprint = (): Promise<string> => {
    fingerprintPromise ??= pythonFingerprint().then(
      (line) => `local:${line}:${settings.fork ? 'fork' : 'launch'}:threads=${settings.threads}`,
    );
    return fingerprintPromise;
  };

  return {
    kind: 'local',
    sandboxed: sandbox !== undefined,
    describe,
    fingerprint,
    run,
    stream,
    async close() {
      // Open streams take no more runs and start no runner; their runs in flight end as cancelled.
      const open = [...streams];
      for (const s of open) s.cancel();
      for (const p of live) p.kill('SIGTERM');
      await Promise.allSettled([...live]);
      live.clear();
      // Their scratch folders go before the run folder does (a removal racing a copy would fail the run for it),
      // within the grace a file operation gets.
      await Promise.race([
        Promise.allSettled(open.map((s) => s.done)),
        new Promise((resolve) => setTimeout(resolve, settings.graceSeconds * 1000).unref()),
      ]);
      folder?.remove();
      folder = undefined;
    },
  };
}

/** Every run of one run() call: a session given them all at once, then ended. */
async function runAll(
  runs: readonly NotebookRun[],
  opts: RunOptions,
  settings: RunnerSettings,
  box: string,
  live: Set<LiveRunner>,
): Promise<RunResult[]> {
  if (runs.length === 0) return [];
  const session = new RunSession({
    settings,
    box,
    live,
    jobs: Math.max(1, Math.min(opts.jobs ?? 1, runs.length)),
    keepResults: true,
    ...(opts.onResult ? { onResult: opts.onResult } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  // The results are read from the session; a run's own promise is not awaited (nor left to reject unhandled).
  for (const r of runs) session.add(r).catch(() => undefined);
  session.end();
  await session.done;
  return session.results;
}

async function probeRuntime(python: string, modules: string[], run: CommandRunner): Promise<ProbeRecord> {
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
    python: info.executable ?? python,
    ...(info.version ? { pythonVersion: info.version } : {}),
    packages: info.packages ?? {},
  };
}
