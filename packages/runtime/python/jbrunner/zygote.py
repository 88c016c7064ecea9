"""The fork server: zygote processes with the kernel stack (and, per set of
prewarm modules, the notebook's libraries) imported, that fork kernels.

A zygote never starts threads or event loops, so forking it is safe. It is
started as `junobench_runner.py zygote SOCKET` by the runner (`Zygotes`), with
the kernels' environment. Each kernel forked from it first restores the
zygote's `ProcessState` snapshot (isolation.py), then becomes an IPython
kernel exactly as `python -m ipykernel_launcher -f FILE` would.

Zygotes and the kernels forked from them live while the runner lives: if it
is killed (watchdog, Ctrl-C, SIGKILL), they exit within a second instead of
lingering, as launched kernels do when their parent dies.
"""

import gc
import importlib
import json
import os
import signal
import socket
import sys
import threading
import time

from .isolation import ProcessState, reseed_like_fresh_import, set_stdin_like_launched
from .protocol import log, set_dumpable

# The runner process that started the base zygote.
RUNNER_PID = None
WATCH_INTERVAL = 1.0
# Top-level packages of the runner itself: a launched kernel has none of them.
RUNNER_PACKAGES = ("jbrunner", "junobench_runner")


def _runner_alive():
    try:
        os.kill(RUNNER_PID, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


def _watch_runner():
    while _runner_alive():
        time.sleep(WATCH_INTERVAL)
    os._exit(0)


def zygote_main(sock_path, runner_dir, nested=False):
    global RUNNER_PID
    RUNNER_PID = os.getppid()
    # The kernels are its children and their code is the notebooks': none may
    # trace it or write its memory, which every later kernel is forked from.
    set_dumpable(False)
    # Like `python -m ipykernel_launcher`: the runner's own folder is not on the path
    # (InteractiveShellApp.init_path puts the working directory back in the kernel).
    sys.path[:] = [p for p in sys.path if p and os.path.abspath(p) != runner_dir]
    # The expensive import every kernel shares.
    importlib.import_module("ipykernel.kernelapp")
    if not nested:
        # Every kernel asks which addresses are this machine's as it loads its
        # connection file (jupyter_client runs `ip addr` once per process: about
        # 20 ms of CPU): asked once here, on the network the kernels are on, the
        # answer is what each of them would get. A nested kernel has a network
        # of its own, so it asks itself.
        importlib.import_module("jupyter_client.localinterfaces").localhost()

    serve_forks(sock_path, [])


def serve_forks(sock_path, modules):
    """Import `modules`, then serve fork requests on a unix socket, forever."""
    for m in modules:
        try:
            __import__(m)
        except BaseException:  # noqa: BLE001 - as a prewarm: the notebook's own import will fail visibly
            pass
    # Copy-on-write: a child's first full garbage collection writes into the
    # header of every object the zygote holds, which copies every page of its
    # heap (~13,000 pages with the ML stack; at this VM's ~90 µs per page
    # fault, 5 s of the notebook's time). Frozen objects are never traversed.
    # A kernel whose notebook uses the gc module unfreezes them first, so it
    # sees exactly what a launched kernel sees (become_kernel).
    gc.freeze()
    # What every child gets back: taken after the imports (their side effects
    # are what a launched kernel that imported them has too), before the
    # zygote's own changes below.
    state = ProcessState()
    # Children are reaped by the system: no zombies to confuse liveness checks.
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    tmp = sock_path + ".tmp"
    srv.bind(tmp)
    srv.listen(64)
    srv.settimeout(WATCH_INTERVAL)
    os.rename(tmp, sock_path)  # appears only once it accepts
    while True:
        try:
            conn, _ = srv.accept()
        except socket.timeout:
            if not _runner_alive():
                break
            continue
        with conn:
            conn.settimeout(30)
            try:
                req = json.loads(conn.makefile("r").readline() or "{}")
            except (OSError, ValueError):
                continue
            op = req.get("op")
            if op == "exit":
                break
            if op not in ("fork-kernel", "fork-zygote"):
                continue
            pid = os.fork()
            if pid == 0:
                try:
                    srv.close()
                    conn.close()
                    problems = state.restore()
                    if problems:
                        log("a forked process could not restore:", "; ".join(problems))
                    if op == "fork-kernel":
                        nested = req.get("nest") is not None
                        if nested:
                            from .nest import enter, nest_spec

                            try:
                                enter(nest_spec(req["nest"], RUNNER_PID))
                            except Exception as e:  # noqa: BLE001 - the runner sees the kernel gone and says so
                                log("the kernel's sandbox could not be made:", e)
                                raise
                        become_kernel(req["connection_file"], req["cwd"], req.get("args") or [], req.get("unfreeze", True), nested)
                    else:
                        serve_forks(req["socket"], req["modules"])
                finally:
                    os._exit(0)
            try:
                conn.sendall((json.dumps({"pid": pid}) + "\n").encode())
            except OSError:
                pass
    srv.close()
    os._exit(0)


def become_kernel(connection_file, cwd, args=(), unfreeze=True, nested=False):
    """In a forked child: become an IPython kernel exactly as `python -m
    ipykernel_launcher -f <file> <args>` started by jupyter_client would, with
    its own session, stdin and working directory. `unfreeze`: give the
    zygote's objects back to the garbage collector (the notebook uses gc)."""
    try:
        if unfreeze:
            gc.unfreeze()
        os.setsid()
        # A launched kernel is dumpable (execve made it so); the zygote is not.
        set_dumpable(True)
        set_stdin_like_launched()
        os.chdir(cwd)
        # `python -m ipykernel_launcher` starts with the working directory
        # first on sys.path: a notebook imports its own helper modules from there.
        sys.path.insert(0, os.getcwd())
        # As a launched kernel sees it: its parent is the runner.
        os.environ["JPY_PARENT_PID"] = str(RUNNER_PID)
        # The code running now keeps its globals; the notebook sees no runner module.
        for name in [m for m in sys.modules if m.split(".")[0] in RUNNER_PACKAGES]:
            del sys.modules[name]
        # Exit with the runner, not with the zygote: a notebook that kills its
        # parent process must not take the kernels forked next to it along.
        # Nested, the runner is not in the kernel's PID namespace: its keeper watches it (nest.py).
        if not nested:
            threading.Thread(target=_watch_runner, name="junobench-runner-watch", daemon=True).start()
        reseed_like_fresh_import(sys.modules)
        import importlib.util

        launcher = importlib.util.find_spec("ipykernel_launcher")
        sys.argv = [launcher.origin if launcher else "ipykernel_launcher", "-f", connection_file, *args]
        from ipykernel.kernelapp import IPKernelApp

        # ipykernel read JPY_PARENT_PID when the zygote imported it (unset
        # then), so it starts no parent poller of its own: the thread above is it.
        IPKernelApp.launch_instance(argv=sys.argv[1:])
    except BaseException as e:  # noqa: BLE001
        log("forked kernel failed:", repr(e))
    finally:
        os._exit(0)


class ZygoteGone(Exception):
    pass


class Zygote:
    """The runner's handle on one zygote process."""

    def __init__(self, sock_path, pid, popen=None):
        self.sock_path = sock_path
        self.pid = pid
        self.popen = popen  # set for the base zygote, our own child

    def alive(self):
        if self.popen is not None:
            return self.popen.poll() is None
        # Forked zygotes are children of the base zygote, which lets the
        # system reap them: a dead one has no pid any more.
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            pass
        return True

    def _request(self, req, timeout):
        deadline = time.monotonic() + timeout
        while True:
            # A notebook can kill its zygote (it is the kernel's parent):
            # fail now rather than wait for a socket that never answers.
            if not self.alive():
                raise ZygoteGone("the kernel zygote (pid %d) is gone" % self.pid)
            try:
                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as c:
                    c.settimeout(max(1.0, deadline - time.monotonic()))
                    c.connect(self.sock_path)
                    c.sendall((json.dumps(req) + "\n").encode())
                    return json.loads(c.makefile("r").readline())
            except (FileNotFoundError, ConnectionRefusedError, ConnectionResetError, BrokenPipeError, ValueError):
                if time.monotonic() >= deadline:
                    raise TimeoutError("the kernel zygote did not come up in time")
                time.sleep(0.05)

    def fork_kernel(self, connection_file, cwd, args=(), unfreeze=True, timeout=120, nest=None):
        req = {"op": "fork-kernel", "connection_file": connection_file, "cwd": cwd, "args": list(args), "unfreeze": unfreeze}
        if nest is not None:
            req["nest"] = nest
        return self._request(req, timeout)["pid"]

    def fork_zygote(self, sock_path, modules, timeout=120):
        return Zygote(sock_path, self._request({"op": "fork-zygote", "socket": sock_path, "modules": modules}, timeout)["pid"])

    def stop(self):
        try:
            os.kill(self.pid, signal.SIGKILL)
        except OSError:
            pass


class Zygotes:
    """One base zygote (the kernel stack imported) and, forked from it, one per
    set of prewarm modules (imported once, shared by every kernel that needs
    the same set: a notebook's reproduced and fixed versions, repeats, other
    instances with the same requirements)."""

    def __init__(self, entry, env, tmp_root=None, nested=False):
        import subprocess
        import tempfile

        self.dir = tempfile.mkdtemp(prefix="zygotes-", dir=tmp_root)
        base_sock = os.path.join(self.dir, "base.sock")
        # stdout goes to our stderr: kernels' low-level output must never mix with the protocol.
        self.proc = subprocess.Popen(
            [sys.executable, entry, "zygote", base_sock] + (["--nested"] if nested else []),
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=sys.stderr,
            start_new_session=True,
        )
        self.base = Zygote(base_sock, self.proc.pid, popen=self.proc)
        self.by_modules = {frozenset(): self.base}
        self.forked = 0  # zygotes forked so far: names their sockets
        self.lock = threading.Lock()

    def get(self, modules):
        """The zygote for this module set (forked on first use), or None when
        kernels must be started the ordinary way (the base zygote is gone)."""
        key = frozenset(modules)
        with self.lock:
            if not self.base.alive():
                return None
            z = self.by_modules.get(key)
            if z is not None and not z.alive():
                log("a kernel zygote died; forking a new one")
                for k in [k for k, v in self.by_modules.items() if v is not self.base and not v.alive()]:
                    del self.by_modules[k]
                z = None
            if z is None:
                if not key:
                    z = self.base
                else:
                    # Fork from the zygote that already has the most of these
                    # modules: each module is imported once per run, not once
                    # per set that contains it.
                    parent_key = max((k for k in self.by_modules if k <= key), key=len, default=frozenset())
                    parent = self.by_modules.get(parent_key, self.base)
                    missing = [m for m in modules if m not in parent_key]
                    self.forked += 1
                    z = parent.fork_zygote(os.path.join(self.dir, "z%d.sock" % self.forked), missing)
                self.by_modules[key] = z
            return z

    def stop(self):
        for z in self.by_modules.values():
            z.stop()
        try:
            self.proc.kill()
            self.proc.wait(timeout=5)
        except Exception:  # noqa: BLE001
            pass
        import shutil

        shutil.rmtree(self.dir, ignore_errors=True)
