"""`serve`: RunPlan lines on stdin, messages on stdout. `jobs` workers each
execute one plan at a time with the next plan's kernel started (and its
imports done) ahead; kernels are forked from zygotes shared by all workers."""

import os
import queue
import threading
import time

from .execute import run_plan
from .kernels import Kernel, KernelContext
from .protocol import failed_result, log, now_ms, parse_key, parse_plan, rejected_message, result_message, started_message


class AheadLaunch:
    """Start a plan's kernel, and wait until it is ready with its imports, in
    the background while the current plan runs."""

    def __init__(self, plan, ctx):
        self.plan = plan
        self.kernel = None
        self.error = None
        self.thread = threading.Thread(target=self._launch, args=(ctx,), daemon=True)
        self.thread.start()

    def _launch(self, ctx):
        try:
            self.kernel = Kernel(self.plan, ctx)
            self.kernel.wait_ready(float(self.plan.get("startupTimeoutSeconds") or 60))
        except Exception as e:  # noqa: BLE001 - run_plan starts another
            self.error = e
            if self.kernel is not None:
                self.kernel.shutdown()
                self.kernel = None

    def take(self):
        """(kernel or None, ms spent waiting for it)."""
        t0 = now_ms()
        self.thread.join()
        if self.error is not None:
            log("could not start a kernel ahead for", self.plan.get("id"), "-", self.error, "- starting one now")
        return self.kernel, now_ms() - t0


def read_plans(stream, plans, emit):
    for line in stream:
        line = line.strip()
        if not line:
            continue
        try:
            plans.put(parse_plan(line))
        except ValueError as e:
            emit(rejected_message(line, "invalid plan line: %s" % e))
    plans.put(None)


def watch_parent(on_gone, interval=1.0):
    """Call on_gone() once this process's parent (the toolchain) has died:
    reparented, the runner would otherwise run its notebooks to their limits
    for nobody (e.g. after a SIGKILL of the CLI)."""
    parent = os.getppid()

    def watch():
        while os.getppid() == parent:
            time.sleep(interval)
        on_gone()

    threading.Thread(target=watch, name="junobench-parent-watch", daemon=True).start()


def serve(emit, stdin, entry, env, fork=True, jobs=1, tmp_dir=None, nest=None):
    plans = queue.Queue()
    threading.Thread(target=read_plans, args=(stdin, plans, emit), daemon=True).start()
    zygotes = None
    if fork and hasattr(os, "fork"):
        from .zygote import Zygotes

        try:
            zygotes = Zygotes(entry, env, tmp_dir, nested=nest is not None)
        except Exception as e:  # noqa: BLE001
            log("kernel zygote unavailable, starting kernels the ordinary way:", e)
    ctx = KernelContext(env, tmp_dir, zygotes, nest)
    if fork and zygotes is None:
        ctx.zygotes = BrokenZygotes()

    def parent_gone():
        try:
            log("the process that started this runner is gone; exiting")
            if zygotes is not None:
                zygotes.stop()
        finally:
            # Forked kernels and zygotes follow within a second (they watch
            # this process); launched kernels too (ipykernel's parent poller).
            os._exit(1)

    watch_parent(parent_gone)

    def worker():
        ahead = None  # AheadLaunch of this worker's next plan
        while True:
            waited = 0.0
            if ahead is not None:
                plan = ahead.plan
                kernel, waited = ahead.take()
                ahead = None
            else:
                plan = plans.get()
                if plan is None:
                    plans.put(None)  # let the other workers see the end too
                    return
                kernel = None
            # Start the next queued plan's kernel now, so its start-up and
            # prewarm imports overlap with this plan's execution.
            try:
                nxt = plans.get(timeout=0.05)
            except queue.Empty:
                nxt = False
            if nxt is None:
                plans.put(None)
            elif nxt:
                ahead = AheadLaunch(nxt, ctx)
            plan_id = plan.get("id", "")
            try:
                result = run_plan(plan, ctx, kernel, on_started=lambda kind: emit(started_message(plan_id, kind)), waited_ms=waited)
            except Exception as e:  # noqa: BLE001 - never leave a plan without a result
                result = failed_result(plan_id, "runner error: %s: %s" % (type(e).__name__, e))
            emit(result_message(result))

    try:
        workers = [threading.Thread(target=worker, daemon=True) for _ in range(max(1, jobs))]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
    finally:
        if zygotes is not None:
            zygotes.stop()


class BrokenZygotes:
    """The fork server could not start: every kernel is launched, and says so."""

    def get(self, modules):
        return None


def run_after_go(plan, ctx, stdin, emit, authenticate=False):
    """`run --wait-go`: start the plan's kernel and do its imports now, then
    wait for the line "go" on stdin before the first cell (the container
    runtime starts containers ahead of their turn). End of stdin, before or
    during the run, means the toolchain is gone: stop, print nothing. With
    `authenticate` the line is "go KEY": the key the messages are signed with
    arrives only now, after the kernel started (it never holds it)."""
    kernel = None
    try:
        kernel = Kernel(plan, ctx)
        kernel.wait_ready(float(plan.get("startupTimeoutSeconds") or 60))
    except Exception as e:  # noqa: BLE001 - run_plan starts another, and reports
        log("could not start the kernel ahead:", e)
        if kernel is not None:
            kernel.shutdown()
            kernel = None
    # Lines before "go" are ignored: an engine's attach may deliver request
    # bytes of its own first.
    went = False
    for line in iter(stdin.readline, ""):
        word, _, rest = line.strip().partition(" ")
        if word == "go" and (rest if authenticate else not rest):
            try:
                if authenticate:
                    emit.key = parse_key(rest)
            except ValueError as e:
                log(e)
                continue
            went = True
            break
    if not went:
        if kernel is not None:
            kernel.shutdown()
        return None

    def exit_on_eof():
        for _ in stdin:
            pass
        log("stdin closed: the toolchain is gone; exiting")
        try:
            if kernel is not None:
                kernel.shutdown()
        finally:
            os._exit(1)

    threading.Thread(target=exit_on_eof, name="junobench-stdin-watch", daemon=True).start()
    plan_id = plan["id"]
    result = run_plan(plan, ctx, kernel, on_started=lambda kind: emit(started_message(plan_id, kind)))
    emit(result_message(result))
    return result
