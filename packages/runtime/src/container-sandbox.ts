import path from 'node:path';
import { JunoError, type RunPlan, type RunResult } from '@junobench/core';
import { parseRunnerMessage } from './parse-runner-message.js';
import type { NotebookRun } from './runtime.js';
import type { ContainerOutcome, ContainerSpec } from './container-exec.js';

/** Where things are inside the benchmark image (the Dockerfile renderer uses the same constants). */
export const CONTAINER_LAYOUT = {
  /** The runner, copied into the image. */
  runner: '/opt/junobench/junobench_runner.py',
  /** Non-root user that notebooks run as. */
  user: 'junobench',
  uid: 1000,
  /** The writable scratch copy of the instance: the notebook's working directory. */
  workdir: '/work',
  /** The instance folder, bind-mounted read-only. */
  instance: '/instance',
  /** The notebook user's home during a run: a writable copy of the image user's, on the /tmp tmpfs. */
  home: '/tmp/home',
} as const;

/**
 * Every place a notebook can write, each an in-memory file system of --disk.
 * /var/tmp is mounted by us because engines otherwise put their own there
 * (Podman: a world-writable tmpfs of half the host's memory when the root is
 * read-only); /dev/shm is the engine's, sized through ShmSize.
 */
export const SCRATCH_MOUNTS = [CONTAINER_LAYOUT.workdir, '/tmp', '/var/tmp', '/dev/shm'] as const;

/**
 * The container's command, run by `sh` as root for its first steps only:
 * copy the read-only instance into the writable /work (as root, so host file
 * modes cannot make inputs unreadable), give the notebook user a writable
 * home (a copy of the image user's, whose caches the image build warmed) on
 * /tmp, and hand both to the notebook's uid; then run the runner as that uid
 * with every capability dropped. The root file system is read-only: /work,
 * /tmp, /var/tmp and /dev/shm are size-limited tmpfs mounts (--disk), so a
 * notebook cannot fill the host's disk. `timeout` is a backstop that ends the container even if the
 * toolchain that started it dies. Last, it reports the cgroup's OOM-kill count
 * (v1 memory.oom_control or v2 memory.events), which is how an out-of-memory
 * kill is told apart from any other death on engines that do not set
 * State.OOMKilled (Podman 4 on cgroup v1), and which scratch file systems
 * are full (comma-separated mount points, or 0).
 *
 * Its own lines go to stdout, never stderr: notebook code writes to stderr
 * (a kernel's stdout is the runner's stderr) and could forge them there; the
 * container's stdout carries only the runner's and this wrapper's lines.
 *
 * The uid is the container's own (not the image user's 1000): per-user
 * process limits (RLIMIT_NPROC counts every process of a uid on the host)
 * are then not shared between concurrent containers.
 *
 * $1 image user (whose home is copied), $2 uid, $3 seconds for the backstop, $4… the runner command line.
 */
export const SANDBOX_SCRIPT = `set -u
user=$1; uid=$2; limit=$3; shift 3
if ! cp -R ${CONTAINER_LAYOUT.instance}/. ${CONTAINER_LAYOUT.workdir}/ 2>/tmp/junobench-copy.err; then
  echo "junobench-container: setup-failed: cannot copy ${CONTAINER_LAYOUT.instance} to ${CONTAINER_LAYOUT.workdir}: $(head -c 600 /tmp/junobench-copy.err | tr '\\n' ' ')"
  exit 125
fi
rm -f /tmp/junobench-copy.err
home=$(getent passwd "$user" | cut -d: -f6)
mkdir -p ${CONTAINER_LAYOUT.home}
[ -n "$home" ] && [ -d "$home" ] && cp -R "$home"/. ${CONTAINER_LAYOUT.home}/ 2>/dev/null
chown -R "$uid:$uid" ${CONTAINER_LAYOUT.workdir} ${CONTAINER_LAYOUT.home}
export HOME=${CONTAINER_LAYOUT.home} USER="$user" LOGNAME="$user"
timeout -s KILL "$limit" setpriv --reuid="$uid" --regid="$uid" --clear-groups --inh-caps=-all --bounding-set=-all --no-new-privs -- "$@"
rc=$?
oom=$(sed -n 's/^oom_kill //p' /sys/fs/cgroup/memory.events /sys/fs/cgroup/memory/memory.oom_control 2>/dev/null | head -n 1)
full=$(df -Pk ${SCRATCH_MOUNTS.join(' ')} 2>/dev/null | awk 'NR > 1 && $4 < 1024 { printf "%s%s", s, $6; s = "," }')
echo "junobench-container: exit=$rc oom_kill=\${oom:-unknown} disk_full=\${full:-0}"
exit $rc
`;

/** Root needs only these to copy, chown and drop to the notebook user; everything else is dropped. */
const SANDBOX_CAPABILITIES = ['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'SETUID', 'SETGID', 'SETPCAP'];

export interface ContainerRunSettings {
  image: string;
  memoryBytes: number;
  /** Size of each scratch file system (SCRATCH_MOUNTS, in memory: it counts toward memoryBytes too). */
  diskBytes: number;
  nanoCpus: number;
  pidsLimit: number;
  /** Threads per kernel for the OpenMP/BLAS/torch pools. */
  threads: number;
  /** Interpreter inside the image. */
  python: string;
  runnerPath: string;
  /** The image's notebook user, whose home is copied for the run. */
  user: string;
  startupTimeoutSeconds: number;
  /** Seconds after which the container is killed and the run reported as `timeout`. */
  wallClockSeconds: (run: NotebookRun) => number;
  labels?: Record<string, string>;
  /** The `seccomp=` option's value for the engine (ContainerSpec.seccomp): the runtime resolves it before the first container. */
  seccomp?: string;
  /** The same for slot containers, whose runner makes each kernel's namespaces (seccomp-profile.ts, `nesting`). */
  seccompNesting?: string;
  /** The engine (resolved with the profiles): how a nested /proc is allowed differs. */
  engine?: 'docker' | 'podman';
}

/** Default wall-clock limit: the notebook's own limit, kernel start-up, and a grace for copying and teardown. */
export function defaultWallClockSeconds(run: NotebookRun, startupTimeoutSeconds: number, graceSeconds: number): number {
  return Math.ceil(run.timeoutSeconds + startupTimeoutSeconds + graceSeconds);
}

/** `4g`, `512m`, `2GiB`, `1073741824` → bytes. */
export function parseMemorySize(value: string | number): number {
  if (typeof value === 'number') {
    if (Number.isFinite(value) && value > 0) return Math.floor(value);
  } else {
    const m = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(i?b)?\s*$/i.exec(value);
    if (m) {
      const unit = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 }[
        m[2]!.toLowerCase() as '' | 'k' | 'm' | 'g' | 't'
      ];
      const bytes = Math.floor(Number(m[1]) * unit);
      if (bytes > 0) return bytes;
    }
  }
  throw new JunoError('E_USAGE', `invalid memory size ${JSON.stringify(value)}`, {
    hint: 'give bytes or a number with a unit, e.g. 4g, 512m, 2GiB',
  });
}

export function formatMemorySize(bytes: number): string {
  for (const [unit, size] of [
    ['GiB', 1024 ** 3],
    ['MiB', 1024 ** 2],
    ['KiB', 1024],
  ] as const) {
    if (bytes >= size && bytes % (size / 4) === 0) return `${bytes / size} ${unit}`;
  }
  return `${bytes} bytes`;
}

/** The run's notebook path, relative to its instance folder and without "..": E_USAGE otherwise. */
export function checkNotebookPath(run: Pick<NotebookRun, 'notebook' | 'instanceDir'>): string {
  const notebook = run.notebook.replace(/\\/g, '/');
  if (path.posix.isAbsolute(notebook) || notebook.split('/').includes('..')) {
    throw new JunoError(
      'E_USAGE',
      `notebook path ${JSON.stringify(run.notebook)} must be relative to the instance folder, without ".."`,
      {
        location: { file: run.instanceDir },
      },
    );
  }
  return notebook;
}

/**
 * The RunPlan the runner gets (paths as the container sees them) and the
 * container to run it in. Pure: no engine, no file system. `key` signs the
 * runner's messages (createMessageKey): it reaches the runner on the "go"
 * line of its stdin, after the kernel started, and is in neither its
 * arguments nor its environment.
 */
export function planContainerRun(
  run: NotebookRun,
  settings: ContainerRunSettings,
  key: Buffer,
  uid: number = CONTAINER_LAYOUT.uid,
): { plan: RunPlan; spec: ContainerSpec } {
  const notebook = checkNotebookPath(run);
  const instanceDir = path.resolve(run.instanceDir);
  if (instanceDir.includes(',')) {
    // Podman turns the API's Mounts into its --mount option syntax, where a comma cannot be escaped.
    throw new JunoError(
      'E_USAGE',
      `the instance folder ${instanceDir} has a comma in its path, which the container engine cannot mount`,
      {
        location: { file: instanceDir },
        hint: 'rename or move the folder to a path without a comma, then run again',
      },
    );
  }
  const plan: RunPlan = {
    id: run.id,
    notebook: path.posix.join(CONTAINER_LAYOUT.workdir, notebook),
    cells: [...run.cells],
    cwd: CONTAINER_LAYOUT.workdir,
    cellTimeoutSeconds: run.cellTimeoutSeconds,
    timeoutSeconds: run.timeoutSeconds,
    startupTimeoutSeconds: settings.startupTimeoutSeconds,
    ...(run.prewarm && run.prewarm.length > 0 ? { prewarm: [...run.prewarm] } : {}),
    ...(run.probe ? { probe: run.probe } : {}),
  };
  const wall = settings.wallClockSeconds(run);
  const spec: ContainerSpec = {
    image: settings.image,
    cmd: [
      'sh',
      '-c',
      SANDBOX_SCRIPT,
      'junobench-sandbox',
      settings.user,
      String(uid),
      // The in-container backstop fires after the toolchain's own kill would
      // have, counting the time the container may wait for its turn (its
      // kernel started ahead) and its start-up.
      String(Math.ceil(2 * wall + settings.startupTimeoutSeconds + 15)),
      settings.python,
      settings.runnerPath,
      'run',
      '--threads',
      String(settings.threads),
      '--tmp',
      '/tmp',
      '--wait-go',
      '--authenticate',
      '--plan-json',
      JSON.stringify(plan),
    ],
    user: '0:0',
    env: ['PYTHONUNBUFFERED=1', 'PYTHONDONTWRITEBYTECODE=1', 'LANG=C.UTF-8'],
    workingDir: CONTAINER_LAYOUT.workdir,
    mounts: [{ source: instanceDir, target: CONTAINER_LAYOUT.instance, readOnly: true }],
    memoryBytes: settings.memoryBytes,
    nanoCpus: settings.nanoCpus,
    pidsLimit: settings.pidsLimit,
    capDrop: ['ALL'],
    capAdd: SANDBOX_CAPABILITIES,
    readonlyRootfs: true,
    tmpfs: {
      [CONTAINER_LAYOUT.workdir]: settings.diskBytes,
      '/tmp': settings.diskBytes,
      '/var/tmp': settings.diskBytes,
    },
    shmBytes: settings.diskBytes,
    ...(settings.seccomp ? { seccomp: settings.seccomp } : {}),
    waitForGo: true,
    goLine: `go ${key.toString('hex')}`,
    labels: { 'org.junobench.run': run.id, ...settings.labels },
    wallClockSeconds: wall,
  };
  return { plan, spec };
}

/** The last line of the sandbox wrapper's on stdout matching `pattern` (anchored at a line start). */
export function findWrapperLine(stdout: string, pattern: RegExp): RegExpExecArray | undefined {
  const lines = stdout.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const m = pattern.exec(lines[i]!);
    if (m) return m;
  }
  return undefined;
}

/** The OOM-kill count the sandbox wrapper reported (on the container's stdout), or undefined. */
export function parseOomKills(stdout: string): number | undefined {
  const m = findWrapperLine(stdout, /^junobench-container: exit=\d+ oom_kill=(\d+)/);
  return m ? Number(m[1]) : undefined;
}

/** The scratch file systems (SCRATCH_MOUNTS) the sandbox wrapper found full at the end (on stdout); empty when none. */
export function parseDiskFull(stdout: string): string[] {
  const m = findWrapperLine(stdout, /^junobench-container: exit=\d+ oom_kill=\S+ disk_full=(\S+)/);
  if (!m || m[1] === '0') return [];
  return m[1]!.split(',').filter((p) => (SCRATCH_MOUNTS as readonly string[]).includes(p));
}

/**
 * The RunResult of a finished container. The runner's own result is used
 * when it printed one; otherwise the container's fate is: killed at the
 * wall-clock limit → `timeout`; killed for memory or dead for any other
 * reason → `kernel-died` with why (docs/verify.md, "Runtimes": not a tool error).
 */
export function interpretContainerRun(
  run: NotebookRun,
  outcome: ContainerOutcome,
  settings: Pick<ContainerRunSettings, 'memoryBytes' | 'wallClockSeconds'> &
    Partial<Pick<ContainerRunSettings, 'diskBytes'>>,
  key: Buffer,
): RunResult {
  const oomKills = parseOomKills(outcome.stdout) ?? 0;
  const memory = formatMemorySize(settings.memoryBytes);
  const runnerResult = findResultLine(outcome.stdout, run.id, key);
  const durationMs = outcome.runMs;
  const notRun = () => run.cells.map((index) => ({ index, status: 'not-run' as const, durationMs: 0 }));
  const full = parseDiskFull(outcome.stdout);
  const disk =
    full.length > 0
      ? `the notebook filled its scratch disk ${full.join(' and ')} (${settings.diskBytes ? formatMemorySize(settings.diskBytes) : 'the --disk size'} each for ${SCRATCH_MOUNTS.slice(0, -1).join(', ')} and ${SCRATCH_MOUNTS.at(-1)}: --disk)`
      : undefined;

  if (runnerResult) {
    const withContainer = { ...runnerResult, phases: { ...runnerResult.phases, containerMs: outcome.setupMs } };
    if (runnerResult.status === 'kernel-died' && oomKills > 0) {
      return {
        ...withContainer,
        reason: `out of memory: the kernel was killed at the container's ${memory} memory limit${runnerResult.reason ? ` (${runnerResult.reason})` : ''}${disk ? `; ${disk}, which counts toward memory` : ''}`,
      };
    }
    if (disk) return { ...withContainer, reason: runnerResult.reason ? `${runnerResult.reason}; ${disk}` : disk };
    return withContainer;
  }
  if (outcome.aborted) {
    return { id: run.id, status: 'failed', reason: 'cancelled', cells: notRun(), durationMs };
  }
  if (outcome.timedOut) {
    return {
      id: run.id,
      status: 'timeout',
      reason: `the container ran past its ${settings.wallClockSeconds(run)} s wall-clock limit and was killed`,
      cells: notRun(),
      durationMs,
    };
  }
  const setupFailed = findWrapperLine(outcome.stdout, /^junobench-container: setup-failed: (.*)/);
  if (setupFailed) {
    return { id: run.id, status: 'failed', reason: setupFailed[1]!.trim(), cells: notRun(), durationMs };
  }
  if (oomKills > 0) {
    return {
      id: run.id,
      status: 'kernel-died',
      reason: `out of memory: the container hit its ${memory} memory limit and the runner was killed before it could report`,
      cells: notRun(),
      durationMs,
    };
  }
  const tail = lastLines(outcome.stderr, 5);
  const marker = findWrapperLine(outcome.stdout, /^junobench-container: exit=(\d+)/);
  let why: string;
  if (marker) {
    // The wrapper outlived the runner: the runner (not the container) ended without a result.
    const rc = Number(marker[1]);
    why = `the runner exited with code ${rc}${rc > 128 ? ` (killed by signal ${rc - 128})` : ''} before printing a result`;
  } else {
    const code = outcome.exitCode;
    why =
      `the container ${code === null ? 'ended' : code === 137 ? 'was killed (exit 137)' : `exited with code ${code}`} before the runner printed a result` +
      (code === 137 ? ` (possibly out of memory at its ${memory} limit)` : '');
  }
  return { id: run.id, status: 'kernel-died', reason: tail ? `${why}: ${tail}` : why, cells: notRun(), durationMs };
}

/**
 * The runner's result for `id`: its last `result` message on stdout signed
 * with `key` (a line without a valid MAC is not the runner's, whatever it says).
 */
export function findResultLine(stdout: string, id: string, key: Buffer): RunResult | undefined {
  const lines = stdout.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const message = parseRunnerMessage(lines[i]!, key);
    if (!message || message.id !== id) continue;
    if ('invalid' in message) {
      throw new JunoError('E_RUNTIME', `the runner in the image printed an invalid message: ${message.invalid}`, {
        hint: 'the image was built from another runner version: rebuild it with `junobench image build`',
      });
    }
    if (message.type === 'result') return message.result;
  }
  return undefined;
}

function lastLines(text: string, n: number): string {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .slice(-n)
    .join(' | ')
    .slice(0, 1000);
}
