"""Running a cell against a scripted kernel: results, errors, timeouts, death."""

import json
import os
import queue
import tempfile
import unittest

from jbrunner import execute
from jbrunner.execute import execute_cell, read_code_cells


class FakeClock:
    def __init__(self):
        self.t = 0.0

    def __call__(self):
        return self.t


class FakeKernel:
    """A kernel client and process that answer from a script of messages.

    `script` maps the n-th execute request to the iopub messages and shell
    reply it produces; `alive` goes False after `dies_after` polls; a
    `stuck` kernel never answers, and each poll advances the clock."""

    def __init__(self, clock, iopub=(), reply=None, dies_after=None, stuck=False, idle_after_interrupt=False):
        self.clock = clock
        self.iopub = list(iopub)
        self.reply = reply
        self.dies_after = dies_after
        self.stuck = stuck
        self.idle_after_interrupt = idle_after_interrupt
        self.polls = 0
        self.interrupted = 0
        self.msg_id = "m1"

    # kernel client
    def execute(self, code, **kw):
        return self.msg_id

    def get_iopub_msg(self, timeout):
        self.polls += 1
        self.clock.t += timeout
        if self.stuck and not (self.interrupted and self.idle_after_interrupt):
            raise queue.Empty
        if self.interrupted and self.idle_after_interrupt:
            self.stuck = False
            self.iopub = [status("idle")]
            self.reply = {"status": "error", "ename": "KeyboardInterrupt", "evalue": ""}
            self.idle_after_interrupt = False
        if not self.iopub:
            raise queue.Empty
        return self.iopub.pop(0)

    def get_shell_msg(self, timeout):
        if self.reply is None or self.iopub:
            raise queue.Empty
        reply, self.reply = self.reply, None
        return {"parent_header": {"msg_id": self.msg_id}, "content": reply}

    # process
    def is_alive(self):
        return self.dies_after is None or self.polls < self.dies_after

    def interrupt(self):
        self.interrupted += 1


def status(state, parent="m1"):
    return {"parent_header": {"msg_id": parent}, "msg_type": "status", "content": {"execution_state": state}}


def error(ename, evalue, parent="m1"):
    return {"parent_header": {"msg_id": parent}, "msg_type": "error", "content": {"ename": ename, "evalue": evalue, "traceback": ["\x1b[31mTraceback\x1b[0m"]}}


class ExecuteCellTest(unittest.TestCase):
    def run_cell(self, timeout=10, **kw):
        clock = FakeClock()
        k = FakeKernel(clock, **kw)
        return execute_cell(k, k, "x = 1", timeout, clock=clock), k

    def test_ok(self):
        (status_, err, reason), _ = self.run_cell(iopub=[status("busy"), status("idle")], reply={"status": "ok"})
        self.assertEqual((status_, err, reason), ("ok", None, None))

    def test_error_from_iopub_with_ansi_removed(self):
        (status_, err, _), _ = self.run_cell(iopub=[error("ValueError", "bad"), status("idle")], reply={"status": "error"})
        self.assertEqual(status_, "error")
        self.assertEqual(err, {"ename": "ValueError", "evalue": "bad", "traceback": ["Traceback"]})

    def test_error_only_in_the_shell_reply(self):
        (status_, err, _), _ = self.run_cell(iopub=[status("idle")], reply={"status": "error", "ename": "KeyError", "evalue": "'a'", "traceback": []})
        self.assertEqual((status_, err["ename"]), ("error", "KeyError"))

    def test_messages_of_other_requests_are_ignored(self):
        (status_, _, _), _ = self.run_cell(iopub=[error("X", "y", parent="other"), status("idle", parent="other"), status("idle")], reply={"status": "ok"})
        self.assertEqual(status_, "ok")

    def test_kernel_death(self):
        (status_, _, reason), _ = self.run_cell(stuck=True, dies_after=3)
        self.assertEqual(status_, "kernel-died")
        self.assertIn("died", reason)

    def test_timeout_interrupts_then_reports(self):
        (status_, _, reason), k = self.run_cell(timeout=2, stuck=True, idle_after_interrupt=True)
        self.assertEqual(k.interrupted, 1)
        self.assertEqual(status_, "timeout")
        self.assertEqual(reason, "cell exceeded 2 s and was interrupted")

    def test_timeout_without_an_answer_to_the_interrupt(self):
        (status_, _, reason), k = self.run_cell(timeout=2, stuck=True)
        self.assertEqual(k.interrupted, 1)
        self.assertEqual(status_, "timeout")
        self.assertIn("did not respond to an interrupt", reason)
        self.assertGreaterEqual(k.clock.t, 2 + execute.INTERRUPT_GRACE)


def stream(text, name="stdout", parent="m1"):
    return {"parent_header": {"msg_id": parent}, "msg_type": "stream", "content": {"name": name, "text": text}}


class ProbeStepTest(unittest.TestCase):
    """A probe step: silent, its stdout (only its own, only stdout) returned as printed."""

    def run_step(self, **kw):
        clock = FakeClock()
        k = FakeKernel(clock, **kw)
        k.kc, k.proc = k, k
        sent = []
        execute_ = k.execute
        k.execute = lambda code, **opts: sent.append(opts) or execute_(code, **opts)
        return execute.run_probe_step(k, "probe()", 10), sent

    def test_collects_its_stdout_silently(self):
        iopub = [stream("KEY 1"), stream("2\n"), stream("noise", name="stderr"), stream("other", parent="x"), status("idle")]
        step, sent = self.run_step(iopub=iopub, reply={"status": "ok"})
        self.assertEqual((step["status"], step["stdout"]), ("ok", "KEY 12\n"))
        self.assertEqual((sent[0]["silent"], sent[0]["store_history"]), (True, False))

    def test_an_error_is_reported_with_what_was_printed(self):
        step, _ = self.run_step(iopub=[stream("half"), error("NameError", "x"), status("idle")], reply={"status": "error"})
        self.assertEqual((step["status"], step["stdout"], step["ename"]), ("error", "half", "NameError"))


class ReadCodeCellsTest(unittest.TestCase):
    def write(self, nb):
        fd, path = tempfile.mkstemp(suffix=".ipynb")
        with os.fdopen(fd, "w") as f:
            json.dump(nb, f)
        self.addCleanup(os.unlink, path)
        return path

    def test_code_cells_only_sources_joined(self):
        path = self.write({"nbformat": 4, "cells": [{"cell_type": "markdown", "source": "# t"}, {"cell_type": "code", "source": ["a = 1\n", "b = 2"]}, {"cell_type": "code", "source": "c"}]})
        self.assertEqual(read_code_cells(path), ["a = 1\nb = 2", "c"])

    def test_refuses_other_formats(self):
        with self.assertRaises(ValueError):
            read_code_cells(self.write({"nbformat": 3, "worksheets": []}))


class NulCellTest(ReadCodeCellsTest):
    def test_a_plan_with_a_nul_in_a_cell_fails_at_once_without_a_kernel(self):
        path = self.write({"nbformat": 4, "cells": [{"cell_type": "code", "source": "a = 1"}, {"cell_type": "code", "source": "b = '\x00'"}]})
        plan = {"id": "n", "notebook": path, "cells": [0, 1], "cwd": "/", "cellTimeoutSeconds": 120, "timeoutSeconds": 600}
        result = execute.run_plan(plan, ctx=None)
        self.assertEqual(result["status"], "failed")
        self.assertIn("code cell(s) [1] hold a NUL byte", result["reason"])


if __name__ == "__main__":
    unittest.main()
