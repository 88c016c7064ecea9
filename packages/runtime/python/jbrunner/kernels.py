"""One fresh kernel per plan: forked from a zygote, or launched the ordinary
way (jupyter_client's KernelManager), possibly ahead of the plan's turn."""

import os
import queue
import re
import signal
import sys
import tempfile
import time

from .protocol import log, now_ms

# How often a waiting loop checks that the kernel process is still alive.
POLL = 0.2
MODULE_RE = re.compile(r"^[A-Za-z_][\w.]*$")
# Arguments every kernel gets after `-f FILE`, forked or launched alike.
# Its input history lives in memory: it still backs `In`, `%history` and
# `%rerun` for the notebook's own session, but nothing is written to the
# home's history.sqlite. That file is shared by every kernel of a run (the
# sandbox has one home), so a notebook could read the code of the ones run
# before it there (`%history -g`: a fixed version, another repair). (Its
# commit at each kernel start is an fsync, but verify's kernel start did not
# measurably change without it: 3 rounds of 30 notebooks each way.)
KERNEL_ARGS = ("--HistoryManager.hist_file=:memory:",)


class KernelDied(Exception):
    pass


class KernelContext:
    """What every kernel of one runner shares: the kernels' environment, the
    folder for connection files (they hold the kernel's signing key), and the
    zygotes (None: launch every kernel), and the nested sandbox's options
    (nest.py; None: kernels are not nested)."""

    def __init__(self, env, tmp_dir=None, zygotes=None, nest=None):
        self.env = env
        self.tmp_dir = tmp_dir
        self.zygotes = zygotes
        self.nest = nest


# The gc module named in code: `import gc`, `gc.collect()`, `from gc import …`, `__import__("gc")`.
GC_RE = re.compile(r"(?<![\w.])gc\b")


def uses_gc(plan):
    """Whether the plan's notebook may look at the garbage collector (over-
    approximated from its source; True when it cannot be read)."""
    try:
        with open(plan["notebook"], encoding="utf-8") as f:
            return bool(GC_RE.search(f.read()))
    except (OSError, ValueError, KeyError):
        return True


def prewarm_modules(plan):
    return [m for m in plan.get("prewarm") or [] if isinstance(m, str) and MODULE_RE.match(m)]


def _new_connection_file(tmp_dir):
    fd, fname = tempfile.mkstemp(prefix="kernel-", suffix=".json", dir=tmp_dir)
    os.close(fd)
    return fname


def process_times(pid):
    """(CPU ms of the process and its reaped children, minor page faults), or None."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    # Fields after the command: state is [0]; minflt [7], utime [11], stime [12], cutime [13], cstime [14].
    ticks = os.sysconf("SC_CLK_TCK")
    cpu = sum(int(fields[i]) for i in (11, 12, 13, 14)) * 1000.0 / ticks
    return cpu, int(fields[7])


class SpawnedProcess:
    """A kernel process started the ordinary way: jupyter_client's KernelManager."""

    def __init__(self, plan, ctx):
        from jupyter_client.manager import KernelManager

        self.km = KernelManager(kernel_name="python3")
        if ctx.tmp_dir:
            self.km.connection_file = _new_connection_file(ctx.tmp_dir)
        # The kernel's own stdout goes to our stderr, as a forked kernel's does:
        # low-level output must never mix with the protocol on our stdout.
        self.km.start_kernel(
            cwd=plan["cwd"], env=dict(ctx.env), stdout=sys.stderr.fileno(), extra_arguments=list(KERNEL_ARGS)
        )

    @property
    def pid(self):
        proc = getattr(getattr(self.km, "provisioner", None), "process", None) or getattr(self.km, "kernel", None)
        return getattr(proc, "pid", None)

    def client(self):
        return self.km.client()

    def is_alive(self):
        return self.km.is_alive()

    def interrupt(self):
        self.km.interrupt_kernel()

    def kill(self):
        try:
            # The kernel is thrown away: kill it rather than wait for a polite exit.
            self.km.shutdown_kernel(now=True)
        except Exception:  # noqa: BLE001
            try:
                self.km.kill_kernel()
            except Exception:  # noqa: BLE001
                pass
        try:
            self.km.cleanup_connection_file()
        except Exception:  # noqa: BLE001
            pass


class ForkedProcess:
    """A kernel process forked from a zygote that has the kernel stack (and the
    plan's prewarm modules) imported already: start-up costs a fork, not an
    interpreter start and a second of imports. Still a fresh process with a
    fresh namespace per notebook."""

    def __init__(self, plan, zygote, ctx):
        from jupyter_client.connect import write_connection_file

        self.nested = ctx.nest is not None
        self.conn_dir = None
        if self.nested:
            # A folder of its own, the only one of the runner's the kernel sees (its sockets are
            # files there: ZeroMQ's ipc transport, as the kernel has no network of the runner's).
            self.conn_dir = tempfile.mkdtemp(prefix="kernel-", dir=ctx.tmp_dir)
            fname = os.path.join(self.conn_dir, "kernel.json")
            self.connection_file, _ = write_connection_file(fname=fname, transport="ipc", ip=os.path.join(self.conn_dir, "k"))
        else:
            self.connection_file, _ = write_connection_file(fname=_new_connection_file(ctx.tmp_dir), ip="127.0.0.1")
        nest = dict(ctx.nest, cwd=plan["cwd"], conn_dir=self.conn_dir) if self.nested else None
        # Nested, the kernel works in its own copy of the scratch folder (nest.py: `workdir`).
        cwd = (ctx.nest.get("workdir") or plan["cwd"]) if self.nested else plan["cwd"]
        try:
            self.pid = zygote.fork_kernel(self.connection_file, cwd, list(KERNEL_ARGS), unfreeze=uses_gc(plan), nest=nest)
        except BaseException:
            self._remove_connection_file()
            raise
        self._kernel_pid = None

    @property
    def kernel_pid(self):
        """The kernel itself: in a nested sandbox, `pid` is its keeper (nest.py)."""
        if not self.nested:
            return self.pid
        if self._kernel_pid is None:
            from .nest import kernel_pid

            self._kernel_pid = kernel_pid(self.pid)
        return self._kernel_pid

    def client(self):
        from jupyter_client.blocking import BlockingKernelClient

        kc = BlockingKernelClient(connection_file=self.connection_file)
        kc.load_connection_file()
        return kc

    def is_alive(self):
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        try:
            with open("/proc/%d/stat" % self.pid) as f:
                return f.read().rsplit(")", 1)[1].split()[0] != "Z"
        except OSError:
            return True

    def interrupt(self):
        pid = self.kernel_pid
        if pid is not None:
            os.kill(pid, signal.SIGINT)

    def kill(self):
        # Nested: the keeper's death ends the sandbox's namespace and every process in it.
        # Otherwise the kernel leads its own session: kill it and whatever it started.
        for kill in (lambda: os.killpg(self.pid, signal.SIGKILL), lambda: os.kill(self.pid, signal.SIGKILL)):
            try:
                kill()
                break
            except OSError:
                pass
        self._remove_connection_file()

    def _remove_connection_file(self):
        try:
            os.unlink(self.connection_file)
        except OSError:
            pass
        if self.conn_dir:
            import shutil

            shutil.rmtree(self.conn_dir, ignore_errors=True)


class Kernel:
    """A fresh kernel for one plan, possibly started ahead of its turn.

    `kind` is what the result reports: "forked", "launched" (the runner does
    not fork), or "launched-after-failed-fork" (it meant to, and could not)."""

    def __init__(self, plan, ctx, fork=True):
        self.plan = plan
        self.phases = {}
        t0 = now_ms()
        self.mods = prewarm_modules(plan)
        proc = None
        self.kind = "launched"
        if ctx.zygotes is not None:
            self.kind = "launched-after-failed-fork"
            if fork:
                try:
                    zygote = ctx.zygotes.get(self.mods)
                    if zygote is not None:
                        proc = ForkedProcess(plan, zygote, ctx)
                        self.kind = "forked"
                except Exception as e:  # noqa: BLE001 - the ordinary way still works
                    if ctx.nest is not None:
                        raise KernelDied("could not fork a kernel into its sandbox: %s" % e)
                    log("could not fork a kernel for", plan.get("id"), "-", e, "- launching one")
        if proc is None and ctx.nest is not None:
            # A launched kernel would run outside any sandbox of its own: never in a nested runtime.
            raise KernelDied("the kernel zygote is gone: no kernel can be forked into its sandbox")
        if proc is None:
            proc = SpawnedProcess(plan, ctx)
        self.proc = proc
        self.phases["startMs"] = round(now_ms() - t0, 1)
        self.started_at = now_ms()
        self.kc = proc.client()
        self.kc.start_channels()
        self.ready = False
        # Requests are queued by ZeroMQ until the kernel binds its sockets:
        # kernel_info's reply proves the kernel is up; the silent import that
        # follows (sys.modules only: nothing bound in the user namespace, no
        # history, execution counts untouched) has the notebook's heavy imports
        # done before its first cell (in a forked kernel they are there already:
        # the import is then a no-op).
        self.ready_id = self.kc.kernel_info()
        self.import_id = None
        if self.mods:
            code = "\n".join("try:\n    __import__(%r)\nexcept BaseException:\n    pass" % m for m in self.mods)
            self.import_id = self.kc.execute(code, silent=True, store_history=False)

    @property
    def pid(self):
        """The kernel process (what its CPU time is read from)."""
        return getattr(self.proc, "kernel_pid", None) or getattr(self.proc, "pid", None)

    def wait_ready(self, timeout):
        """Until the kernel answered, its prewarm imports are done and its iopub
        channel is connected. Raises KernelDied or TimeoutError."""
        if self.ready:
            return
        deadline = time.monotonic() + timeout
        waiting = {self.ready_id} | ({self.import_id} if self.import_id else set())
        while waiting:
            if time.monotonic() >= deadline:
                raise TimeoutError("the kernel did not become ready within %.0f s" % timeout)
            if not self.proc.is_alive():
                raise KernelDied("the kernel process exited during start-up")
            try:
                msg = self.kc.get_shell_msg(timeout=POLL)
            except queue.Empty:
                continue
            parent = msg.get("parent_header", {}).get("msg_id")
            if parent == self.ready_id and parent in waiting:
                self.phases["readyMs"] = round(now_ms() - self.started_at, 1)
            elif parent == self.import_id and parent in waiting:
                self.phases["importsMs"] = round(now_ms() - self.started_at - self.phases.get("readyMs", 0.0), 1)
            waiting.discard(parent)
        self._wait_iopub(deadline)
        self.ready = True

    def _wait_iopub(self, deadline):
        # ZeroMQ's slow joiner: a shell reply does not mean the iopub
        # subscription is up, and what the kernel publishes before it is (such
        # as the 'idle' status that ends a cell) is lost: the cell then waits
        # for its timeout (seen in 1 run of 4 without this). Ask until an
        # answer arrives on iopub.
        while time.monotonic() < deadline:
            msg_id = self.kc.kernel_info()
            until = time.monotonic() + 0.5
            while time.monotonic() < until:
                try:
                    msg = self.kc.get_iopub_msg(timeout=0.1)
                except queue.Empty:
                    continue
                if msg.get("parent_header", {}).get("msg_id") == msg_id:
                    return
            if not self.proc.is_alive():
                raise KernelDied("the kernel process exited during start-up")
        raise TimeoutError("the kernel's iopub channel did not connect in time")

    def shutdown(self):
        try:
            self.kc.stop_channels()
        except Exception:  # noqa: BLE001
            pass
        self.proc.kill()
