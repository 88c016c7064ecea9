import { existsSync, lstatSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { JunoError } from '@junobench/core';
import type { CommandRunner } from './find-python.js';

/**
 * The local runtime's sandbox: bubblewrap (Debian's `bubblewrap`), started
 * unprivileged through user namespaces, around the reaper, the runner, its
 * zygotes and every kernel. Inside, a notebook sees:
 *
 * - the system read-only (/usr, the /bin-/lib links or folders, /etc without
 *   its secrets, /sys), and the interpreter's own folders when they are
 *   elsewhere (a virtual environment, a user site);
 * - the runner read-only at /opt/junobench (as in the benchmark image);
 * - the runtime's run folder at /run/junobench, the only writable place:
 *   the scratch copies of the instances, the kernels' connection files, the
 *   zygote sockets, a home (/run/junobench/home) and /tmp;
 * - a /proc of its own (a pid namespace: no host process, not the toolchain),
 *   a minimal /dev, no network but a loopback of its own, no capability, no
 *   new user namespace, a new session (no terminal to inject keys into), and
 *   the seccomp filter of local-seccomp.ts.
 *
 * Nothing else of the file system: not the project, not the instance folders
 * (each notebook has its scratch copy), not the home folder.
 */
export const SANDBOX_LAYOUT = {
  runner: '/opt/junobench',
  run: '/run/junobench',
} as const;

/** Top-level system folders bound when they are folders, recreated when they are links (merged /usr). */
const SYSTEM_ROOTS = ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'] as const;
/** Files of /etc a notebook has no business reading (root could, as their owner). */
const ETC_SECRETS = ['/etc/shadow', '/etc/shadow-', '/etc/gshadow', '/etc/gshadow-', '/etc/sudoers'] as const;
const ETC_SECRET_FOLDERS = ['/etc/ssh', '/etc/sudoers.d', '/etc/ssl/private'] as const;

/** What of the host the sandbox is made from (readHostLayout reads it; tests give it literally). */
export interface HostLayout {
  /** Each of SYSTEM_ROOTS present: a link (its target) or a folder. */
  roots: { path: string; link?: string }[];
  /** ETC_SECRETS and ETC_SECRET_FOLDERS present. */
  secrets: { files: string[]; folders: string[] };
  /** Folders of the interpreter outside /usr (prefixes, the executable's, sys.path entries). */
  python: string[];
}

export interface SandboxPlan {
  runFolder: string;
  runnerDir: string;
  host: HostLayout;
  /** File descriptor of the seccomp program, when there is one for this architecture. */
  seccompFd?: number;
}

/** A host path of the run folder as the sandbox sees it (every path in a plan goes through this). */
export function insideRunFolder(runFolder: string, hostPath: string): string {
  const rel = path.relative(runFolder, hostPath);
  if (rel.startsWith('..') || path.isAbsolute(rel)) {
    throw new JunoError('E_INTERNAL', `${hostPath} is not in the run folder ${runFolder}`);
  }
  return rel ? path.posix.join(SANDBOX_LAYOUT.run, ...rel.split(path.sep)) : SANDBOX_LAYOUT.run;
}

/** bubblewrap's arguments up to and including `--` (the command follows). Pure. */
export function planSandboxArgs(plan: SandboxPlan): string[] {
  const args = [
    '--unshare-all',
    '--unshare-user',
    '--disable-userns',
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    // The reaper is pid 1: it reaps the orphans, and no process in the sandbox can signal it.
    '--as-pid-1',
    '--ro-bind',
    '/usr',
    '/usr',
  ];
  for (const root of plan.host.roots) {
    if (root.link !== undefined) args.push('--symlink', root.link, root.path);
    else args.push('--ro-bind', root.path, root.path);
  }
  args.push('--ro-bind', '/etc', '/etc');
  for (const file of plan.host.secrets.files) args.push('--ro-bind', '/dev/null', file);
  for (const folder of plan.host.secrets.folders) args.push('--tmpfs', folder, '--remount-ro', folder);
  args.push('--ro-bind', '/sys', '/sys');
  for (const dir of plan.host.python) args.push('--ro-bind', dir, dir);
  args.push(
    '--ro-bind',
    plan.runnerDir,
    SANDBOX_LAYOUT.runner,
    '--bind',
    plan.runFolder,
    SANDBOX_LAYOUT.run,
    '--bind',
    path.join(plan.runFolder, 'tmp'),
    '/tmp',
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--remount-ro',
    '/',
    '--chdir',
    SANDBOX_LAYOUT.run,
    '--setenv',
    'HOME',
    path.posix.join(SANDBOX_LAYOUT.run, 'home'),
    '--setenv',
    'TMPDIR',
    '/tmp',
  );
  if (plan.seccompFd !== undefined) args.push('--seccomp', String(plan.seccompFd));
  args.push('--');
  return args;
}

/** The host's side of the plan: its system links, its secrets, the interpreter's folders outside /usr and /etc. */
export function readHostLayout(pythonFolders: readonly string[]): HostLayout {
  const roots: HostLayout['roots'] = [];
  for (const p of SYSTEM_ROOTS) {
    try {
      const st = lstatSync(p);
      if (st.isSymbolicLink()) roots.push({ path: p, link: readlinkSync(p) });
      else if (st.isDirectory()) roots.push({ path: p });
    } catch {
      // not on this system
    }
  }
  const covered = (dir: string) =>
    ['/usr', '/etc', ...roots.map((r) => r.path)].some((r) => dir === r || dir.startsWith(`${r}/`));
  const python = [...new Set(pythonFolders)]
    .filter((d) => path.isAbsolute(d) && d !== '/' && !covered(d) && existsSync(d))
    .sort()
    // A folder inside another one bound already is bound with it.
    .filter((d, i, all) => !all.slice(0, i).some((o) => d.startsWith(`${o}/`)));
  return {
    roots,
    secrets: {
      files: ETC_SECRETS.filter((f) => existsSync(f)),
      folders: ETC_SECRET_FOLDERS.filter((f) => existsSync(f)),
    },
    python,
  };
}

/** The interpreter's folders: prefixes, the executable's folder, sys.path (without the working directory). */
const PYTHON_FOLDERS =
  'import json, os, sys\n' +
  'dirs = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, os.path.dirname(os.path.realpath(sys.executable))] + sys.path[1:]\n' +
  'print(json.dumps(sorted({os.path.realpath(d) for d in dirs if d and os.path.isdir(d)})))';

export async function readPythonFolders(python: string, run: CommandRunner): Promise<string[]> {
  const r = await run(python, ['-c', PYTHON_FOLDERS], { timeoutMs: 60_000 });
  if (r.exitCode !== 0) {
    throw new JunoError('E_ENV_PYTHON', `cannot list the folders of ${python}: ${r.stderr.trim().split('\n').pop()}`);
  }
  return JSON.parse(r.stdout.trim().split('\n').pop() ?? '[]') as string[];
}

/**
 * bubblewrap's path, once it has shown that it can make the sandbox here
 * (user namespaces allowed); else a JunoError (E_ENV_SANDBOX, exit 3) saying
 * why and what to do.
 */
export async function findBubblewrap(env: NodeJS.ProcessEnv, run: CommandRunner): Promise<string> {
  const bwrap = env.JUNOBENCH_BWRAP ?? findOnPath('bwrap', env.PATH ?? '') ?? '/usr/bin/bwrap';
  if (!existsSync(bwrap)) throw sandboxMissing(`${bwrap} is not installed`);
  const probe = ['--unshare-all', '--unshare-user', '--disable-userns', '--die-with-parent', '--cap-drop', 'ALL'];
  let why: string;
  try {
    const r = await run(bwrap, [...probe, '--ro-bind', '/', '/', '--proc', '/proc', '--dev', '/dev', '--', 'true'], {
      timeoutMs: 30_000,
    });
    if (r.exitCode === 0) return bwrap;
    why = r.stderr.trim().split('\n').pop() || `it exited with code ${r.exitCode}`;
  } catch (e) {
    why = (e as Error).message;
  }
  throw sandboxMissing(`bubblewrap (${bwrap}) cannot make a sandbox: ${why}`);
}

function findOnPath(name: string, searchPath: string): string | undefined {
  for (const dir of searchPath.split(path.delimiter)) {
    if (dir && existsSync(path.join(dir, name))) return path.join(dir, name);
  }
  return undefined;
}

function sandboxMissing(why: string): JunoError {
  return new JunoError('E_ENV_SANDBOX', `the local runtime cannot sandbox notebooks here: ${why}`, {
    hint:
      'install bubblewrap (`sh tools/setup-sandbox.sh`; Debian: apt-get install bubblewrap) on a system that allows ' +
      'unprivileged user namespaces, or use --runtime docker; --unsandboxed runs the notebooks with your own rights',
  });
}
