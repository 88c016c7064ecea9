"""A kernel's nested sandbox (nest.py), made on this machine: its own processes, files and network, nothing of the
runner's folder but its own connection folder, and nothing left once its keeper is gone."""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

from jbrunner.nest import NestSpec, enter, format_size, kernel_pid, nest_spec, parse_nest_options


def _user_namespaces():
    """Whether this machine lets a process make a user namespace (the sandbox needs it)."""
    pid = os.fork()
    if pid == 0:
        import ctypes

        os._exit(0 if ctypes.CDLL(None, use_errno=True).unshare(0x10000000) == 0 else 1)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0


HAS_USERNS = _user_namespaces()


class OptionsTest(unittest.TestCase):
    def test_reads_the_runner_options_and_the_seccomp_program(self):
        with tempfile.NamedTemporaryFile(suffix=".bpf") as f:
            f.write(b"\x06\x00\x00\x00\x00\x00\xff\x7f")
            f.flush()
            o = parse_nest_options(json.dumps({"hide": ["/run/junobench"], "workdir": "/work", "disk": 1024, "seccomp": f.name}))
        self.assertEqual(o["hide"], ["/run/junobench"])
        self.assertEqual(o["seccomp"], "060000000000ff7f")
        spec = nest_spec(dict(o, cwd="/run/junobench/s", conn_dir="/run/junobench/r/k"), 7)
        self.assertEqual((spec.workdir, spec.cwd, spec.disk, spec.watch_pid), ("/work", "/run/junobench/s", 1024, 7))
        self.assertEqual(spec.seccomp, b"\x06\x00\x00\x00\x00\x00\xff\x7f")

    def test_refuses_what_is_not_an_option(self):
        for bad in ('{"hide": ["relative"]}', '{"disk": 0}', '{"home": "home"}', "[]", '{"seccomp": "/nonexistent.bpf"}'):
            with self.assertRaises((ValueError, OSError), msg=bad):
                parse_nest_options(bad)
        with tempfile.NamedTemporaryFile(suffix=".bpf") as f:
            f.write(b"\x06\x00\x00")
            f.flush()
            with self.assertRaises(ValueError):
                parse_nest_options(json.dumps({"seccomp": f.name}))

    def test_sizes_are_written_as_the_toolchain_writes_them(self):
        self.assertEqual(format_size(64 * 1024**2), "64 MiB")
        self.assertEqual(format_size(4 * 1024**3), "4 GiB")
        self.assertEqual(format_size(1536 * 1024**2), "1.5 GiB")
        self.assertEqual(format_size(1000), "1000 bytes")


@unittest.skipUnless(HAS_USERNS, "this machine allows no user namespaces: the nested sandbox cannot be made here")
class SandboxTest(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="nest-test-")
        self.box = os.path.join(self.root, "box")
        self.scratch = os.path.join(self.box, "scratch")
        self.conn = os.path.join(self.box, "runner", "kernel-1")
        self.other = os.path.join(self.box, "other")
        for d in (self.scratch, self.conn, self.other):
            os.makedirs(d)
        with open(os.path.join(self.scratch, "data.csv"), "w") as f:
            f.write("a,b\n1,2\n")
        with open(os.path.join(self.other, "key"), "w") as f:
            f.write("another kernel's secret")
        self.workdir = os.path.join(self.root, "work")
        self.instance = os.path.join(self.root, "instance")

    def tearDown(self):
        shutil.rmtree(self.root, ignore_errors=True)

    def spec(self):
        return NestSpec(
            cwd=self.scratch,
            conn_dir=self.conn,
            hide=[self.box],
            disk=16 * 1024**2,
            watch_pid=os.getpid(),
            workdir=self.workdir,
            instance=self.instance,
        )

    def in_sandbox(self, code):
        """Fork, enter the sandbox, run `code` (a function returning a dict) in the kernel; its dict and the keeper's pid."""
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            try:
                enter(self.spec())
                out = code()
            except BaseException as e:  # noqa: BLE001
                out = {"failed": repr(e)}
            os.write(w, json.dumps(out).encode())
            os._exit(0)
        os.close(w)
        with os.fdopen(r) as f:
            text = f.read()
        os.waitpid(pid, 0)
        return json.loads(text)

    def test_a_kernel_sees_its_own_processes_files_and_network_only(self):
        def code():
            import ctypes
            import errno
            import socket

            out = {"pid": os.getpid(), "procs": sorted(p for p in os.listdir("/proc") if p.isdigit())}
            out["box"] = sorted(os.listdir(self.box))
            out["work"] = sorted(os.listdir(self.workdir))
            with open(os.path.join(self.workdir, "out.txt"), "w") as f:
                f.write("written")
            try:
                open(os.path.join(self.instance, "data.csv"), "w")
                out["instance"] = "written"
            except OSError as e:
                out["instance"] = e.errno
            with open(os.path.join(self.conn, "sock"), "w") as f:
                f.write("ipc")
            out["interfaces"] = [n for _, n in socket.if_nameindex()]
            lc = ctypes.CDLL(None, use_errno=True)
            out["unshare"] = lc.unshare(0x10000000) == 0 or ctypes.get_errno()
            with open("/proc/self/status") as f:
                status = dict(line.split(":", 1) for line in f)
            out["caps"] = status["CapEff"].strip()
            with open("/proc/self/oom_score_adj") as f:
                out["oom"] = f.read().strip()
            out["errno"] = {"EROFS": errno.EROFS, "ENOSPC": errno.ENOSPC}
            masked = {}
            for p in ("/proc/sched_debug", "/proc/timer_list", "/proc/keys", "/proc/kcore"):
                if os.path.exists(p):
                    with open(p, "rb") as f:
                        masked[p] = len(f.read(4096))
            out["masked"] = masked
            try:
                with open("/proc/sys/kernel/hostname", "w") as f:
                    f.write("x")
                out["proc_sys"] = "written"
            except OSError as e:
                out["proc_sys"] = e.errno
            return out

        out = self.in_sandbox(code)
        self.assertNotIn("failed", out, out.get("failed"))
        self.assertEqual(out["pid"], 2)
        self.assertEqual(out["procs"], ["1", "2"])
        # The runner's folder is covered: only the paths bound back exist (the other kernel's folder is not there).
        self.assertEqual(out["box"], ["runner"])
        self.assertEqual(out["work"], ["data.csv"])
        self.assertEqual(out["instance"], out["errno"]["EROFS"])
        self.assertEqual(out["interfaces"], ["lo"])
        self.assertEqual(out["unshare"], out["errno"]["ENOSPC"])
        self.assertEqual(out["caps"], "0000000000000000")
        self.assertEqual(out["oom"], "1000")
        # What engines mask of /proc is masked again in its own: no list of the machine's processes, /proc/sys read-only.
        self.assertTrue(out["masked"])
        self.assertEqual({p: 0 for p in out["masked"]}, out["masked"])
        self.assertEqual(out["proc_sys"], out["errno"]["EROFS"])
        # What it wrote: its connection folder is the runner's; its working directory was its own copy.
        self.assertTrue(os.path.exists(os.path.join(self.conn, "sock")))
        self.assertFalse(os.path.exists(os.path.join(self.scratch, "out.txt")))

    def test_killing_the_keeper_ends_everything_in_the_sandbox(self):
        mark = "nest-test-daemon-%d" % os.getpid()
        pid = os.fork()
        if pid == 0:
            try:
                enter(self.spec())
                # A daemon detached from the kernel: a new session, a double fork.
                subprocess.Popen(
                    [sys.executable, "-c", "import os, time\nif os.fork() == 0:\n    time.sleep(60)", mark], start_new_session=True
                ).wait()
                time.sleep(60)
            finally:
                os._exit(0)
        deadline = time.time() + 10
        while time.time() < deadline and not self._with(mark):
            time.sleep(0.05)
        self.assertTrue(self._with(mark), "the daemon never started")
        self.assertIsNotNone(kernel_pid(pid))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        deadline = time.time() + 10
        while time.time() < deadline and self._with(mark):
            time.sleep(0.05)
        self.assertEqual(self._with(mark), [])

    @staticmethod
    def _with(text):
        found = []
        for p in os.listdir("/proc"):
            if not p.isdigit():
                continue
            try:
                with open("/proc/%s/cmdline" % p, "rb") as f:
                    if text.encode() in f.read():
                        found.append(int(p))
            except OSError:
                pass
        return found


if __name__ == "__main__":
    unittest.main()
