#!/usr/bin/env python3
"""JunoBench notebook runner.

Executes notebooks cell by cell in fresh IPython kernels through the Jupyter
client libraries and prints one JSON result per plan. The same file runs on
the host (local runtime) and inside the benchmark image (container runtime).
Only the standard library, jupyter_client and ipykernel are needed.

Commands:
  run --plan-json JSON | --plan FILE   execute one plan, print one RunResult line
  serve                                RunPlan JSON lines on stdin -> RunResult lines on stdout
  probe MODULE...                      interpreter, kernel stack and module versions as JSON
  fingerprint                          hash of every installed distribution (no imports)

A plan (schemas/run-plan.schema.json) names the notebook, the code-cell
indices in execution order, the working directory and the timeouts. Execution
stops at the first cell that raises, as "Run all" does in Jupyter.

Why `serve` is fast without sharing kernels: while one notebook executes, the
kernel for the next queued plan is already launched (and its `prewarm`
modules imported), so kernel start-up and heavy imports overlap with work.
Every notebook still gets its own fresh kernel.

Exit status is 0 whenever results were printed, whatever happened inside the
notebooks (crash, timeout, dead kernel are results, not runner failures).
"""

import argparse
import json
import os
import queue
import re
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


class Kernel:
    """A fresh kernel launched for one plan; possibly launched ahead of time."""

    def __init__(self, plan):
        from jupyter_client.manager import KernelManager

        self.plan = plan
        self.started_at = now_ms()
        self.km = KernelManager(kernel_name="python3")
        self.km.start_kernel(cwd=plan["cwd"], env=kernel_env())
        self.kc = self.km.client()
        self.kc.start_channels()
        self.ready_ms = None
        mods = [m for m in plan.get("prewarm") or [] if re.match(r"^[A-Za-z_][\w.]*$", m)]
        # The first request is queued by ZeroMQ until the kernel binds its
        # sockets; its reply proves the kernel is ready. With prewarm modules
        # that request is a silent import (sys.modules only: nothing bound in
        # the user namespace, no history, execution counts untouched), so a
        # kernel launched ahead of its turn also has its heavy imports done.
        if mods:
            code = "\n".join("try:\n    __import__(%r)\nexcept BaseException:\n    pass" % m for m in mods)
            self.ready_id = self.kc.execute(code, silent=True, store_history=False)
        else:
            self.ready_id = self.kc.kernel_info()

    def wait_ready(self, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.km.is_alive():
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
            if not self.km.is_alive():
                raise KernelDied("the kernel process exited during start-up")
        raise TimeoutError("the kernel's iopub channel did not connect in time")

    def shutdown(self):
        try:
            self.kc.stop_channels()
        except Exception:  # noqa: BLE001
            pass
        try:
            # The kernel is thrown away: kill it rather than wait for a polite exit.
            self.km.shutdown_kernel(now=True)
        except Exception:  # noqa: BLE001
            try:
                self.km.kill_kernel()
            except Exception:  # noqa: BLE001
                pass


class KernelDied(Exception):
    pass


def execute_cell(kernel, code, timeout):
    """Run one cell. Returns (status, error dict or None, reason)."""
    kc, km = kernel.kc, kernel.km
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
                km.interrupt_kernel()
            except Exception:  # noqa: BLE001
                pass
            interrupted_at = time.monotonic()
        if interrupted_at is not None and time.monotonic() - interrupted_at > INTERRUPT_GRACE:
            return "timeout", None, "cell exceeded %.0f s; the kernel did not respond to an interrupt and was killed" % timeout
        if not km.is_alive():
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


def emit(result):
    sys.stdout.write(json.dumps(result, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def serve():
    """Plans on stdin, results on stdout, one kernel launched ahead of the one running."""
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
    ahead = None  # (plan, Kernel) launched before its turn
    while True:
        if ahead is not None:
            plan, kernel = ahead
            ahead = None
        else:
            plan = plans.get()
            if plan is None:
                break
            kernel = None
        # Launch the next queued plan's kernel now, so its start-up and prewarm
        # imports overlap with this plan's execution.
        try:
            nxt = plans.get(timeout=0.05)
        except queue.Empty:
            nxt = False
        if nxt is None:
            plans.put(None)
        elif nxt:
            try:
                ahead = (nxt, Kernel(nxt))
            except Exception as e:  # noqa: BLE001
                log("could not launch a kernel ahead for", nxt.get("id"), e)
                ahead = (nxt, None)
        if kernel is None:
            try:
                kernel = Kernel(plan)
            except Exception as e:  # noqa: BLE001
                emit({"id": plan.get("id", ""), "status": "failed", "reason": "kernel would not start: %s" % e, "cells": [], "durationMs": 0.0, "python": python_info()})
                continue
        emit(run_plan(plan, kernel))


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
    sub.add_parser("serve", help="plans on stdin, results on stdout")
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
        serve()
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
