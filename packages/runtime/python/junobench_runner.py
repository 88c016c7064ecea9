#!/usr/bin/env python3
"""JunoBench notebook runner: executes notebooks cell by cell in fresh IPython
kernels through the Jupyter client libraries. The same files run on the host
(local runtime) and inside the benchmark image (container runtime). The code
lives in the `jbrunner` package beside this file, by concern (see its
__init__); this is the entry point. Only the standard library, jupyter_client
and ipykernel are needed.

Why `serve` is fast without sharing kernels: kernels are forked from a
"zygote" process that has ipykernel (and, per set of `prewarm` modules, the
notebook's heavy libraries) imported already, so a kernel starts in tens of
milliseconds instead of a second or more; and while one notebook executes, the
kernel for the next queued plan is already being started. Every notebook still
gets its own fresh process and namespace, with the process-wide settings and
random seeds of a launched one (`--no-fork` starts each kernel as a new
interpreter instead, as jupyter_client does).
"""

import sys

from jbrunner.cli import main

if __name__ == "__main__":
    sys.exit(main(entry=__file__))
