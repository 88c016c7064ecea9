#!/usr/bin/env python3
"""JunoBench notebook runner.

Executes notebooks cell by cell in fresh IPython kernels through the Jupyter
client libraries and prints one JSON result per plan. The same file runs on
the host (local runtime) and inside the benchmark image (container runtime).
Only the standard library, jupyter_client and ipykernel are needed.

Commands:
  run --plan-json JSON | --plan FILE   execute one plan, print one RunResult line
  serve [--jobs N] [--no-fork]         RunPlan JSON lines on stdin -> RunResult lines on stdout
  probe MODULE...                      interpreter, kernel stack and module versions as JSON
  fingerprint                          hash of every installed distribution (no imports)

A plan (schemas/run-plan.schema.json) names the notebook, the code-cell
indices in execution order, the working directory and the timeouts. Execution
stops at the first cell that raises, as "Run all" does in Jupyter.

Why `serve` is fast without sharing kernels: kernels are forked from a
"zygote" process that has ipykernel (and, per set of `prewarm` modules, the
notebook's heavy libraries) imported already, so a kernel starts in tens of
milliseconds instead of a second or more; and while one notebook executes, the
kernel for the next queued plan is already being started. Every notebook still
gets its own fresh process and namespace (`--no-fork` starts each kernel as a
new interpreter instead, as jupyter_client does).

Exit status is 0 whenever results were printed, whatever happened inside the
notebooks (crash, timeout, dead kernel are results, not runner failures).
"""

import argparse
import json
import os
import queue
import re
import signal
import socket
import sys
import threading
import time

# ipykernel 6 loads debugpy, which warns about frozen modules whenever it is imported.
os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")
# Seconds to wait for a kernel to answer an interrupt before it is killed.
INTERRUPT_GRACE = 3.0
# How often a waiting loop checks that the kernel process is still alive.
POLL = 0.2


def log(*args):
    print("[junobench-runner]", *args, file=sys.stderr, flush=True)


def strip_ansi(text):
    return ANSI_RE.sub("", text or "")


def now_ms():
    return time.monotonic() * 1000.0


def python_info():
    info = {"executable": sys.executable, "version": sys.version.split()[0]}
    # Read from package metadata: importing ipykernel here would cost ~1 s.
    try:
        from importlib.metadata import version

        for key, dist in (("ipykernel", "ipykernel"), ("jupyterClient", "jupyter_client")):
            try:
                info[key] = version(dist)
            except Exception:  # noqa: BLE001 - reported as absent
                pass
    except ImportError:
        pass
    return info


def kernel_env():
    env = dict(os.environ)
    # Same hashing of str/bytes in every run: set iteration order can change a
    # crash (or its message), and the benchmark promises the same crash every time.
    env.setdefault("PYTHONHASHSEED", "0")
    # Parallel kernels on few cores: one BLAS/OpenMP thread each avoids
    # oversubscription; results are the same, only scheduling changes.
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        env.setdefault(var, "1")
    env.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    env.pop("JPY_PARENT_PID", None)
    return env


def read_code_cells(path):
    with open(path, encoding="utf-8") as f:
        nb = json.load(f)
    if nb.get("nbformat") != 4:
        raise ValueError("only nbformat 4 notebooks are supported")
    cells = []
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "code":
            src = cell.get("source", "")
            cells.append("".join(src) if isinstance(src, list) else src)
    return cells


class SpawnedProcess:
    """A kernel process started the ordinary way: jupyter_client's KernelManager."""

    def __init__(self, plan):
        from jupyter_client.manager import KernelManager

        self.km = KernelManager(kernel_name="python3")
        self.km.start_kernel(cwd=plan["cwd"], env=kernel_env())

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


class ForkedProcess:
    """A kernel process forked from a zygote that has the kernel stack (and the
    plan's prewarm modules) imported already: start-up costs a fork, not an
    interpreter start and a second of imports. Still a fresh process with a
    fresh namespace per notebook."""

    def __init__(self, plan, zygote):
        import tempfile

        from jupyter_client.connect import write_connection_file

        fd, fname = tempfile.mkstemp(prefix="junobench-kernel-", suffix=".json")
        os.close(fd)
        self.connection_file, _ = write_connection_file(fname=fname, ip="127.0.0.1")
        self.pid = zygote.fork_kernel(self.connection_file, plan["cwd"])

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
        os.kill(self.pid, signal.SIGINT)

    def kill(self):
        # The kernel leads its own session: kill it and whatever it started.
        for kill in (lambda: os.killpg(self.pid, signal.SIGKILL), lambda: os.kill(self.pid, signal.SIGKILL)):
            try:
                kill()
                break
            except OSError:
                pass
        try:
            os.unlink(self.connection_file)
        except OSError:
            pass


class Kernel:
    """A fresh kernel launched for one plan; possibly launched ahead of time."""

    def __init__(self, plan, zygotes=None):
        self.plan = plan
        self.started_at = now_ms()
        mods = [m for m in plan.get("prewarm") or [] if re.match(r"^[A-Za-z_][\w.]*$", m)]
        zygote = zygotes.get(mods) if zygotes is not None else None
        self.proc = ForkedProcess(plan, zygote) if zygote is not None else SpawnedProcess(plan)
        self.kc = self.proc.client()
        self.kc.start_channels()
        self.ready_ms = None
        # The first request is queued by ZeroMQ until the kernel binds its
        # sockets; its reply proves the kernel is ready. With prewarm modules
        # that request is a silent import (sys.modules only: nothing bound in
        # the user namespace, no history, execution counts untouched), so a
        # kernel launched ahead of its turn also has its heavy imports done
        # (a forked kernel has them already: the import is then a no-op).
        if mods:
            code = "\n".join("try:\n    __import__(%r)\nexcept BaseException:\n    pass" % m for m in mods)
            self.ready_id = self.kc.execute(code, silent=True, store_history=False)
        else:
            self.ready_id = self.kc.kernel_info()

    def wait_ready(self, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.proc.is_alive():
                raise KernelDied("the kernel process exited during start-up")
            try:
                msg = self.kc.get_shell_msg(timeout=POLL)
            except queue.Empty:
                continue
            if msg.get("parent_header", {}).get("msg_id") == self.ready_id:
                self._wait_iopub(deadline)
                self.ready_ms = now_ms() - self.started_at
                return
        raise TimeoutError("the kernel did not become ready within %.0f s" % timeout)

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


class KernelDied(Exception):
    pass


def execute_cell(kernel, code, timeout):
    """Run one cell. Returns (status, error dict or None, reason)."""
    kc, proc = kernel.kc, kernel.proc
    msg_id = kc.execute(code, silent=False, store_history=True, allow_stdin=False, stop_on_error=True)
    deadline = time.monotonic() + timeout
    error = None
    got_idle = False
    got_reply = False
    reply_status = None
    interrupted_at = None
    while not (got_idle and got_reply):
        if time.monotonic() >= deadline and interrupted_at is None:
            # Interrupt first (a notebook's own KeyboardInterrupt handling stays
            # possible), then kill if it does not come back.
            try:
                proc.interrupt()
            except Exception:  # noqa: BLE001
                pass
            interrupted_at = time.monotonic()
        if interrupted_at is not None and time.monotonic() - interrupted_at > INTERRUPT_GRACE:
            return "timeout", None, "cell exceeded %.0f s; the kernel did not respond to an interrupt and was killed" % timeout
        if not proc.is_alive():
            return "kernel-died", None, "the kernel process died while running the cell"
        try:
            msg = kc.get_iopub_msg(timeout=POLL)
        except queue.Empty:
            msg = None
        if msg is not None and msg.get("parent_header", {}).get("msg_id") == msg_id:
            mtype = msg.get("msg_type")
            content = msg.get("content", {})
            if mtype == "error":
                error = {
                    "ename": strip_ansi(content.get("ename", "")),
                    "evalue": strip_ansi(content.get("evalue", "")),
                    "traceback": [strip_ansi(t) for t in content.get("traceback", [])],
                }
            elif mtype == "status" and content.get("execution_state") == "idle":
                got_idle = True
        if not got_reply:
            try:
                reply = kc.get_shell_msg(timeout=0 if msg is not None else 0.01)
                if reply.get("parent_header", {}).get("msg_id") == msg_id:
                    got_reply = True
                    reply_status = reply.get("content", {}).get("status")
                    if reply_status == "error" and error is None:
                        c = reply.get("content", {})
                        error = {
                            "ename": strip_ansi(c.get("ename", "")),
                            "evalue": strip_ansi(c.get("evalue", "")),
                            "traceback": [strip_ansi(t) for t in c.get("traceback", [])],
                        }
            except queue.Empty:
                pass
    if interrupted_at is not None:
        return "timeout", None, "cell exceeded %.0f s and was interrupted" % timeout
    if error is not None or reply_status in ("error", "aborted"):
        return "error", error, None
    return "ok", None, None


def run_plan(plan, kernel=None):
    """Execute one plan in a fresh kernel (launched here unless given). Always returns a result."""
    t0 = now_ms()
    result = {"id": plan.get("id", ""), "status": "failed", "cells": [], "durationMs": 0.0, "python": python_info()}
    order = list(plan.get("cells", []))
    try:
        sources = read_code_cells(plan["notebook"])
        bad = [i for i in order if not (0 <= i < len(sources))]
        if bad:
            raise ValueError("plan names code cell(s) %s but the notebook has %d code cells" % (bad, len(sources)))
    except Exception as e:  # noqa: BLE001
        result["reason"] = "cannot read notebook %s: %s" % (plan.get("notebook"), e)
        result["durationMs"] = now_ms() - t0
        if kernel is not None:
            kernel.shutdown()
        return result

    total_deadline = time.monotonic() + float(plan["timeoutSeconds"])
    cell_timeout = float(plan["cellTimeoutSeconds"])
    startup = float(plan.get("startupTimeoutSeconds") or 60)
    cells = [{"index": i, "status": "not-run", "durationMs": 0.0} for i in order]
    result["cells"] = cells
    try:
        # A kernel can die before it is ready for reasons unrelated to the
        # notebook (another process took one of its randomly chosen ports
        # between choice and bind): start a fresh one, once, before giving up.
        for attempt in (1, 2):
            if kernel is None:
                kernel = Kernel(plan)
            try:
                kernel.wait_ready(startup)
                break
            except (KernelDied, TimeoutError) as e:
                kernel.shutdown()
                kernel = None
                if attempt == 2:
                    result["status"] = "kernel-died" if isinstance(e, KernelDied) else "failed"
                    result["reason"] = "%s (after a second attempt)" % e
                    return result
                log("kernel start failed (%s); retrying with a new kernel" % e)
        result["kernelStartMs"] = round(kernel.ready_ms or 0.0, 1)
        result["status"] = "completed"
        for step, index in enumerate(order):
            remaining = total_deadline - time.monotonic()
            if remaining <= 0:
                result["status"] = "timeout"
                result["reason"] = "the notebook exceeded its %.0f s limit before code cell %d" % (plan["timeoutSeconds"], index)
                cells[step]["status"] = "timeout"
                break
            c0 = now_ms()
            limit = min(cell_timeout, remaining)
            status, error, reason = execute_cell(kernel, sources[index], limit)
            cells[step]["durationMs"] = round(now_ms() - c0, 1)
            cells[step]["status"] = status
            if error is not None:
                cells[step].update(error)
            if status == "ok":
                continue
            result["status"] = status
            if reason:
                if status == "timeout" and limit < cell_timeout:
                    reason = "the notebook exceeded its %.0f s limit in code cell %d" % (plan["timeoutSeconds"], index)
                result["reason"] = reason
            break
    except Exception as e:  # noqa: BLE001 - the runner itself failed: report, never hang
        result["status"] = "failed"
        result["reason"] = "runner error: %s: %s" % (type(e).__name__, e)
    finally:
        if kernel is not None:
            kernel.shutdown()
        result["durationMs"] = round(now_ms() - t0, 1)
    return result


# --- zygotes: forking kernels from a process that has the imports done ------

# The runner process that started the base zygote. Zygotes and the kernels
# forked from them live while it lives: if it is killed (watchdog, Ctrl-C),
# they exit within a second instead of lingering, as launched kernels do when
# their parent dies.
RUNNER_PID = None
WATCH_INTERVAL = 1.0


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


def _zygote_serve(sock_path, modules):
    """Serve fork requests on a unix socket, forever. Runs in a zygote process,
    which never starts threads or event loops, so forking it is safe."""
    for m in modules:
        try:
            __import__(m)
        except BaseException:  # noqa: BLE001 - as a prewarm: the notebook's own import will fail visibly
            pass
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
            req = json.loads(conn.makefile("r").readline() or "{}")
            op = req.get("op")
            if op == "exit":
                break
            pid = os.fork()
            if pid == 0:
                srv.close()
                conn.close()
                if op == "fork-kernel":
                    _become_kernel(req["connection_file"], req["cwd"])
                elif op == "fork-zygote":
                    try:
                        _zygote_serve(req["socket"], req["modules"])
                    finally:
                        os._exit(0)
                os._exit(0)
            conn.sendall((json.dumps({"pid": pid}) + "\n").encode())
    srv.close()
    os._exit(0)


def _become_kernel(connection_file, cwd):
    """In a forked child: become an IPython kernel exactly as `python -m
    ipykernel_launcher -f <file>` would, with its own session and cwd."""
    try:
        os.setsid()
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        os.chdir(cwd)
        # `python -m ipykernel_launcher` starts with the working directory
        # first on sys.path: a notebook imports its own helper modules from there.
        sys.path.insert(0, os.getcwd())
        # As a launched kernel sees it: its parent is the runner.
        os.environ["JPY_PARENT_PID"] = str(RUNNER_PID)
        # Exit with the runner, not with the zygote: a notebook that kills its
        # parent process must not take the kernels forked next to it along.
        threading.Thread(target=_watch_runner, name="junobench-runner-watch", daemon=True).start()
        # A fresh interpreter draws numpy's global seed from the OS; the fork
        # would otherwise give every kernel the zygote's (Python's `random`
        # reseeds itself after a fork).
        np = sys.modules.get("numpy")
        if np is not None:
            try:
                np.random.seed()
            except Exception:  # noqa: BLE001
                pass
        import importlib.util

        launcher = importlib.util.find_spec("ipykernel_launcher")
        sys.argv = [launcher.origin if launcher else "ipykernel_launcher", "-f", connection_file]
        from ipykernel.kernelapp import IPKernelApp

        # ipykernel read JPY_PARENT_PID when the zygote imported it (unset
        # then), so it starts no parent poller of its own: the thread above is it.
        IPKernelApp.launch_instance(argv=sys.argv[1:])
    except BaseException as e:  # noqa: BLE001
        log("forked kernel failed:", repr(e))
    finally:
        os._exit(0)


def zygote_main(sock_path):
    global RUNNER_PID
    RUNNER_PID = os.getppid()
    # Like `python -m ipykernel_launcher`: the runner's own folder is not on the path
    # (InteractiveShellApp.init_path puts the working directory back in the kernel).
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if p and os.path.abspath(p) != here]
    import ipykernel.kernelapp  # noqa: F401 - the expensive import every kernel shares

    _zygote_serve(sock_path, [])


class ZygoteGone(Exception):
    pass


class Zygote:
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

    def fork_kernel(self, connection_file, cwd, timeout=120):
        return self._request({"op": "fork-kernel", "connection_file": connection_file, "cwd": cwd}, timeout)["pid"]

    def fork_zygote(self, sock_path, modules, timeout=120):
        return Zygote(sock_path, self._request({"op": "fork-zygote", "socket": sock_path, "modules": modules}, timeout)["pid"])

    def stop(self):
        for sig in (signal.SIGKILL,):
            try:
                os.kill(self.pid, sig)
            except OSError:
                pass


class Zygotes:
    """One base zygote (the kernel stack imported) and, forked from it, one per
    set of prewarm modules (imported once, shared by every kernel that needs
    the same set: a notebook's reproduced and fixed versions, repeats, other
    instances with the same requirements)."""

    def __init__(self):
        import subprocess
        import tempfile

        self.dir = tempfile.mkdtemp(prefix="junobench-zygote-")
        base_sock = os.path.join(self.dir, "base.sock")
        # stdout goes to our stderr: kernels' low-level output must never mix with results.
        self.proc = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "zygote", base_sock],
            env=kernel_env(),
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



EMIT_LOCK = threading.Lock()


def emit(result):
    line = json.dumps(result, ensure_ascii=False) + "\n"
    with EMIT_LOCK:
        sys.stdout.write(line)
        sys.stdout.flush()


class AheadLaunch:
    """Launch a plan's kernel in the background while the current plan runs."""

    def __init__(self, plan, zygotes):
        self.plan = plan
        self.kernel = None
        self.error = None
        self.thread = threading.Thread(target=self._launch, args=(zygotes,), daemon=True)
        self.thread.start()

    def _launch(self, zygotes):
        try:
            self.kernel = Kernel(self.plan, zygotes)
        except Exception as e:  # noqa: BLE001
            self.error = e

    def take(self):
        self.thread.join()
        if self.error is not None:
            log("could not launch a kernel ahead for", self.plan.get("id"), "-", self.error, "- starting one now")
        return self.kernel


def serve(fork=True, jobs=1):
    """Plans on stdin, results on stdout. `jobs` workers each execute one plan
    at a time with the next plan's kernel launched ahead; kernels are forked
    from zygotes shared by all workers."""
    plans = queue.Queue()

    def reader():
        for line in sys.stdin:
            line = line.strip()
            if not line:
                continue
            try:
                plans.put(json.loads(line))
            except ValueError as e:
                emit({"id": "", "status": "failed", "reason": "invalid plan line: %s" % e, "cells": [], "durationMs": 0.0})
        plans.put(None)

    threading.Thread(target=reader, daemon=True).start()
    zygotes = None
    if fork and hasattr(os, "fork"):
        try:
            zygotes = Zygotes()
        except Exception as e:  # noqa: BLE001
            log("kernel zygote unavailable, starting kernels the ordinary way:", e)

    def worker():
        ahead = None  # AheadLaunch of this worker's next plan
        while True:
            if ahead is not None:
                plan, kernel = ahead.plan, ahead.take()
                ahead = None
            else:
                plan = plans.get()
                if plan is None:
                    plans.put(None)  # let the other workers see the end too
                    return
                kernel = None
            # Launch the next queued plan's kernel now, so its start-up and
            # prewarm imports overlap with this plan's execution.
            try:
                nxt = plans.get(timeout=0.05)
            except queue.Empty:
                nxt = False
            if nxt is None:
                plans.put(None)
            elif nxt:
                ahead = AheadLaunch(nxt, zygotes)
            if kernel is None:
                try:
                    kernel = Kernel(plan, zygotes)
                except Exception as e:  # noqa: BLE001
                    log("kernel start failed for", plan.get("id"), "-", e)
                    kernel = None  # run_plan starts one the ordinary way
            emit(run_plan(plan, kernel))

    try:
        workers = [threading.Thread(target=worker, daemon=True) for _ in range(max(1, jobs))]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
    finally:
        if zygotes is not None:
            zygotes.stop()


def probe(modules):
    import importlib

    out = dict(python_info())
    packages = {}
    for mod in modules:
        try:
            m = importlib.import_module(mod)
            version = getattr(m, "__version__", None)
            if version is None:
                try:
                    from importlib.metadata import packages_distributions, version as dist_version

                    dists = packages_distributions().get(mod.split(".")[0]) or []
                    version = dist_version(dists[0]) if dists else "unknown"
                except Exception:  # noqa: BLE001
                    version = "unknown"
            packages[mod] = str(version)
        except BaseException:  # noqa: BLE001 - any import failure means "not available here"
            packages[mod] = None
    out["packages"] = packages
    print(json.dumps(out, sort_keys=True))


def fingerprint():
    """What the installed packages are, cheaply (no imports): changes when any package changes."""
    import hashlib
    from importlib.metadata import distributions

    items = sorted({"%s==%s" % ((d.metadata.get("Name") or "?").lower(), d.version) for d in distributions()})
    digest = hashlib.sha256("\n".join(items).encode()).hexdigest()
    print(json.dumps({"executable": sys.executable, "version": sys.version.split()[0], "distributions": digest, "count": len(items)}, sort_keys=True))


def main(argv=None):
    ap = argparse.ArgumentParser(prog="junobench_runner", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="execute one plan")
    g = r.add_mutually_exclusive_group(required=True)
    g.add_argument("--plan-json")
    g.add_argument("--plan")
    sv = sub.add_parser("serve", help="plans on stdin, results on stdout")
    sv.add_argument("--no-fork", action="store_true", help="start every kernel as a new interpreter instead of forking it from a zygote")
    sv.add_argument("--jobs", type=int, default=1, help="notebooks executed at once")
    z = sub.add_parser("zygote", help=argparse.SUPPRESS)
    z.add_argument("socket")
    p = sub.add_parser("probe", help="module versions")
    p.add_argument("modules", nargs="*")
    sub.add_parser("fingerprint", help="hash of the installed distributions")
    args = ap.parse_args(argv)
    if args.cmd == "run":
        try:
            if args.plan_json is not None:
                plan = json.loads(args.plan_json)
            else:
                with open(args.plan, encoding="utf-8") as f:
                    plan = json.load(f)
        except Exception as e:  # noqa: BLE001
            emit({"id": "", "status": "failed", "reason": "invalid plan: %s" % e, "cells": [], "durationMs": 0.0})
            return 2
        emit(run_plan(plan))
        return 0
    if args.cmd == "serve":
        serve(fork=not args.no_fork, jobs=args.jobs)
        return 0
    if args.cmd == "zygote":
        zygote_main(args.socket)
        return 0
    if args.cmd == "probe":
        probe(args.modules)
        return 0
    if args.cmd == "fingerprint":
        fingerprint()
        return 0
    return 2


if __name__ == "__main__":
    sys.exit(main())
