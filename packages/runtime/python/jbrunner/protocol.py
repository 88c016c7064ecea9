"""The runner's wire protocol (schemas/runner-message.schema.json).

In: one RunPlan per line (schemas/run-plan.schema.json). A plan's optional
`probe` is code of the plan's owner run silently in the notebook's kernel
(`setup` before the first cell, `finish` after the last when every cell
ran); what it prints on stdout is returned, unread, in the result's `probe`.
Out, one JSON message per line, each naming its plan:
  {"type": "started", "id": ..., "kernel": ...}   the plan's kernel is ready and its
                                                   first cell is about to run
  {"type": "result", "id": ..., "result": {...}}  the plan's RunResult; always last
  {"type": "rejected", "line": ..., "reason": ...} an input line that is not a plan
The toolchain tells a plan that was executing from one merely queued (or whose
kernel was started ahead) by `started`: when the runner process dies, only
executing plans can be to blame.

Authenticated (`--authenticate`): the toolchain sends a key the kernels never
see (packages/runtime/README.md, "The runner protocol"), and every message is
printed as `{"mac":"<hmac-sha256 of the rest>",<the message without its "{">`,
the MAC taken over the message's JSON text `{...}` with the key. A line that a
notebook manages to put on the channel has no valid MAC and is not a message.
The channel is a private copy of the runner's stdout (`take_stdout`): file
descriptor 1 then points at stderr, so nothing the runner starts inherits it.
"""

import ctypes
import hashlib
import hmac
import json
import os
import re
import sys
import threading
import time

ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")
KERNEL_KINDS = ("forked", "launched", "launched-after-failed-fork")
PLAN_REQUIRED = {
    "id": str,
    "notebook": str,
    "cells": list,
    "cwd": str,
    "cellTimeoutSeconds": (int, float),
    "timeoutSeconds": (int, float),
}


def log(*args):
    try:
        print("[junobench-runner]", *args, file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass  # nobody reads our stderr any more (the toolchain died): carry on


def strip_ansi(text):
    return ANSI_RE.sub("", text or "")


def now_ms():
    return time.monotonic() * 1000.0


def python_info():
    info = {"executable": sys.executable, "version": sys.version.split()[0]}
    # From package metadata: importing ipykernel here would cost ~1 s.
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


def parse_plan(text):
    """A RunPlan from one JSON text; ValueError saying what is wrong otherwise."""
    plan = json.loads(text)
    if not isinstance(plan, dict):
        raise ValueError("a plan is a JSON object")
    for key, kind in PLAN_REQUIRED.items():
        if key not in plan:
            raise ValueError("the plan has no %r" % key)
        if not isinstance(plan[key], kind) or isinstance(plan[key], bool):
            raise ValueError("the plan's %r has the wrong type" % key)
    if not all(isinstance(i, int) and not isinstance(i, bool) and i >= 0 for i in plan["cells"]):
        raise ValueError("the plan's 'cells' must be code-cell indices (integers >= 0)")
    return plan


def started_message(plan_id, kernel):
    assert kernel in KERNEL_KINDS, kernel
    return {"type": "started", "id": plan_id, "kernel": kernel}


def result_message(result):
    return {"type": "result", "id": result["id"], "result": result}


def rejected_message(line, reason):
    message = {"type": "rejected", "line": line[:200], "reason": reason}
    try:
        plan_id = json.loads(line).get("id")
    except (ValueError, AttributeError):
        plan_id = None
    if isinstance(plan_id, str):
        message["id"] = plan_id
    return message


class Emitter:
    """Writes messages, one line each, whole, from any thread; signed when it
    has a key (see the top of this file)."""

    def __init__(self, stream=None, key=None):
        self.stream = stream
        self.key = key
        self.lock = threading.Lock()

    def __call__(self, message):
        stream = self.stream if self.stream is not None else sys.stdout
        with self.lock:
            stream.write(sign_line(message, self.key) + "\n")
            stream.flush()


def sign_line(message, key):
    """The message's line: plain JSON without a key; with one, ASCII JSON (the
    same bytes on both ends) whose first member is the MAC of the rest."""
    if key is None:
        return json.dumps(message, ensure_ascii=False)
    body = json.dumps(message, ensure_ascii=True, separators=(",", ":"))
    mac = hmac.new(key, body.encode("ascii"), hashlib.sha256).hexdigest()
    return '{"mac":"%s",%s' % (mac, body[1:])


def parse_key(line):
    """The key the toolchain sent (64 hex digits), as bytes; ValueError otherwise."""
    text = (line or "").strip()
    if not re.fullmatch(r"[0-9a-f]{64}", text):
        raise ValueError("expected the message key (64 hex digits) on stdin")
    return bytes.fromhex(text)


def take_stdout():
    """A private stream on what file descriptor 1 was (the message channel),
    not inherited by any child; fd 1 (and sys.stdout) then write to stderr, so
    C-level output of libraries, and every process started from here, reach
    stderr instead of the channel."""
    channel = os.fdopen(os.dup(1), "w", encoding="utf-8", newline="\n")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return channel


PR_SET_DUMPABLE = 4


def set_dumpable(on):
    """prctl(PR_SET_DUMPABLE): a process that is not dumpable cannot be traced,
    nor its memory, file descriptors, environment or working directory read
    through /proc, by other processes of its uid (its kernels). False when the
    call is not there (not Linux)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_DUMPABLE, 1 if on else 0, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def failed_result(plan_id, reason):
    return {"id": plan_id, "status": "failed", "reason": reason, "cells": [], "durationMs": 0.0}
