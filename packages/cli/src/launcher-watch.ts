import { readFileSync } from 'node:fs';

/** What /proc/<pid>/stat says of a process that matters here. */
export interface ProcStat {
  pid: number;
  ppid: number;
  /** Session id: a process whose sid is its pid leads its session (a login shell, a daemon started with setsid). */
  sid: number;
  /** Start time in clock ticks since boot (field 22): a pid reused by another process has another. */
  start: string;
  comm: string;
}

/** Pure: the fields of a /proc/<pid>/stat line, or undefined when it is not one. */
export function parseProcStat(text: string): ProcStat | undefined {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  // The command name (field 2) is in parentheses and may hold spaces and parentheses: count from the last ')'.
  const rest = text
    .slice(close + 2)
    .trim()
    .split(' ');
  const pid = Number(text.slice(0, open).trim());
  const ppid = Number(rest[1]);
  const sid = Number(rest[3]);
  const start = rest[19];
  if (!Number.isInteger(pid) || !Number.isInteger(ppid) || !Number.isInteger(sid) || start === undefined)
    return undefined;
  return { pid, ppid, sid, start, comm: text.slice(open + 1, close) };
}

export function readProcStat(pid: number | 'self'): ProcStat | undefined {
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * Pure: the processes a long-running command lives for — its ancestors below
 * the leader of its session. `npx junobench worker` runs as npx → sh → node:
 * SIGTERM to npx ends npx alone, and the worker must end with it. The session
 * leader (a login shell, a terminal's shell, systemd's service, a container's
 * first process) and what is above it are not watched: a worker started with
 * `setsid`, or left running by a shell that exits, keeps running.
 */
export function planWatchedAncestors(self: ProcStat, read: (pid: number) => ProcStat | undefined): ProcStat[] {
  const out: ProcStat[] = [];
  if (self.sid === self.pid) return out;
  for (let pid = self.ppid, n = 0; pid > 1 && n < 64; n++) {
    const p = read(pid);
    if (!p || p.pid === p.sid) break;
    out.push(p);
    pid = p.ppid;
  }
  return out;
}

/**
 * Call `onGone` once when one of the processes this one was started by (see
 * planWatchedAncestors) ends; checked every `intervalMs`. Linux only (/proc):
 * elsewhere nothing is watched. Returns the way to stop watching.
 */
export function watchLauncher(
  onGone: (launcher: ProcStat) => void,
  options: { intervalMs?: number; read?: (pid: number | 'self') => ProcStat | undefined } = {},
): () => void {
  const read = options.read ?? readProcStat;
  const self = read('self');
  if (!self) return () => undefined;
  const watched = planWatchedAncestors(self, read);
  if (watched.length === 0) return () => undefined;
  const timer = setInterval(() => {
    const gone = watched.find((p) => read(p.pid)?.start !== p.start);
    if (!gone) return;
    clearInterval(timer);
    onGone(gone);
  }, options.intervalMs ?? 1000);
  // Watching must never be what keeps the process alive.
  timer.unref();
  return () => clearInterval(timer);
}
