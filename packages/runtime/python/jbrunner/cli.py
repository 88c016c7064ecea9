"""The runner's command line; `junobench_runner.py` is its entry point.

  run --plan-json JSON | --plan FILE   execute one plan: messages on stdout, the result last
  serve [--jobs N] [--no-fork]         RunPlan lines on stdin -> messages on stdout
  probe MODULE...                      interpreter, kernel stack and module versions as JSON
  fingerprint                          hash of every installed distribution (no imports)

`--authenticate` (run, serve): messages are signed with a key read from stdin
(serve: its first line; run --wait-go: the "go KEY" line; run: its first line),
see protocol.py. Either way the runner makes itself undumpable and takes its
stdout for the messages alone before any kernel starts.

Exit status is 0 whenever results were printed, whatever happened inside the
notebooks (crash, timeout, dead kernel are results, not runner failures).
"""

import argparse
import os
import sys

from .isolation import kernel_env
from .protocol import Emitter, failed_result, parse_key, parse_plan, result_message, set_dumpable, started_message, take_stdout


def main(argv=None, entry=None):
    entry = os.path.abspath(entry or sys.argv[0])
    # jupyter_client imports ipykernel (for the python3 kernel spec), which loads
    # debugpy, which warns about frozen modules whenever it is imported.
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    ap = argparse.ArgumentParser(prog="junobench_runner", description="JunoBench notebook runner")
    sub = ap.add_subparsers(dest="cmd", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--threads", type=int, default=1, help="threads per kernel for OpenMP/BLAS/torch pools (default 1)")
    common.add_argument("--tmp", default=None, help="folder for connection files and zygote sockets (default: the system's)")
    common.add_argument("--authenticate", action="store_true", help="sign every message with the key read from stdin")
    r = sub.add_parser("run", parents=[common], help="execute one plan")
    g = r.add_mutually_exclusive_group(required=True)
    g.add_argument("--plan-json")
    g.add_argument("--plan")
    r.add_argument("--wait-go", action="store_true", help="start the kernel, then wait for the line 'go' on stdin before the first cell")
    sv = sub.add_parser("serve", parents=[common], help="plans on stdin, messages on stdout")
    sv.add_argument("--no-fork", action="store_true", help="start every kernel as a new interpreter instead of forking it from a zygote")
    sv.add_argument("--jobs", type=int, default=1, help="notebooks executed at once")
    sv.add_argument(
        "--nest-json",
        default=None,
        help="fork every kernel into a sandbox of its own (nest.py): JSON with hide, home, home_from, disk, seccomp (a file)",
    )
    z = sub.add_parser("zygote", help=argparse.SUPPRESS)
    z.add_argument("socket")
    z.add_argument("--nested", action="store_true")
    p = sub.add_parser("probe", help="module versions")
    p.add_argument("modules", nargs="*")
    sub.add_parser("fingerprint", help="hash of the installed distributions")
    args = ap.parse_args(argv)
    emit = Emitter()
    if args.cmd in ("run", "serve"):
        # Before any kernel exists: no process the notebooks run in can trace
        # this one or read its memory and file descriptors (the channel, the
        # key), and none inherits the channel.
        set_dumpable(False)
        emit = Emitter(take_stdout())
        if args.authenticate and not (args.cmd == "run" and args.wait_go):
            # A container's attachment may first deliver an empty line or the engine's own
            # attach request (Podman); the key is the first line that is one.
            for _ in range(3):
                line = sys.stdin.readline()
                try:
                    emit.key = parse_key(line)
                    break
                except ValueError as e:
                    error = e
                if not line:
                    break
            if emit.key is None:
                print("junobench_runner: %s" % error, file=sys.stderr)
                return 2

    if args.cmd == "run":
        from .execute import run_plan
        from .kernels import KernelContext

        try:
            if args.plan_json is not None:
                plan = parse_plan(args.plan_json)
            else:
                with open(args.plan, encoding="utf-8") as f:
                    plan = parse_plan(f.read())
        except Exception as e:  # noqa: BLE001
            emit(result_message(failed_result("", "invalid plan: %s" % e)))
            return 2
        ctx = KernelContext(kernel_env(os.environ, args.threads), args.tmp)
        if args.wait_go:
            from .serve import run_after_go

            return 0 if run_after_go(plan, ctx, sys.stdin, emit, authenticate=args.authenticate) is not None else 1
        emit(result_message(run_plan(plan, ctx, on_started=lambda kind: emit(started_message(plan["id"], kind)))))
        return 0
    if args.cmd == "serve":
        from .serve import serve

        nest = None
        if args.nest_json is not None:
            from .nest import parse_nest_options, prepare_runner_home

            if args.no_fork:
                print("junobench_runner: --nest-json needs forked kernels (not --no-fork)", file=sys.stderr)
                return 2
            try:
                nest = parse_nest_options(args.nest_json)
            except (OSError, ValueError) as e:
                print("junobench_runner: invalid --nest-json: %s" % e, file=sys.stderr)
                return 2
            prepare_runner_home(nest)
        env = kernel_env(os.environ, args.threads)
        serve(emit, sys.stdin, entry, env, fork=not args.no_fork, jobs=args.jobs, tmp_dir=args.tmp, nest=nest)
        return 0
    if args.cmd == "zygote":
        from .zygote import zygote_main

        zygote_main(args.socket, os.path.dirname(entry), nested=args.nested)
        return 0
    if args.cmd == "probe":
        from .probe import probe

        probe(args.modules)
        return 0
    if args.cmd == "fingerprint":
        from .probe import fingerprint

        fingerprint()
        return 0
    return 2
