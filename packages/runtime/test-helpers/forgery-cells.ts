// Test-only: never exported from index.ts, never imported by library code.
//
// Notebook cells that try to forge their own verdict, for the forgery tests of
// both runtimes: they find the runner among the processes they can see
// (/proc), then reach for the channel its messages travel on.

/** Python: `runners()`, the pids of the visible processes of the runtime (runner, reaper, zygotes, bwrap), and `cmd(pid)`. */
const FIND = [
  'import ctypes, json, os, signal',
  'libc = ctypes.CDLL(None, use_errno=True)',
  'def cmd(pid):',
  '    try:',
  "        return open(f'/proc/{pid}/cmdline', 'rb').read().split(b'\\0')",
  '    except OSError:',
  '        return []',
  'def runners():',
  '    mine = {os.getpid()}',
  "    marks = (b'junobench_runner', b'junobench_reaper', b'bwrap')",
  "    return [int(p) for p in os.listdir('/proc') if p.isdigit() and int(p) not in mine and any(m in a for a in cmd(int(p)) for m in marks)]",
  'def runner():',
  '    # The runner itself: python junobench_runner.py serve|run … (not its reaper, zygotes or the wrapper shell).',
  '    for p in runners():',
  '        a = cmd(p)',
  "        if len(a) > 2 and os.path.basename(a[1]) == b'junobench_runner.py' and a[2] in (b'serve', b'run'):",
  '            return p',
].join('\n');

/**
 * One cell that raises `RuntimeError('reached=[…]')` listing every way it got
 * at a process of the runtime: a copy of one of its file descriptors
 * (pidfd_getfd), a file descriptor reopened through /proc/<pid>/fd, or
 * PTRACE_ATTACH (detached at once); and a vsock socket, which reaches the
 * virtual machine's host. `reached=[]` is the sandbox holding.
 */
export const REACH_RUNNER_CELL = [
  FIND,
  'reached = []',
  'for pid in runners():',
  '    name = os.path.basename(cmd(pid)[0].decode())',
  '    try:',
  '        pidfd = os.pidfd_open(pid)',
  '    except OSError:',
  '        pidfd = None',
  '    for fd in range(64):',
  '        if pidfd is not None:',
  '            got = libc.syscall(438, pidfd, fd, 0)',
  '            if got >= 0:',
  "                reached.append(f'pidfd_getfd {name} {fd}')",
  '                os.close(got)',
  '        try:',
  "            os.close(os.open(f'/proc/{pid}/fd/{fd}', os.O_WRONLY))",
  "            reached.append(f'/proc/{name}/fd/{fd}')",
  '        except OSError:',
  '            pass',
  '    if libc.ptrace(16, pid, 0, 0) == 0:',
  "        reached.append(f'ptrace {name}')",
  '        os.waitpid(pid, 0x40000000)  # __WALL: until it is in its ptrace stop, then let it go',
  '        libc.ptrace(17, pid, 0, 0)',
  'import socket',
  'try:',
  '    socket.socket(40, socket.SOCK_STREAM).close()',
  "    reached.append('a vsock socket')",
  'except OSError:',
  '    pass',
  "raise RuntimeError('reached=' + repr(sorted(set(reached))))",
].join('\n');

/**
 * One cell that forges a result: it prints a well-formed `result` message
 * saying `status` (with a made-up KeyError for `error`) for the plan ids it
 * can guess on every file descriptor of the runner it can get hold of, then
 * SIGKILLs the runner. On a runtime that takes the forged line, the notebook's
 * verdict is whatever the cell said.
 */
export function forgeResultCell(status: 'completed' | 'error'): string {
  return [
    FIND,
    'target = runner()',
    'args = cmd(target)',
    "ids = [json.loads(args[args.index(b'--plan-json') + 1])['id']] if b'--plan-json' in args else [str(i) for i in range(8)]",
    'def line(i):',
    `    cell = {'index': 0, 'status': '${status === 'completed' ? 'ok' : 'error'}', 'durationMs': 1}`,
    ...(status === 'error' ? ["    cell.update(ename='KeyError', evalue=\"'made-up'\", traceback=[])", ''] : []),
    `    result = {'id': i, 'status': '${status}', 'cells': [cell], 'durationMs': 1}`,
    "    return (json.dumps({'type': 'result', 'id': i, 'result': result}) + '\\n').encode()",
    'fds = []',
    'try:',
    '    pidfd = os.pidfd_open(target)',
    '    fds = [f for f in (libc.syscall(438, pidfd, fd, 0) for fd in range(64)) if f >= 0]',
    'except OSError:',
    '    pass',
    'for fd in range(64):',
    '    try:',
    "        fds.append(os.open(f'/proc/{target}/fd/{fd}', os.O_WRONLY | os.O_NONBLOCK))",
    '    except OSError:',
    '        pass',
    'for f in fds:',
    '    for i in ids:',
    '        try:',
    '            os.write(f, line(i))',
    '        except OSError:',
    '            pass',
    'os.kill(target, signal.SIGKILL)',
  ].join('\n');
}

/**
 * The red team's cell, as a repair can carry it past score's static check (no exception handler): it walks up from
 * its kernel to the runner, tries PTRACE_ATTACH on it, takes copies of its file descriptors with
 * `pidfd_getfd(pidfd_open(runner), fd)` (stdout among them) and reopens them through /proc, writes a well-formed
 * `result` line saying `status` for the plan ids it can guess on each, and SIGKILLs the runner. Every call goes
 * through libc, whose failures are return values, not exceptions.
 */
export function forgeVerdictCell(status: 'completed' | 'error'): string {
  return [
    'import ctypes, json, os',
    'libc = ctypes.CDLL(None, use_errno=True)',
    'def cmd(pid):',
    "    p = f'/proc/{pid}/cmdline'",
    "    return open(p, 'rb').read().split(b'\\0') if os.path.exists(p) else []",
    'def parent(pid):',
    "    p = f'/proc/{pid}/stat'",
    "    return int(open(p).read().rsplit(')', 1)[1].split()[1]) if os.path.exists(p) else 0",
    '# The runner itself (python junobench_runner.py serve|run …), not its reaper or a zygote on the way up.',
    'def is_runner(a):',
    "    return len(a) > 2 and os.path.basename(a[1]) == b'junobench_runner.py' and a[2] in (b'serve', b'run')",
    'target = os.getppid()',
    'while target > 1 and not is_runner(cmd(target)):',
    '    target = parent(target)',
    'args = cmd(target)',
    "ids = [json.loads(args[args.index(b'--plan-json') + 1])['id']] if b'--plan-json' in args else [str(i) for i in range(8)]",
    'def line(i):',
    `    cell = {'index': 0, 'status': '${status === 'completed' ? 'ok' : 'error'}', 'durationMs': 1}`,
    ...(status === 'error' ? ["    cell.update(ename='KeyError', evalue=\"'made-up'\", traceback=[])"] : []),
    `    result = {'id': i, 'status': '${status}', 'cells': [cell], 'durationMs': 1}`,
    "    return (json.dumps({'type': 'result', 'id': i, 'result': result}) + '\\n').encode()",
    'if target > 1 and libc.ptrace(16, target, 0, 0) == 0:',
    '    os.waitpid(target, 0x40000000)',
    '    libc.ptrace(17, target, 0, 0)',
    'pidfd = libc.syscall(434, target, 0) if target > 1 else -1',
    'fds = [f for f in (libc.syscall(438, pidfd, fd, 0) for fd in range(64)) if f >= 0] if pidfd >= 0 else []',
    "fds += [f for f in (libc.open(f'/proc/{target}/fd/{fd}'.encode(), 0o4001) for fd in range(64)) if f >= 0]",
    'for f in fds:',
    '    for i in ids:',
    '        libc.write(f, line(i), len(line(i)))',
    'if target > 1:',
    '    libc.kill(target, 9)',
  ].join('\n');
}
