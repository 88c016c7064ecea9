// A notebook cannot make namespaces in the sandbox. Podman's default seccomp
// profile lets any process call unshare/clone with CLONE_NEWUSER: the
// notebook became root of a user namespace of its own (`unshare -Ur id` said
// uid=0), with the mounts, network namespaces and kernel interfaces that come
// with it. Our profile (seccomp-profile.ts) denies that, and what notebooks
// do every day (threads, fork, subprocess, multiprocessing) keeps working.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeCodeNotebook } from '../test-helpers/code-notebook.js';
import { useSandboxSuite } from '../test-helpers/sandbox-runtime.js';

const sandbox = useSandboxSuite('namespaces');

// Each cell asserts: a cell that raises names what the sandbox let through (or broke).
const DENIED = [
  'import ctypes, errno, os, subprocess',
  'libc = ctypes.CDLL(None, use_errno=True)',
  'CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x20000, 0x4000000, 0x8000000, 0x10000000, 0x20000000, 0x40000000',
  'p = subprocess.run(["unshare", "-Ur", "id"], capture_output=True, text=True)',
  'assert p.returncode != 0 and "Operation not permitted" in p.stderr, f"unshare -Ur id: {p.returncode} {p.stdout!r} {p.stderr!r}"',
  'p = subprocess.run(["unshare", "-n", "true"], capture_output=True, text=True)',
  'assert p.returncode != 0, f"unshare -n: {p.returncode} {p.stderr!r}"',
  'for flag in (CLONE_NEWUSER, CLONE_NEWUSER | CLONE_NEWNS, CLONE_NEWNET, CLONE_NEWNS, CLONE_NEWPID, CLONE_NEWUTS, CLONE_NEWIPC):',
  '    r = libc.unshare(flag)',
  '    assert r == -1 and ctypes.get_errno() == errno.EPERM, f"unshare({flag:#x}) = {r}, errno {ctypes.get_errno()}"',
  'if hasattr(os, "unshare"):',
  '    try:',
  '        os.unshare(os.CLONE_NEWUSER)',
  '        raise AssertionError("os.unshare(CLONE_NEWUSER) succeeded")',
  '    except PermissionError:',
  '        pass',
  '# A raw clone(CLONE_NEWUSER | SIGCHLD): x86-64 system call 56, aarch64 220.',
  'SYS_clone = {"x86_64": 56, "aarch64": 220}[os.uname().machine]',
  'r = libc.syscall(SYS_clone, CLONE_NEWUSER | 17, 0, 0, 0, 0)',
  'if r == 0:',
  '    os._exit(0)',
  'assert r == -1 and ctypes.get_errno() == errno.EPERM, f"clone(CLONE_NEWUSER) = {r}, errno {ctypes.get_errno()}"',
  '# clone3 hides its flags from seccomp: it must say "not implemented" whatever they are.',
  'SYS_clone3 = 435',
  'r = libc.syscall(SYS_clone3, 0, 0)',
  'assert r == -1 and ctypes.get_errno() == errno.ENOSYS, f"clone3 = {r}, errno {ctypes.get_errno()}"',
  'print("namespaces denied")',
].join('\n');

const ALLOWED = [
  'import concurrent.futures, multiprocessing, os, subprocess, threading',
  'with concurrent.futures.ThreadPoolExecutor(8) as ex:',
  '    assert sorted(ex.map(lambda i: i * i, range(32))) == [i * i for i in range(32)]',
  'assert threading.active_count() >= 1',
  'pid = os.fork()',
  'if pid == 0:',
  '    os._exit(7)',
  'assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 7',
  'assert subprocess.run(["sh", "-c", "echo child; exit 3"], capture_output=True, text=True).returncode == 3',
  'assert subprocess.check_output(["python3", "-c", "import threading; t = threading.Thread(target=print, args=(1,)); t.start(); t.join()"], text=True) == "1\\n"',
  "# A builtin: spawn and forkserver workers cannot import functions defined in a kernel's __main__ (with or without seccomp).",
  'for method in ("fork", "forkserver", "spawn"):',
  '    with multiprocessing.get_context(method).Pool(2) as pool:',
  '        assert pool.map(abs, range(-3, 3)) == [3, 2, 1, 0, 1, 2], method',
  'print("everyday processes and threads work")',
].join('\n');

describe('container runtime: namespaces', () => {
  it('a notebook cannot create a user (or any other) namespace, while threads, fork, subprocess and multiprocessing work', async () => {
    const dir = await writeCodeNotebook(path.join(sandbox.tmp, 'ns'), [DENIED, ALLOWED]);
    const [r] = await sandbox.runtime().run([
      {
        id: 'namespaces',
        instanceDir: dir,
        notebook: 'notebook.ipynb',
        cells: [0, 1],
        cellTimeoutSeconds: 240,
        timeoutSeconds: 480,
      },
    ]);
    // A failed assertion's text (ename: evalue) says what got through.
    expect({
      status: r!.status,
      reason: r!.reason,
      cells: r!.cells.map((c) => [c.status, c.ename && `${c.ename}: ${c.evalue}`]),
    }).toEqual({
      status: 'completed',
      reason: undefined,
      cells: [
        ['ok', undefined],
        ['ok', undefined],
      ],
    });
  }, 900_000);
});
