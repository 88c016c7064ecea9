import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * One temporary folder per runtime, holding everything a run leaves on disk:
 * scratch copies of instances, kernel connection files (they hold the
 * kernel's signing key) and zygote sockets. Removed when the runtime closes or
 * the process exits; a folder whose owner died without either (SIGKILL, power
 * loss) is swept by the next runtime created on the same root.
 */
export interface RunFolder {
  readonly dir: string;
  /** Remove the folder now (idempotent); what cannot go now keeps its owner file for the next runtime's sweep. */
  remove(): void;
}

export const RUN_FOLDER_PREFIX = 'junobench-';
const OWNER_FILE = 'owner.json';

interface Owner {
  pid: number;
  /** The owner's start time in clock ticks since boot (/proc/<pid>/stat field 22): a reused pid is not the owner. */
  start?: string;
}

/**
 * Create the folder under `root` and make sure it goes when this process
 * exits. `anonymous`: a name that tells nothing of this process (what a
 * sandbox may see of a path, e.g. in /proc/self/mountinfo); its owner file
 * still lets a later run sweep it.
 */
export function createRunFolder(
  root: string,
  options: {
    anonymous?: boolean;
    /** At exit, before the folder goes: stop what still writes in it (a removal racing a writer fails). */
    beforeExitRemoval?: () => void;
  } = {},
): RunFolder {
  const dir = mkdtempSync(
    path.join(root, options.anonymous ? `${RUN_FOLDER_PREFIX}s-` : `${RUN_FOLDER_PREFIX}${process.pid}-`),
  );
  const owner: Owner = { pid: process.pid, ...(startTimeOf(process.pid) ? { start: startTimeOf(process.pid)! } : {}) };
  writeFileSync(path.join(dir, OWNER_FILE), JSON.stringify(owner));
  let removed = false;
  const remove = () => {
    if (removed) return;
    removed = true;
    process.off('exit', atExit);
    removeFolder(dir);
  };
  const atExit = () => {
    try {
      options.beforeExitRemoval?.();
    } finally {
      remove();
    }
  };
  process.on('exit', atExit);
  return { dir, remove };
}

/**
 * Remove a run folder: its contents, then its owner file, then the folder. A
 * process of the run that is still dying may add a file mid-removal
 * (ENOTEMPTY): each removal is retried, and a folder that still cannot go
 * keeps its owner file, so the next runtime's sweep takes it.
 *
 * The retries wait 50, 100, … 600 ms (about 4 s in all, and only while files
 * keep appearing): at Ctrl-C on a loaded machine a runner told to stop took
 * longer than the 1 s that 6 retries gave it, and its folder stayed behind.
 */
function removeFolder(dir: string): void {
  const retry = { recursive: true, force: true, maxRetries: 12, retryDelay: 50 } as const;
  try {
    for (const name of readdirSync(dir)) if (name !== OWNER_FILE) rmSync(path.join(dir, name), retry);
    rmSync(dir, retry);
  } catch {
    // Left to the sweep (see above); nothing here is worth failing a command that has finished its work.
  }
}

/**
 * Remove the run folders under `root` whose owner process is gone. Returns
 * the folders removed. Folders without an owner file are left alone (they
 * may be half-created by a live process).
 */
export function sweepStaleRunFolders(root: string, isOwnerAlive: (owner: Owner) => boolean = ownerAlive): string[] {
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!name.startsWith(RUN_FOLDER_PREFIX) || !/^junobench-(\d+|s)-/.test(name)) continue;
    const dir = path.join(root, name);
    let owner: Owner;
    try {
      owner = JSON.parse(readFileSync(path.join(dir, OWNER_FILE), 'utf8')) as Owner;
    } catch {
      continue;
    }
    if (typeof owner.pid !== 'number' || isOwnerAlive(owner)) continue;
    rmSync(dir, { recursive: true, force: true });
    removed.push(dir);
  }
  return removed;
}

/** This process as an owner: pid and start time, as `<host>:<pid>:<start>` for container labels. */
export function currentOwner(): string {
  return `${os.hostname()}:${process.pid}:${startTimeOf(process.pid) ?? ''}`;
}

/**
 * Whether the owner named by a `currentOwner()` value is gone: it ran on this
 * host and its process no longer exists (or its pid was reused). An owner on
 * another host is never declared gone.
 */
export function isOwnerGone(value: string): boolean {
  const m = /^(.*):(\d+):(\d*)$/.exec(value);
  if (!m || m[1] !== os.hostname()) return false;
  return !ownerAlive({ pid: Number(m[2]), ...(m[3] ? { start: m[3] } : {}) });
}

function ownerAlive(owner: Owner): boolean {
  try {
    process.kill(owner.pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  // Alive, unless the pid now belongs to another process.
  const start = startTimeOf(owner.pid);
  return !(owner.start && start && start !== owner.start);
}

function startTimeOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}
