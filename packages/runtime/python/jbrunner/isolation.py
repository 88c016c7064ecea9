"""What makes a forked kernel the same as a launched one (docs/verify.md, "Why it is fast").

A zygote changes process-wide settings for its own sake (it ignores SIGCHLD so
that its children are reaped for it; it serves a socket; it sits in the
runner's working directory). A kernel forked from it inherits all of that
unless it is undone: with SIGCHLD ignored, `subprocess.run(['false'])`
returns 0 and a multiprocessing child has no exit code. So the zygote takes a
`ProcessState` snapshot after its imports and before changing anything, and
every kernel forked from it restores the snapshot first thing.

Random generators are the other inheritance: a fresh interpreter seeds
numpy's global generator (and Debian's torch its default generator) from the
OS at import time, so modules imported in the zygote would give every kernel
the same stream. `reseed_like_fresh_import` does for each module what its
import would have done in a new process.
"""

import os
import resource
import signal

# Thread pools of the numerical libraries, sized per kernel: parallel kernels
# on few cores must not oversubscribe them, and the setting is part of the
# runtime's identity because it can change numerical results.
THREAD_VARIABLES = (
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "BLIS_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
    "TF_NUM_INTRAOP_THREADS",
    "TF_NUM_INTEROP_THREADS",
)

# torch's built-in default seed: a build that seeds its default generator
# with it (upstream) gives every new process the same stream, which a forked
# kernel then must keep; Debian's build seeds from the OS instead.
TORCH_FIXED_DEFAULT_SEED = 67280421310721


def kernel_env(base, threads):
    """The environment every kernel (forked, launched, in a container) gets."""
    env = dict(base)
    # Same hashing of str/bytes in every run: set iteration order can change a
    # crash (or its message), and the benchmark promises the same crash every time.
    env.setdefault("PYTHONHASHSEED", "0")
    for var in THREAD_VARIABLES:
        env[var] = str(threads)
    env.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    # ipykernel 6 loads debugpy, which warns about frozen modules whenever it is imported.
    env.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    env.pop("JPY_PARENT_PID", None)
    return env


def _signals():
    return [s for s in signal.valid_signals() if s not in (signal.SIGKILL, signal.SIGSTOP)]


def _rlimits():
    return [getattr(resource, n) for n in sorted(dir(resource)) if n.startswith("RLIMIT_")]


class ProcessState:
    """Signal dispositions and handlers, signal mask, resource limits,
    environment, umask and working directory of the calling process."""

    def __init__(self):
        # None: a handler installed from C, which Python can neither read nor put back.
        self.handlers = {s: signal.getsignal(s) for s in _signals()}
        self.mask = signal.pthread_sigmask(signal.SIG_BLOCK, [])
        self.rlimits = {r: resource.getrlimit(r) for r in _rlimits()}
        self.env = dict(os.environ)
        umask = os.umask(0o022)
        os.umask(umask)
        self.umask = umask
        self.cwd = os.getcwd()

    def restore(self):
        """Put it all back (main thread only: Python sets handlers there).
        Returns what could not be restored, for the log."""
        problems = []
        for sig, handler in self.handlers.items():
            if handler is None or signal.getsignal(sig) == handler:
                continue
            try:
                signal.signal(sig, handler)
            except (OSError, ValueError, RuntimeError) as e:
                problems.append("signal %s: %s" % (sig, e))
        signal.pthread_sigmask(signal.SIG_SETMASK, self.mask)
        for res, limits in self.rlimits.items():
            if resource.getrlimit(res) != limits:
                try:
                    resource.setrlimit(res, limits)
                except (OSError, ValueError) as e:
                    problems.append("rlimit %s: %s" % (res, e))
        if dict(os.environ) != self.env:
            os.environ.clear()
            os.environ.update(self.env)
        os.umask(self.umask)
        try:
            os.chdir(self.cwd)
        except OSError as e:
            problems.append("cwd: %s" % e)
        return problems


def reseed_like_fresh_import(modules):
    """In a freshly forked process: reseed what the modules in `modules`
    (sys.modules) seeded at import time, as a new interpreter's import would."""
    reseeded = []
    # Python's own `random` reseeds itself after a fork (os.register_at_fork);
    # done here too so the rule does not depend on that.
    rnd = modules.get("random")
    if rnd is not None:
        rnd.seed()
        reseeded.append("random")
    np = modules.get("numpy")
    if np is not None:
        try:
            # numpy seeds its legacy global RandomState from the OS at import.
            np.random.seed()
            reseeded.append("numpy")
        except Exception:  # noqa: BLE001 - a broken numpy fails visibly in the notebook
            pass
    torch = modules.get("torch")
    if torch is not None:
        try:
            if torch.initial_seed() != TORCH_FIXED_DEFAULT_SEED:
                torch.seed()
                reseeded.append("torch")
        except Exception:  # noqa: BLE001
            pass
    return reseeded


def set_stdin_like_launched():
    """A launched kernel's stdin is a pipe whose writing end jupyter_client
    closed at once: reads return end-of-file. Give a forked kernel the same."""
    r, w = os.pipe()
    os.close(w)
    os.dup2(r, 0)
    os.close(r)
