// Test-only: never exported from index.ts, never imported by library code.
import { chmod, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * How the fake runner answers one plan, chosen by the plan's notebook name
 * (`<behaviour>.ipynb`), so one runner process can mix them:
 *
 * - `ok`: `started`, then a completed result (what a well-behaved runner does);
 * - `silent`: `started`, then nothing ever again (a runner stuck mid-plan);
 * - `unanswered`: nothing at all (a plan the runner lost);
 * - `unknown-id`: a result for a plan id it was never given, instead of this one;
 * - `twice`: two results for the plan;
 * - `dies`: `started`, then the runner exits with status 3;
 * - `malformed`: a line that starts like a message but is not JSON, instead of the result;
 * - `invalid`: a result message that breaks the schema;
 * - `rejected-no-id`: a `rejected` message that names no plan;
 * - `remove-run-folder`: deletes the runtime's run folder (the parent of `--tmp`:
 *   what a temp cleaner does to a long run), then answers `ok`.
 *
 * When `$FAKE_RUNNER_LOG` is set, the runner appends `runner <pid>` to it as it
 * starts, then each plan id it receives.
 */
export type FakeBehaviour =
  | 'ok'
  | 'silent'
  | 'unanswered'
  | 'unknown-id'
  | 'twice'
  | 'dies'
  | 'malformed'
  | 'invalid'
  | 'rejected-no-id'
  | 'remove-run-folder';

const SCRIPT = String.raw`#!/usr/bin/python3
# A stand-in for "python junobench_runner.py serve": speaks the runner protocol
# (plan lines on stdin, message lines on stdout), well or badly as each plan's
# notebook name says. See packages/runtime/test-helpers/fake-runner.ts.
import hashlib, hmac, json, os, shutil, sys

if len(sys.argv) > 1 and sys.argv[1] == "-c":
    # findPython's check: "this interpreter has the kernel stack"; it prints sys.executable.
    print(os.path.abspath(sys.argv[0]))
    sys.exit(0)

args = sys.argv[2:]
tmp = args[args.index("--tmp") + 1] if "--tmp" in args else None
log = os.environ.get("FAKE_RUNNER_LOG")
# --authenticate: the first stdin line is the key; messages are signed as jbrunner/protocol.py signs them.
key = bytes.fromhex(sys.stdin.readline().strip()) if "--authenticate" in args else None
if log:
    with open(log, "a") as f:
        f.write("runner %d\n" % os.getpid())

def sign(obj):
    body = json.dumps(obj, separators=(",", ":"))
    if key is None:
        return body
    return '{"mac":"%s",%s' % (hmac.new(key, body.encode(), hashlib.sha256).hexdigest(), body[1:])

def say(obj):
    sys.stdout.write((obj if isinstance(obj, str) else sign(obj)) + "\n")
    sys.stdout.flush()

def result(pid, status="completed"):
    return {"type": "result", "id": pid, "result": {"id": pid, "status": status, "cells": [], "durationMs": 1}}

for line in sys.stdin:
    plan = json.loads(line)
    pid = plan["id"]
    if log:
        with open(log, "a") as f:
            f.write(pid + "\n")
    how = os.path.basename(plan["notebook"]).rsplit(".", 1)[0]
    if how == "ok":
        say({"type": "started", "id": pid, "kernel": "forked"})
        say(result(pid))
    elif how == "silent":
        say({"type": "started", "id": pid, "kernel": "forked"})
    elif how == "unanswered":
        pass
    elif how == "unknown-id":
        say(result("999"))
    elif how == "twice":
        say({"type": "started", "id": pid, "kernel": "forked"})
        say(result(pid))
        say(result(pid, "failed"))
    elif how == "dies":
        say({"type": "started", "id": pid, "kernel": "forked"})
        sys.stderr.write("fake runner: dying on purpose\n")
        sys.stderr.flush()
        os._exit(3)
    elif how == "malformed":
        say({"type": "started", "id": pid, "kernel": "forked"})
        say('{"type": "result", "id": "%s", "result": {' % pid)
    elif how == "invalid":
        say({"type": "started", "id": pid, "kernel": "forked"})
        say({"type": "result", "id": pid, "result": {"status": "splendid"}})
    elif how == "rejected-no-id":
        say({"type": "rejected", "line": "?", "reason": "fake: cannot tell which plan"})
    elif how == "remove-run-folder":
        # The runtime may be copying the next plan's scratch folder into it meanwhile, which makes
        # one rmtree fail (directory not empty): a temp cleaner comes back until the folder is gone.
        for _ in range(1000):
            if not os.path.exists(os.path.dirname(tmp)):
                break
            shutil.rmtree(os.path.dirname(tmp), ignore_errors=True)
        say({"type": "started", "id": pid, "kernel": "forked"})
        say(result(pid))
    else:
        sys.stderr.write("fake runner: unknown behaviour %r\n" % how)
        sys.exit(2)
`;

/** Writes the fake interpreter into `dir`; pass its path as the local runtime's `python`. */
export async function writeFakeRunner(dir: string): Promise<string> {
  const file = path.join(dir, 'fake-python');
  await writeFile(file, SCRIPT);
  await chmod(file, 0o755);
  return file;
}

/** A minimal instance folder with one (empty) notebook per behaviour. */
export async function writeFakeInstance(dir: string, behaviours: readonly FakeBehaviour[]): Promise<void> {
  const nb = JSON.stringify({ nbformat: 4, nbformat_minor: 4, metadata: {}, cells: [] });
  for (const b of new Set(behaviours)) await writeFile(path.join(dir, `${b}.ipynb`), nb);
}
