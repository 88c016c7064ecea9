"""Running one plan's cells in its kernel: timeouts, kernel death, per-phase
timings. Execution stops at the first cell that raises, as "Run all" does."""

import json
import queue
import time

from .kernels import POLL, Kernel, KernelDied, process_times
from .protocol import log, now_ms, python_info, strip_ansi

# Seconds to wait for a kernel to answer an interrupt before it is killed.
INTERRUPT_GRACE = 3.0
# What a probe step's stdout may hold (schemas/run-plan.schema.json, "probe"): more is cut off.
PROBE_STDOUT_LIMIT = 8 * 1024 * 1024
# A probe's finish step gets this long unless the plan says otherwise (its own budget: not the notebook's).
PROBE_FINISH_TIMEOUT = 120.0


def read_code_cells(path):
    with open(path, encoding="utf-8") as f:
        nb = json.load(f)
    if not isinstance(nb, dict) or nb.get("nbformat") != 4:
        raise ValueError("only nbformat 4 notebooks are supported")
    cells = []
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "code":
            src = cell.get("source", "")
            cells.append("".join(src) if isinstance(src, list) else src)
    return cells


def error_of(content):
    return {
        "ename": strip_ansi(content.get("ename", "")),
        "evalue": strip_ansi(content.get("evalue", "")),
        "traceback": [strip_ansi(t) for t in content.get("traceback", [])],
    }


def execute_cell(kc, proc, code, timeout, clock=time.monotonic, silent=False, stdout=None):
    """Run one cell. Returns (status, error dict or None, reason).

    `kc` is the kernel client, `proc` the kernel process (is_alive, interrupt).
    `silent`: no history, no execution count (a probe step, not a cell);
    `stdout`: a list that collects what the request prints on stdout."""
    msg_id = kc.execute(code, silent=silent, store_history=not silent, allow_stdin=False, stop_on_error=True)
    deadline = clock() + timeout
    error = None
    got_idle = False
    got_reply = False
    reply_status = None
    interrupted_at = None
    while not (got_idle and got_reply):
        if clock() >= deadline and interrupted_at is None:
            # Interrupt first (a notebook's own KeyboardInterrupt handling stays
            # possible), then kill if it does not come back.
            try:
                proc.interrupt()
            except Exception:  # noqa: BLE001
                pass
            interrupted_at = clock()
        if interrupted_at is not None and clock() - interrupted_at > INTERRUPT_GRACE:
            return "timeout", None, "cell exceeded %.0f s; the kernel did not respond to an interrupt and was killed" % timeout
        if not proc.is_alive():
            return "kernel-died", None, "the kernel process died while running the cell"
        msg = None
        # Once the kernel said idle, only the reply is missing: wait for it on
        # its own channel. The two channels are not ordered with each other, and
        # the idle status often comes first: waiting on the quiet iopub channel
        # then cost a whole POLL (a cell of `x = 1` took 18 ms instead of 6).
        if not got_idle:
            try:
                msg = kc.get_iopub_msg(timeout=POLL)
            except queue.Empty:
                msg = None
        if msg is not None and msg.get("parent_header", {}).get("msg_id") == msg_id:
            mtype = msg.get("msg_type")
            content = msg.get("content", {})
            if mtype == "error":
                error = error_of(content)
            elif mtype == "stream" and stdout is not None and content.get("name") == "stdout":
                stdout.append(content.get("text", ""))
            elif mtype == "status" and content.get("execution_state") == "idle":
                got_idle = True
        if not got_reply:
            try:
                reply = kc.get_shell_msg(timeout=POLL if got_idle else 0 if msg is not None else 0.01)
                if reply.get("parent_header", {}).get("msg_id") == msg_id:
                    got_reply = True
                    reply_status = reply.get("content", {}).get("status")
                    if reply_status == "error" and error is None:
                        error = error_of(reply.get("content", {}))
            except queue.Empty:
                pass
    if interrupted_at is not None:
        return "timeout", None, "cell exceeded %.0f s and was interrupted" % timeout
    if error is not None or reply_status in ("error", "aborted"):
        return "error", error, None
    return "ok", None, None


def run_probe_step(kernel, code, timeout):
    """One step of the plan's probe (its setup before the first cell, its finish
    after the last): executed silently in the notebook's kernel; what it
    printed on stdout comes back as it is, for the probe's owner to read."""
    t0 = now_ms()
    out = []
    status, error, reason = execute_cell(kernel.kc, kernel.proc, code, timeout, silent=True, stdout=out)
    text = "".join(out)
    step = {"status": status, "stdout": text[:PROBE_STDOUT_LIMIT], "durationMs": round(now_ms() - t0, 1)}
    if len(text) > PROBE_STDOUT_LIMIT:
        step["truncated"] = True
    if error is not None:
        step["ename"], step["evalue"] = error["ename"], error["evalue"]
    if reason:
        step["reason"] = reason
    return step


def run_plan(plan, ctx, kernel=None, on_started=None, waited_ms=0.0):
    """Execute one plan in a fresh kernel (started here unless given, ready or
    not). Always returns a RunResult; `on_started(kind)` is called once the
    kernel is ready, before the first cell. `waited_ms`: time the plan already
    spent waiting for a kernel started ahead."""
    t0 = now_ms()
    result = {"id": plan.get("id", ""), "status": "failed", "cells": [], "durationMs": 0.0, "python": python_info()}
    phases = {}
    order = list(plan.get("cells", []))
    try:
        sources = read_code_cells(plan["notebook"])
        bad = [i for i in order if not (0 <= i < len(sources))]
        if bad:
            raise ValueError("plan names code cell(s) %s but the notebook has %d code cells" % (bad, len(sources)))
        # ipykernel never answers a cell holding a NUL: it would only end at its time limit.
        nul = sorted({i for i in order if "\x00" in sources[i]})
        if nul:
            raise ValueError("code cell(s) %s hold a NUL byte, which no Python kernel can run" % nul)
    except Exception as e:  # noqa: BLE001
        result["reason"] = "cannot read notebook %s: %s" % (plan.get("notebook"), e)
        result["durationMs"] = round(now_ms() - t0, 1)
        if kernel is not None:
            kernel.shutdown()
        return result

    total_deadline = time.monotonic() + float(plan["timeoutSeconds"])
    cell_timeout = float(plan["cellTimeoutSeconds"])
    startup = float(plan.get("startupTimeoutSeconds") or 60)
    cells = [{"index": i, "status": "not-run", "durationMs": 0.0} for i in order]
    result["cells"] = cells
    oom_before = None
    try:
        # A kernel can die before it is ready for reasons unrelated to the
        # notebook (another process took one of its randomly chosen ports
        # between choice and bind): start a fresh one, once, before giving up;
        # launched, in case the fork server is what failed.
        for attempt in (1, 2):
            if kernel is None:
                kernel = Kernel(plan, ctx, fork=attempt == 1)
            try:
                kernel.wait_ready(startup)
                break
            except (KernelDied, TimeoutError) as e:
                result["kernel"] = kernel.kind
                kernel.shutdown()
                kernel = None
                if attempt == 2:
                    result["status"] = "kernel-died" if isinstance(e, KernelDied) else "failed"
                    result["reason"] = "%s (after a second attempt)" % e
                    return result
                log("kernel start failed (%s); retrying with a new kernel" % e)
        result["kernel"] = kernel.kind
        phases.update(kernel.phases)
        phases["waitMs"] = round(waited_ms + now_ms() - t0, 1)
        result["kernelStartMs"] = round(phases.get("readyMs", 0.0) + phases.get("startMs", 0.0), 1)
        if on_started is not None:
            on_started(kernel.kind)
        result["status"] = "completed"
        probe = plan.get("probe") if isinstance(plan.get("probe"), dict) else {}
        if isinstance(probe.get("setup"), str):
            result["probe"] = {"setup": run_probe_step(kernel, probe["setup"], min(cell_timeout, startup))}
        c_start = now_ms()
        times_start = process_times(kernel.pid) if kernel.pid else None
        if ctx.nest is not None:
            from .nest import oom_kills

            oom_before = oom_kills()
        for step, index in enumerate(order):
            remaining = total_deadline - time.monotonic()
            if remaining <= 0:
                result["status"] = "timeout"
                result["reason"] = "the notebook exceeded its %.0f s limit before code cell %d" % (plan["timeoutSeconds"], index)
                cells[step]["status"] = "timeout"
                break
            c0 = now_ms()
            limit = min(cell_timeout, remaining)
            status, error, reason = execute_cell(kernel.kc, kernel.proc, sources[index], limit)
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
        phases["cellsMs"] = round(now_ms() - c_start, 1)
        if isinstance(probe.get("finish"), str) and result["status"] == "completed":
            limit = float(probe.get("finishTimeoutSeconds") or PROBE_FINISH_TIMEOUT)
            result.setdefault("probe", {})["finish"] = run_probe_step(kernel, probe["finish"], limit)
        times_end = process_times(kernel.pid) if kernel.pid else None
        if times_start and times_end:
            phases["cellsCpuMs"] = round(times_end[0] - times_start[0], 1)
            phases["cellsMinorFaults"] = times_end[1] - times_start[1]
    except Exception as e:  # noqa: BLE001 - the runner itself failed: report, never hang
        result["status"] = "failed"
        result["reason"] = "runner error: %s: %s" % (type(e).__name__, e)
    finally:
        if kernel is not None and ctx.nest is not None and oom_before is not None:
            from .nest import explain

            try:
                explain(result, kernel.pid, dict(ctx.nest, cwd=plan.get("cwd")), oom_before)
            except Exception as e:  # noqa: BLE001 - the result stands without it
                log("could not read the container's limits:", e)
        if kernel is not None:
            k0 = now_ms()
            kernel.shutdown()
            phases["teardownMs"] = round(now_ms() - k0, 1)
        if phases:
            result["phases"] = phases
        result["durationMs"] = round(now_ms() - t0, 1)
    return result
