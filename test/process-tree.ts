// The processes a CLI run started, for tests that interrupt it. A notebook's processes run in the local
// runtime's sandbox (a pid namespace of its own, paths of the sandbox in their arguments), so they are found by
// descent from the CLI's process, not by a path in their command lines.
import { execFileSync } from 'node:child_process';

export interface ProcessInfo {
  pid: number;
  ppid: number;
  args: string;
}

function listProcesses(): ProcessInfo[] {
  return execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((l) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), args: m[3]! }));
}

/** Every live descendant of `root` (not `root` itself). */
export function descendantsOf(root: number): ProcessInfo[] {
  const all = listProcesses();
  const found: ProcessInfo[] = [];
  let frontier = [root];
  while (frontier.length > 0) {
    const next = all.filter((p) => frontier.includes(p.ppid));
    found.push(...next);
    frontier = next.map((p) => p.pid);
  }
  return found;
}

/** Those of `pids` still alive, with their arguments (ps's view: a zombie counts as gone). */
export function stillAlive(pids: readonly number[]): ProcessInfo[] {
  const all = execFileSync('ps', ['-eo', 'pid=,stat=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((l) => /^\s*(\d+)\s+(\S+)\s+(.*)$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null && !m[2]!.startsWith('Z'));
  return all.filter((m) => pids.includes(Number(m[1]))).map((m) => ({ pid: Number(m[1]), ppid: 0, args: m[3]! }));
}

/**
 * The kernels under `root`: kernels the runner launched (ipykernel_launcher), and processes forked from a zygote (a
 * child of a zygote with the zygote's own arguments; a forked module zygote counts too, and forks its kernel at once).
 * Not a mere mention of ipykernel: the runtime's checks of the interpreter name it too. Not every child of a zygote: a
 * zygote's imports run short-lived commands of their own (matplotlib's `fc-list`), with the zygote's arguments until
 * they exec.
 */
function kernelPids(root: number): Set<number> {
  const tree = descendantsOf(root);
  const zygote = (p: ProcessInfo) => /junobench_runner\.py zygote/.test(p.args);
  const zygotes = new Set(tree.filter(zygote).map((p) => p.pid));
  return new Set(
    tree.filter((p) => /ipykernel_launcher/.test(p.args) || (zygotes.has(p.ppid) && zygote(p))).map((p) => p.pid),
  );
}

/**
 * Waits until a kernel runs under `root`: the same kernel process seen in two looks 0.5 s apart, so that a process
 * between its fork and its exec is not taken for one. True when found before `timeoutMs`.
 */
export async function waitForKernel(root: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  let seen = new Set<number>();
  while (Date.now() < deadline) {
    const now = kernelPids(root);
    if ([...now].some((pid) => seen.has(pid))) return true;
    seen = now;
    await new Promise((r) => setTimeout(r, now.size > 0 ? 500 : 200));
  }
  return false;
}
