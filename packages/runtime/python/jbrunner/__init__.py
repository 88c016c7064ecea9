"""The JunoBench notebook runner, by concern.

protocol   RunPlan lines in, typed message lines out (schemas/runner-message.schema.json)
isolation  the process-wide state a forked kernel must get back, and reseeding
zygote     the fork server: processes with the imports done that fork kernels
kernels    one fresh kernel per plan: forked from a zygote, or launched
execute    running a plan's cells in its kernel, with timeouts and per-phase timings
serve      plans on stdin, `jobs` at once, next kernel started ahead
probe      interpreter and package versions
cli        the command line (junobench_runner.py is its entry point)

Only the standard library at import time; jupyter_client and ipykernel are
imported where a kernel is started, so `probe` and the unit tests need neither.
"""
