import { mkdtemp, rm } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import os from 'node:os';
import path from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { JunoError, checkSchema, copyInstanceTree, formatIssue, type RunPlan, type RunResult, type RuntimeIdentity } from '@junobench/core';
import type { NotebookRun, RunOptions, Runtime } from './runtime.js';
import { RUNNER_PATH } from './runner-path.js';
import { execaRunner, findPython, type CommandRunner } from './find-python.js';

export interface LocalRuntimeOptions {
  /** Interpreter with ipykernel; else $JUNOBENCH_PYTHON, else found automatically. */
  python?: string;
  env?: NodeJS.ProcessEnv;
  /** Command runner for the interpreter checks and probes (tests inject fakes). */
  run?: CommandRunner;
  /** Seconds a kernel may take to start (and import prewarm modules). */
  startupTimeoutSeconds?: number;
  /** Where scratch copies of instances are made; default the OS temp folder. */
  scratchRoot?: string;
  /**
   * Fork kernels from a zygote process that has the kernel stack and the
   * instance's required modules imported (default), instead of starting a
   * new interpreter per notebook. Each notebook still gets its own fresh
   * kernel process.
   */
  fork?: boolean;
}

/** Plans kept in flight per job: one executing, one whose kernel starts meanwhile. */
const IN_FLIGHT_PER_JOB = 2;
/** Extra seconds, beyond a plan's own limits, before a silent runner is declared hung. */
const WATCHDOG_GRACE_SECONDS = 60;

/**
 * The local runtime: notebooks run in fresh kernels of a local interpreter,
 * through one long-lived runner process (`junobench_runner.py serve --jobs N`)
 * executing up to `jobs` notebooks at once. Each of its workers launches the
 * next plan's kernel while the current one executes,
 * which hides kernel start-up without ever sharing a kernel, and forks kernels
 * from a "zygote" that has imported the kernel stack and the required modules
 * once, so a kernel costs a fork rather than an interpreter start. Each notebook runs
 * in a scratch copy of its instance folder, so it cannot change the instance.
 */
export async function createLocalRuntime(options: LocalRuntimeOptions = {}): Promise<Runtime> {
  const env = options.env ?? process.env;
  const commandRunner = options.run ?? execaRunner;
  const python = await findPython({ ...(options.python ? { explicit: options.python } : {}), env, run: commandRunner });
  const startup = options.startupTimeoutSeconds ?? 60;
  const probes = new Map<string, Promise<RuntimeIdentity>>();
  const scratchRoot = options.scratchRoot ?? os.tmpdir();
  const live = new Set<ResultPromise>();

  const describe = (modules: readonly string[]): Promise<RuntimeIdentity> => {
    const key = [...new Set(modules)].sort().join(',');
    let p = probes.get(key);
    if (!p) {
      p = probeRuntime(python, key ? key.split(',') : [], commandRunner);
      probes.set(key, p);
    }
    return p;
  };

  const run = async (runs: readonly NotebookRun[], opts: RunOptions = {}): Promise<RunResult[]> => {
    const results: RunResult[] = new Array(runs.length);
    if (runs.length === 0) return results;
    const jobs = Math.max(1, Math.min(opts.jobs ?? 1, runs.length));
    const inFlightLimit = IN_FLIGHT_PER_JOB * jobs;
    const pending = runs.map((_, i) => i);
    const attempts = new Map<number, number>();

    const finish = (i: number, r: RunResult) => {
      results[i] = r;
      opts.onResult?.(r, runs[i]!);
    };

    const worker = async (): Promise<void> => {
      while (pending.length > 0) {
        if (opts.signal?.aborted) {
          for (const i of pending.splice(0)) finish(i, failedResult(runs[i]!.id, 'cancelled'));
          return;
        }
        await runWorkerProcess();
      }
    };

    // One runner process; returns when the queue is empty or the process had to be replaced.
    const runWorkerProcess = async (): Promise<void> => {
      // One runner for all jobs: its workers share the kernel zygotes, so each
      // set of imports is paid once, not once per job.
      const proc = execa(python, [RUNNER_PATH, 'serve', '--jobs', String(jobs), ...(options.fork === false ? ['--no-fork'] : [])], {
        env: { ...env, PYTHONUNBUFFERED: '1' },
        extendEnv: false,
        stdin: 'pipe',
        stdout: 'pipe',
        stderr: 'pipe',
        buffer: false,
        reject: false,
        cleanup: true,
      });
      live.add(proc);
      let stderrTail = '';
      proc.stderr?.on('data', (d: Buffer) => {
        stderrTail = (stderrTail + d.toString()).slice(-4000);
      });
      const inFlight: { index: number; scratch: string; sentAt: number; limit: number }[] = [];
      let lastProgress = Date.now();
      let done!: () => void;
      const finished = new Promise<void>((r) => (done = r));
      let closed = false;

      const feed = async (): Promise<void> => {
        while (!closed && inFlight.length < inFlightLimit && pending.length > 0) {
          const index = pending.shift()!;
          const r = runs[index]!;
          const scratch = await mkdtemp(path.join(scratchRoot, 'junobench-run-'));
          try {
            // Links are materialised (never followed back into the instance): a notebook
            // writing its copy cannot change the instance or anything outside it.
            await copyInstanceTree(r.instanceDir, scratch);
          } catch (e) {
            await rm(scratch, { recursive: true, force: true });
            finish(index, failedResult(r.id, `cannot copy ${r.instanceDir} to a scratch folder: ${(e as Error).message}`));
            continue;
          }
          const plan: RunPlan = {
            id: String(index),
            notebook: path.join(scratch, r.notebook),
            cells: r.cells,
            cwd: scratch,
            cellTimeoutSeconds: r.cellTimeoutSeconds,
            timeoutSeconds: r.timeoutSeconds,
            startupTimeoutSeconds: startup,
            ...(r.prewarm && r.prewarm.length > 0 ? { prewarm: r.prewarm } : {}),
          };
          inFlight.push({ index, scratch, sentAt: Date.now(), limit: r.timeoutSeconds + startup + WATCHDOG_GRACE_SECONDS });
          proc.stdin?.write(`${JSON.stringify(plan)}\n`);
        }
        if (!closed && inFlight.length === 0 && pending.length === 0) {
          closed = true;
          proc.stdin?.end();
        }
      };

      const rl = createInterface({ input: proc.stdout! });
      rl.on('line', (line) => {
        void (async () => {
          let parsed: unknown;
          try {
            parsed = JSON.parse(line);
          } catch {
            return; // not a result line (a library printing to the runner's stdout)
          }
          const slot = inFlight.findIndex((f) => String(f.index) === (parsed as { id?: string }).id);
          if (slot < 0) return;
          const [flight] = inFlight.splice(slot, 1);
          lastProgress = Date.now();
          const r = runs[flight!.index]!;
          const issues = checkSchema('run-result', parsed);
          const result: RunResult =
            issues.length === 0
              ? { ...(parsed as RunResult), id: r.id }
              : failedResult(r.id, `the runner printed an invalid result: ${issues.map(formatIssue).join('; ')}`);
          finish(flight!.index, result);
          await rm(flight!.scratch, { recursive: true, force: true });
          await feed();
        })();
      });

      // Never hang: a runner that stays silent past the plan's own limits is killed.
      const watchdog = setInterval(() => {
        if (inFlight.length === 0) return;
        // No result at all for longer than any plan in flight may take (plus a
        // kernel start-up for the plans launched ahead): the runner is hung.
        const limit = Math.max(...inFlight.map((f) => f.limit));
        if (Date.now() - lastProgress > limit * 1000 + startup * 1000) {
          stderrTail += `\n[junobench] runner silent for ${Math.round((Date.now() - lastProgress) / 1000)} s; killed`;
          proc.kill('SIGKILL');
        }
      }, 1000);
      const onAbort = () => proc.kill('SIGKILL');
      opts.signal?.addEventListener('abort', onAbort, { once: true });

      void Promise.all([proc, new Promise((r) => rl.once('close', r))]).then(() => done());
      await feed();
      await finished;
      clearInterval(watchdog);
      opts.signal?.removeEventListener('abort', onAbort);
      live.delete(proc);
      // Plans still in flight when the process ended: the oldest `jobs` were
      // running and are reported; the rest go back to the queue (twice at most)
      // for a new process.
      for (const [k, f] of inFlight.entries()) {
        await rm(f.scratch, { recursive: true, force: true });
        const n = (attempts.get(f.index) ?? 0) + 1;
        attempts.set(f.index, n);
        if (k < jobs || n > 2) {
          const reason = opts.signal?.aborted
            ? 'cancelled'
            : `the runner process ended unexpectedly: ${stderrTail.trim().split('\n').slice(-3).join(' | ') || 'no message'}`;
          const timedOut = /killed$/.test(stderrTail.trim());
          finish(f.index, { ...failedResult(runs[f.index]!.id, reason), status: timedOut ? 'timeout' : 'failed' });
        } else {
          pending.unshift(f.index);
        }
      }
    };

    await worker();
    return results;
  };

  let fingerprintPromise: Promise<string> | undefined;
  const fingerprint = (): Promise<string> => {
    fingerprintPromise ??= (async () => {
      const r = await commandRunner(python, [RUNNER_PATH, 'fingerprint'], { timeoutMs: 60_000 });
      if (r.exitCode !== 0) throw new JunoError('E_ENV_PYTHON', `cannot list the packages of ${python}: ${r.stderr.trim().split('\n').pop() ?? ''}`);
      return `local:${r.stdout.trim()}`;
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
      live.clear();
    },
  };
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
