#!/usr/bin/env python3
"""Baseline for bench/verify: execute notebooks one at a time with nbclient.

Reads a JSON list of {"notebook", "cwd", "cells", "prewarm"} on stdin and, for
each, starts a fresh kernel with nbclient's NotebookClient, executes the given
code cells in order (stopping at the first error, as "Run all" does), shuts the
kernel down, and moves to the next. Prints one JSON object with per-notebook
wall times and the time spent inside cells. This is the obvious sequential way
to check a set of notebooks; it shares no kernel between notebooks, like
junobench.

--floor: before the cells, import the notebook's `prewarm` modules (untimed),
so "cells" is the cells' own work without the imports: summed and divided by
the cores, the floor no verifier can go below on this machine. The kernels get
the same one-thread settings as junobench's, so the floor counts the same work.
"""
import json
import os
import sys
import time

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

floor = "--floor" in sys.argv[1:]
if floor:
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[var] = "1"
os.environ.setdefault("PYTHONHASHSEED", "0")
items = json.load(sys.stdin)
out = []
t_all = time.monotonic()
for item in items:
    t0 = time.monotonic()
    nb = nbformat.read(item["notebook"], as_version=4)
    code_cells = [c for c in nb.cells if c.cell_type == "code"]
    client = NotebookClient(nb, timeout=item.get("cellTimeout", 120), kernel_name="python3",
                            resources={"metadata": {"path": item["cwd"]}}, allow_errors=False)
    in_cells = 0.0
    status = "completed"
    with client.setup_kernel():
        if floor and item.get("prewarm"):
            code = "\n".join("try:\n    __import__(%r)\nexcept BaseException:\n    pass" % m for m in item["prewarm"])
            client.kc.execute_interactive(code, silent=True, store_history=False, timeout=300)
        for idx in item["cells"]:
            c0 = time.monotonic()
            try:
                client.execute_cell(code_cells[idx], nb.cells.index(code_cells[idx]))
            except CellExecutionError:
                status = "error"
            except (CellTimeoutError, DeadKernelError) as e:
                status = type(e).__name__
            in_cells += time.monotonic() - c0
            if status != "completed":
                break
    out.append({"notebook": item["notebook"], "status": status, "wallMs": (time.monotonic() - t0) * 1000, "cellsMs": in_cells * 1000})
print(json.dumps({"totalMs": (time.monotonic() - t_all) * 1000, "notebooks": out}))
