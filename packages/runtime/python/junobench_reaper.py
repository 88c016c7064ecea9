"""Run a command (the local runtime's runner) so that no process it starts
outlives it: `python junobench_reaper.py PROGRAM ARGS...` runs PROGRAM ARGS....

A notebook can detach a child from its kernel (`subprocess.Popen(...,
start_new_session=True)`, a double fork) and have it ignore SIGTERM: killing
the kernel's process group does not reach it, and when its parents are gone
the system hands it to init, where it ran on after the run. This process is
a child subreaper (prctl PR_SET_CHILD_SUBREAPER): every orphan below it is
handed to it instead, and when the command ends (however: done, killed,
crashed) it kills all its remaining descendants before exiting itself.

It stays out of the command's way: the command is its only direct child,
started with the signal mask and dispositions this process was given (a
kernel, forked or launched, sees no difference); its stdin and stdout are
the command's alone. SIGTERM, SIGINT or SIGHUP to it, or the death of its
own parent (the toolchain), end the command with SIGKILL and everything
below it. It then exits as the command did (the same code, or killed by the
same signal), so the toolchain sees the command's fate.

Not part of the runner (not hashed into images: containers end with their
processes anyway); without PR_SET_CHILD_SUBREAPER (not Linux) it just
becomes the command.
"""

import ctypes
import os
import signal
import sys
import time

PR_SET_CHILD_SUBREAPER = 36
PR_SET_DUMPABLE = 4
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
# How long killing the descendants may take before this process gives up and exits anyway.
KILL_DEADLINE = 10.0


def make_subreaper():
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def descendants(root):
    """Pids of every process below `root` (from /proc: each one's parent)."""
    children = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name) as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(name))
    found, todo = [], [root]
    while todo:
        for pid in children.get(todo.pop(), []):
            found.append(pid)
            todo.append(pid)
    return found


def reap():
    """Collect every child that has ended; True while some child remains."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return False
        if pid == 0:
            return True


def kill_descendants():
    """SIGKILL everything below this process until nothing is left (a process
    forking while it is killed leaves children: they are found next round)."""
    deadline = time.monotonic() + KILL_DEADLINE
    me = os.getpid()
    while time.monotonic() < deadline:
        pids = descendants(me)
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        if not reap() and not pids:
            return
        time.sleep(0.05)


def exit_like(status):
    """End this process as the command ended: its exit code, or its signal."""
    sys.stdout.flush()
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if sig not in (signal.SIGKILL, signal.SIGSTOP):  # their disposition cannot be changed (nor blocked)
            signal.signal(sig, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, [sig])
        os.kill(os.getpid(), sig)
        os._exit(128 + sig)
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 1)


def main(command):
    if not command:
        sys.stderr.write("usage: junobench_reaper.py PROGRAM [ARGS...]\n")
        return 2
    if not make_subreaper():
        os.execvp(command[0], command)
    # The notebooks' processes are below it: none may trace it or open its file descriptors through /proc.
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    parent = os.getppid()
    # Signals are taken synchronously (sigtimedwait): blocked here, and given back to the command as they were.
    watched = list(STOP_SIGNALS) + [signal.SIGCHLD]
    original = signal.pthread_sigmask(signal.SIG_BLOCK, watched)
    pid = os.fork()
    if pid == 0:
        try:
            signal.pthread_sigmask(signal.SIG_SETMASK, original)
            os.execvp(command[0], command)
        finally:
            os._exit(127)
    # The command's stdin and stdout are its own: this process holds no end of them open.
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    status = None
    while status is None:
        info = signal.sigtimedwait(watched, 1.0)
        if info is not None and info.si_signo in STOP_SIGNALS or os.getppid() != parent:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        # Reap whatever ended: the command (its status is ours) and orphans handed to us.
        while True:
            try:
                done, st = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if done == 0:
                break
            if done == pid:
                status = st
    kill_descendants()
    exit_like(status)


if __name__ == "__main__":
    main(sys.argv[1:])
