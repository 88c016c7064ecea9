"""A forked kernel gets back the zygote's process state, and fresh seeds."""

import os
import random
import resource
import signal
import sys
import types
import unittest

from jbrunner.isolation import THREAD_VARIABLES, TORCH_FIXED_DEFAULT_SEED, ProcessState, kernel_env, reseed_like_fresh_import, set_stdin_like_launched


def in_child(fn):
    """Run fn() in a forked child; returns its exit status (0 = every check held)."""
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            code = 0 if fn() else 3
        except BaseException as e:  # noqa: BLE001
            print("child failed:", repr(e), file=sys.stderr)
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def handler(signum, frame):
    pass


class ProcessStateTest(unittest.TestCase):
    def test_restores_signals_mask_rlimits_env_umask_cwd(self):
        def child():
            state = ProcessState()
            before = (signal.getsignal(signal.SIGCHLD), signal.getsignal(signal.SIGUSR1), resource.getrlimit(resource.RLIMIT_NOFILE))
            # What a zygote (or a module it imported afterwards) might change.
            signal.signal(signal.SIGCHLD, signal.SIG_IGN)
            signal.signal(signal.SIGUSR1, handler)
            signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR2])
            soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
            resource.setrlimit(resource.RLIMIT_NOFILE, (min(soft, 64), hard))
            os.environ["JUNOBENCH_ZYGOTE_ONLY"] = "1"
            old_umask = os.umask(0o077)
            os.chdir("/")
            problems = state.restore()
            after = (signal.getsignal(signal.SIGCHLD), signal.getsignal(signal.SIGUSR1), resource.getrlimit(resource.RLIMIT_NOFILE))
            return (
                problems == []
                and after == before
                and signal.SIGUSR2 not in signal.pthread_sigmask(signal.SIG_BLOCK, [])
                and "JUNOBENCH_ZYGOTE_ONLY" not in os.environ
                and os.umask(old_umask) == old_umask
                and os.getcwd() == state.cwd
            )

        self.assertEqual(in_child(child), 0)

    def test_child_processes_report_their_exit_codes_after_restore(self):
        def child():
            state = ProcessState()
            signal.signal(signal.SIGCHLD, signal.SIG_IGN)
            state.restore()
            return os.system("exit 3") == 768

        self.assertEqual(in_child(child), 0)

    def test_without_restore_the_exit_code_is_lost(self):
        # The failure the restore prevents, so the test above means something.
        def child():
            signal.signal(signal.SIGCHLD, signal.SIG_IGN)
            return os.system("exit 3") == 768

        self.assertEqual(in_child(child), 3)


class KernelEnvTest(unittest.TestCase):
    def test_threads_hash_seed_and_no_parent_pid(self):
        env = kernel_env({"JPY_PARENT_PID": "1", "OMP_NUM_THREADS": "8", "PYTHONHASHSEED": "5", "HOME": "/h"}, 2)
        for var in THREAD_VARIABLES:
            self.assertEqual(env[var], "2", var)
        self.assertEqual(env["PYTHONHASHSEED"], "5")
        self.assertEqual(env["HOME"], "/h")
        self.assertNotIn("JPY_PARENT_PID", env)
        self.assertEqual(kernel_env({}, 1)["PYTHONHASHSEED"], "0")


class ReseedTest(unittest.TestCase):
    def test_reseeds_random_numpy_and_a_torch_seeded_from_the_os(self):
        seeded = []
        np = types.SimpleNamespace(random=types.SimpleNamespace(seed=lambda: seeded.append("numpy")))
        torch_os = types.SimpleNamespace(initial_seed=lambda: 12345, seed=lambda: seeded.append("torch"))
        rnd = types.SimpleNamespace(seed=lambda: seeded.append("random"))
        done = reseed_like_fresh_import({"numpy": np, "torch": torch_os, "random": rnd})
        self.assertEqual(sorted(done), ["numpy", "random", "torch"])
        self.assertEqual(sorted(seeded), ["numpy", "random", "torch"])

    def test_keeps_a_torch_with_the_fixed_default_seed(self):
        # Upstream torch starts every process with the same seed: so must a forked kernel.
        seeded = []
        torch_fixed = types.SimpleNamespace(initial_seed=lambda: TORCH_FIXED_DEFAULT_SEED, seed=lambda: seeded.append("torch"))
        self.assertEqual(reseed_like_fresh_import({"torch": torch_fixed}), [])
        self.assertEqual(seeded, [])

    def test_real_random_differs_between_forked_children(self):
        r, w = os.pipe()

        def child():
            reseed_like_fresh_import(sys.modules)
            os.write(w, b"%d\n" % random.getrandbits(60))
            return True

        self.assertEqual(in_child(child), 0)
        self.assertEqual(in_child(child), 0)
        os.close(w)
        with os.fdopen(r) as f:
            a, b = f.read().split()
        self.assertNotEqual(a, b)


class StdinTest(unittest.TestCase):
    def test_stdin_is_a_pipe_at_end_of_file(self):
        def child():
            set_stdin_like_launched()
            import stat

            return stat.S_ISFIFO(os.fstat(0).st_mode) and os.read(0, 1) == b""

        self.assertEqual(in_child(child), 0)


if __name__ == "__main__":
    unittest.main()
