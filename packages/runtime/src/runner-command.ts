import path from 'node:path';
import type { RunPlan } from '@junobench/core';
import type { CommandRunner } from './find-python.js';
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
import { RUNNER_DIR } from './runner-path.js';
import type { NotebookRun } from './runtime.js';
import type { LiveRunner, RunnerChannel } from './runner-process.js';

/** What every runner process of one local runtime is started with. */
export interface RunnerSettings {
  python: string;
  /** Set: every runner and its kernels run in the bubblewrap sandbox. */
  sandbox?: PreparedSandbox;
  env: NodeJS.ProcessEnv;
  startupSeconds: number;
  graceSeconds: number;
  fork: boolean;
  threads: number;
  scratchRoot: string;
  /** Set: runners start elsewhere than as a local process (a slot container: container-slots.ts). */
  launcher?: RunnerLauncher;
}

/** Where and how a runner starts, when not as a local process. */
export interface RunnerLauncher {
  plan(settings: RunnerSettings, jobs: number, runnerTmp: string, box: string): RunnerCommand;
  start(command: RunnerCommand, live: Set<LiveRunner>): RunnerChannel;
  /** After a run's scratch copy is made, before its plan is sent: make it what the runner needs (e.g. readable by its uid). */
  prepareScratch?(dir: string): Promise<void>;
}

export interface PreparedSandbox {
  bwrap: string;
  host: HostLayout;
  /** The seccomp program for this machine's architecture, if the filter knows it. */
  seccomp?: Buffer;
}

/** How one runner process starts; `inside` maps a host path of the run folder to the runner's view. */
export interface RunnerCommand {
  file: string;
  args: string[];
  fd3?: Buffer;
  inside: (hostPath: string) => string;
}

/** bubblewrap, the host layout it binds and the seccomp program: checked once per runtime. */
export async function prepareSandbox(
  python: string,
  env: NodeJS.ProcessEnv,
  run: CommandRunner,
): Promise<PreparedSandbox> {
  const [bwrap, folders] = await Promise.all([findBubblewrap(env, run), readPythonFolders(python, run)]);
  const program = planLocalSeccompProgram(process.arch);
  return { bwrap, host: readHostLayout(folders), ...(program ? { seccomp: formatBpfProgram(program) } : {}) };
}

/**
 * How one runner process starts: through the reaper (junobench_reaper.py),
 * which kills what the notebooks detach from their kernels when the runner
 * ends; in the sandbox, bubblewrap around both (its pid namespace ends the
 * rest). `box` is the run folder the sandbox sees as its only writable place.
 */
export function planRunnerCommand(
  settings: RunnerSettings,
  jobs: number,
  runnerTmp: string,
  box: string,
): RunnerCommand {
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

/** The plan the runner gets for `run`, executed in its scratch copy `scratchDir` (paths as the runner sees them). */
export function planRunnerPlan(
  planId: string,
  run: NotebookRun,
  scratchDir: string,
  command: Pick<RunnerCommand, 'inside'>,
  startupSeconds: number,
): RunPlan {
  return {
    id: planId,
    notebook: command.inside(path.join(scratchDir, run.notebook)),
    cells: run.cells,
    cwd: command.inside(scratchDir),
    cellTimeoutSeconds: run.cellTimeoutSeconds,
    timeoutSeconds: run.timeoutSeconds,
    startupTimeoutSeconds: startupSeconds,
    ...(run.prewarm && run.prewarm.length > 0 ? { prewarm: run.prewarm } : {}),
    ...(run.probe ? { probe: run.probe } : {}),
  };
}

/**
 * Seconds a single file operation of the runtime (copying an instance to its
 * scratch folder, removing one) may take before the runtime gives up: far
 * beyond any healthy copy, well within the watchdog's own limits.
 */
export function planStepLimitSeconds(settings: Pick<RunnerSettings, 'startupSeconds' | 'graceSeconds'>): number {
  return 5 * (settings.startupSeconds + settings.graceSeconds);
}
