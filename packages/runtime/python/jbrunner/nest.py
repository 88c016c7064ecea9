"""A sandbox of its own for every kernel of a slot container (docs/verify.md, "Runtimes").

The docker runtime keeps one long-lived container per job slot, whose runner
forks every notebook's kernel from a zygote that imported the libraries once.
Notebooks that share a container must not share anything else, so each
kernel is forked into namespaces of its own before it runs a line of the
notebook:

- a user namespace, in which it maps only its own uid, and in which it then
  has no capability, may not make another (max_user_namespaces is 0 there)
  and is under the local runtime's seccomp program (no ptrace, no
  process_vm_*, no io_uring, no key rings);
- a PID namespace: it sees its own processes only (a /proc of its own), and
  the runner, the zygotes and the other kernels are not there to signal;
- a mount namespace: the runner's folder (the host's run folder, which holds
  every run's scratch copy and connection file) is covered, and only this
  kernel's connection folder is bound back; its working directory, /tmp,
  /var/tmp, /dev/shm and its home are in-memory file systems of its own,
  each of the --disk size, the working directory filled with a copy of its
  scratch copy;
- a network namespace with only a loopback of its own, and an IPC namespace
  (no shared memory or semaphores of another kernel); the kernel's sockets
  use ZeroMQ's ipc transport in its connection folder.

Three processes make one sandbox. The keeper stays in the container's PID
namespace: it is what the runner kills, and it kills the sandbox when the
runner is gone. Under it, the sandbox's init (PID 1 inside): it sets up the
mounts, reaps whatever the notebook leaves and dies with the keeper
(PR_SET_PDEATHSIG), which ends every process of the namespace. Under init,
the kernel. Every kernel's oom_score_adj is 1000: at the container's memory
limit the kernel that holds the most memory is killed, never the runner.

What a notebook that escapes all of this still meets: the container (no
network, its memory, CPU and process limits, a read-only root, the host's run
folder read-only, no capability outside).
"""

import ctypes
import errno
import fcntl
import os
import select
import shutil
import signal
import socket
import struct

from .protocol import set_dumpable

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
NAMESPACES = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS

MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18

PR_SET_PDEATHSIG = 1
PR_CAPBSET_DROP = 24
PR_SET_SECCOMP = 22
PR_SET_NO_NEW_PRIVS = 38
SECCOMP_MODE_FILTER = 2
LINUX_CAPABILITY_VERSION_3 = 0x20080522
SIOCSIFFLAGS = 0x8914
IFF_UP, IFF_LOOPBACK, IFF_RUNNING = 0x1, 0x8, 0x40

# The scratch file systems every kernel gets besides its working directory.
SCRATCH = ("/tmp", "/var/tmp", "/dev/shm")
# How often the keeper checks that the runner still lives.
WATCH_INTERVAL = 1.0

_libc = None


class NestError(Exception):
    """The sandbox could not be set up (the kernel then fails to start, with this message on stderr)."""


def libc():
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
    return _libc


def _check(rc, what):
    if rc != 0:
        e = ctypes.get_errno()
        raise NestError("%s: %s" % (what, os.strerror(e)))


def _mount(source, target, fstype, flags, data=None):
    enc = lambda s: s.encode() if s is not None else None  # noqa: E731
    _check(libc().mount(enc(source), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data)), "mount %s" % target)


def _write(path, text):
    with open(path, "w") as f:
        f.write(text)


class NestSpec:
    """Where one kernel's sandbox comes from.

    `cwd`: its scratch copy (read-only in the container), copied into the
    kernel's own working directory `workdir` (default: at the same path) and,
    when `instance` is set, bound there read-only as well; `conn_dir`: its own
    connection folder, bound back writable; `hide`: folders covered by an
    empty one (the runner's); `home`: the kernel's home (under /tmp) and
    `home_from`: what it starts as a copy of (the image user's home, whose
    caches the image build warmed); `disk`: bytes of each scratch file system;
    `seccomp`: the BPF program (bytes) the kernel runs under, or None;
    `watch_pid`: the runner, whose end ends the sandbox."""

    def __init__(
        self, cwd, conn_dir, hide=(), home=None, home_from=None, disk=1 << 30, seccomp=None, watch_pid=None, workdir=None, instance=None
    ):
        self.cwd = cwd
        self.workdir = workdir or cwd
        self.instance = instance
        self.conn_dir = conn_dir
        self.hide = tuple(hide)
        self.home = home
        self.home_from = home_from
        self.disk = int(disk)
        self.seccomp = seccomp
        self.watch_pid = watch_pid


def enter(spec):
    """In a freshly forked child: become the keeper, fork the sandbox's init,
    which forks the kernel; returns only in the kernel, inside its sandbox.
    The keeper and init never return (they _exit). Raises NestError in the
    calling process when the namespaces cannot be made."""
    try:
        _write("/proc/self/oom_score_adj", "1000")
    except OSError:
        pass  # an engine that refuses it: the kernel is still the biggest process
    uid, gid = os.getuid(), os.getgid()
    # A zygote is not dumpable, so its children's /proc/self files are root's: the maps below need them ours.
    # (The kernel becomes dumpable anyway, as a launched one is; nothing here holds a secret.)
    set_dumpable(True)
    _check(libc().unshare(NAMESPACES), "unshare")
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", "%d %d 1" % (uid, uid))
    _write("/proc/self/gid_map", "%d %d 1" % (gid, gid))
    # The keeper holds the pipe's write end: init sees its end as end of file.
    r, w = os.pipe()
    init = os.fork()
    if init != 0:
        os.close(r)
        _keep(init, spec.watch_pid)
    os.close(w)
    try:
        libc().prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if select.select([r], [], [], 0)[0]:
            os._exit(1)  # the keeper died before the line above: nobody would end this sandbox
        _set_up(spec)
        kernel = os.fork()
    except BaseException as e:  # noqa: BLE001
        os.write(2, ("junobench: the kernel's sandbox could not be set up: %s\n" % e).encode())
        os._exit(1)
    if kernel == 0:
        os.close(r)
        try:
            _drop_privileges(spec.seccomp)
        except BaseException as e:  # noqa: BLE001
            os.write(2, ("junobench: the kernel's sandbox could not be closed: %s\n" % e).encode())
            os._exit(1)
        return
    _reap(kernel)


def _keep(init, watch_pid):
    """The keeper: ends with init (with its status); kills it when the runner is gone."""
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, signal.SIG_DFL)
    try:
        fd = os.pidfd_open(init)
    except (AttributeError, OSError):
        fd = None
    while True:
        if fd is not None:
            select.select([fd], [], [], WATCH_INTERVAL)
        pid, status = os.waitpid(init, 0 if fd is None else os.WNOHANG)
        if pid:
            os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))
        if watch_pid is not None and not _alive(watch_pid):
            os.kill(init, signal.SIGKILL)
            os._exit(0)


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


def _reap(kernel):
    """Init: reap every process of the namespace; end with the kernel (which ends them all)."""
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGCHLD):
        signal.signal(s, signal.SIG_DFL)
    while True:
        try:
            pid, status = os.wait()
        except ChildProcessError:
            os._exit(0)
        except InterruptedError:
            continue
        if pid == kernel:
            os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))


def _set_up(spec):
    """Init, with every capability in its new namespaces: the mounts, the loopback, the user namespace limit."""
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    # Opened before anything is covered: the mounts below hide their paths.
    cwd_fd = os.open(spec.cwd, os.O_PATH | os.O_DIRECTORY)
    conn_fd = os.open(spec.conn_dir, os.O_PATH | os.O_DIRECTORY)
    home_fd = None
    if spec.home_from and os.path.isdir(spec.home_from):
        home_fd = os.open(spec.home_from, os.O_PATH | os.O_DIRECTORY)
    tmpfs = lambda target, mode: _mount(  # noqa: E731
        "tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV, "size=%d,mode=%s" % (spec.disk, mode)
    )
    for d in spec.hide:
        _mount("tmpfs", d, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=755")
    for d in SCRATCH:
        if os.path.isdir(d):
            tmpfs(d, "1777")
    os.makedirs(spec.workdir, exist_ok=True)
    tmpfs(spec.workdir, "755")
    # The notebook's own copy, in memory and within its disk size.
    shutil.copytree("/proc/self/fd/%d" % cwd_fd, spec.workdir, symlinks=True, dirs_exist_ok=True)
    if spec.instance:
        os.makedirs(spec.instance, exist_ok=True)
        _mount("/proc/self/fd/%d" % cwd_fd, spec.instance, None, MS_BIND)
        _mount(None, spec.instance, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    os.makedirs(spec.conn_dir, exist_ok=True)
    _mount("/proc/self/fd/%d" % conn_fd, spec.conn_dir, None, MS_BIND)
    if spec.home:
        os.makedirs(spec.home, exist_ok=True)
        if home_fd is not None:
            try:
                shutil.copytree("/proc/self/fd/%d" % home_fd, spec.home, symlinks=True, dirs_exist_ok=True)
            except (OSError, shutil.Error):
                pass  # caches only: a kernel without them rebuilds them
    for fd in (cwd_fd, conn_fd, home_fd):
        if fd is not None:
            os.close(fd)
    _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    # No user namespace in the sandbox: the kernel cannot get capabilities back.
    _write("/proc/sys/user/max_user_namespaces", "0")
    _mask_proc()
    _loopback_up()


# What container engines hide of /proc (runc's defaults): the slot container shows its /proc whole so that a kernel
# can mount one of its own (a masked /proc cannot be mounted again in a user namespace), so each kernel hides them
# again in its own. Files about the machine and every process on it (sched_debug names them), keys, kernel memory.
PROC_MASKED = (
    "/proc/acpi",
    "/proc/asound",
    "/proc/interrupts",
    "/proc/kcore",
    "/proc/keys",
    "/proc/latency_stats",
    "/proc/sched_debug",
    "/proc/scsi",
    "/proc/timer_list",
    "/proc/timer_stats",
)
PROC_READ_ONLY = ("/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger")


def _mask_proc():
    for p in PROC_MASKED:
        if os.path.isdir(p):
            _mount("tmpfs", p, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=0")
        elif os.path.exists(p):
            _mount("/dev/null", p, None, MS_BIND)
    for p in PROC_READ_ONLY:
        if os.path.exists(p):
            _mount(p, p, None, MS_BIND | MS_REC)
            _mount(None, p, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC)


def _loopback_up():
    """A loopback of the namespace's own, as a container with no network has."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        fcntl.ioctl(s.fileno(), SIOCSIFFLAGS, struct.pack("16sH", b"lo", IFF_UP | IFF_LOOPBACK | IFF_RUNNING))


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def _drop_privileges(seccomp):
    """The kernel: no capability (bounding set included), no new privileges, the seccomp program."""
    lc = libc()
    for cap in range(64):
        if lc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 and ctypes.get_errno() == errno.EINVAL:
            break
    header = _CapHeader(LINUX_CAPABILITY_VERSION_3, 0)
    data = (_CapData * 2)()
    _check(lc.capset(ctypes.byref(header), data), "capset")
    _check(lc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    if seccomp:
        buf = ctypes.create_string_buffer(bytes(seccomp), len(seccomp))
        prog = _SockFprog(len(seccomp) // 8, ctypes.addressof(buf))
        _check(lc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0), "seccomp")


def kernel_pid(keeper):
    """The kernel's pid as the runner sees it (the keeper's grandchild), or None before it exists."""
    pid = keeper
    for _ in range(2):
        try:
            with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
                kids = f.read().split()
        except OSError:
            return None
        if not kids:
            return None
        pid = int(kids[0])
    return pid


def parse_nest_options(text):
    """`serve --nest-json`: {"hide": [folders], "home": path, "home_from": path, "disk": bytes, "seccomp": file}.
    The seccomp program is read here, once; what the zygote gets per kernel is plain JSON."""
    import json

    raw = json.loads(text)
    if not isinstance(raw, dict):
        raise ValueError("not an object")
    hide = raw.get("hide") or []
    if not isinstance(hide, list) or not all(isinstance(h, str) and os.path.isabs(h) for h in hide):
        raise ValueError("hide must be a list of absolute paths")
    disk = raw.get("disk", 1 << 30)
    if not isinstance(disk, int) or disk <= 0:
        raise ValueError("disk must be a positive number of bytes")
    options = {"hide": hide, "disk": disk}
    for key in ("home", "home_from", "workdir", "instance"):
        value = raw.get(key)
        if value is not None and not (isinstance(value, str) and os.path.isabs(value)):
            raise ValueError("%s must be an absolute path" % key)
        options[key] = value
    if raw.get("seccomp"):
        with open(raw["seccomp"], "rb") as f:
            program = f.read()
        if len(program) == 0 or len(program) % 8:
            raise ValueError("%s is not a BPF program (8 bytes per instruction)" % raw["seccomp"])
        options["seccomp"] = program.hex()
    return options


def nest_spec(options, watch_pid):
    """The NestSpec of one kernel from the runner's options and the kernel's own cwd and conn_dir."""
    program = options.get("seccomp")
    return NestSpec(
        cwd=options["cwd"],
        conn_dir=options["conn_dir"],
        hide=options.get("hide") or (),
        home=options.get("home"),
        home_from=options.get("home_from"),
        disk=options.get("disk", 1 << 30),
        seccomp=bytes.fromhex(program) if program else None,
        watch_pid=watch_pid,
        workdir=options.get("workdir"),
        instance=options.get("instance"),
    )


def oom_kills():
    """How many processes the container's memory limit has killed so far (cgroup v2 or v1), or None."""
    for path, key in (("/sys/fs/cgroup/memory.events", "oom_kill"), ("/sys/fs/cgroup/memory/memory.oom_control", "oom_kill")):
        try:
            with open(path) as f:
                for line in f:
                    name, _, value = line.partition(" ")
                    if name == key:
                        return int(value)
        except (OSError, ValueError):
            continue
    return None


def memory_limit():
    """The container's memory limit in bytes, or None."""
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            with open(path) as f:
                text = f.read().strip()
            return int(text) if text.isdigit() else None
        except (OSError, ValueError):
            continue
    return None


def format_size(n):
    """As container-sandbox.ts formatMemorySize writes it: `256 MiB`, `1.5 GiB`, else bytes."""
    for unit, size in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if n >= size and n % (size // 4) == 0:
            value = n / size
            return "%s %s" % (int(value) if value == int(value) else value, unit)
    return "%d bytes" % n


def full_scratch(kernel_pid, options):
    """The kernel's scratch file systems with less than 1 MiB left (its working directory first), read through its
    /proc root while it lives."""
    full = []
    for where in (options.get("workdir") or options.get("cwd"),) + SCRATCH:
        if not where:
            continue
        try:
            st = os.statvfs("/proc/%d/root%s" % (kernel_pid, where))
        except OSError:
            continue
        if st.f_bavail * st.f_frsize < 1024**2:
            full.append(where)
    return full


def explain(result, kernel_pid, options, oom_before):
    """What the container knows and the runner's result does not: the kernel killed at the memory limit, scratch
    file systems filled (the words of the container runtime's, container-sandbox.ts interpretContainerRun)."""
    disk = None
    full = full_scratch(kernel_pid, options) if kernel_pid else []
    if full:
        places = [options.get("workdir") or "the working directory"] + list(SCRATCH)
        disk = "the notebook filled its scratch disk %s (%s each for %s and %s: --disk)" % (
            " and ".join(full),
            format_size(int(options.get("disk") or 0)),
            ", ".join(places[:-1]),
            places[-1],
        )
    after = oom_kills()
    if result.get("status") == "kernel-died" and oom_before is not None and after is not None and after > oom_before:
        limit = memory_limit()
        memory = format_size(limit) if limit else "its"
        reason = result.get("reason")
        result["reason"] = "out of memory: the kernel was killed at the container's %s memory limit%s%s" % (
            memory,
            " (%s)" % reason if reason else "",
            "; %s, which counts toward memory" % disk if disk else "",
        )
        return
    if disk:
        result["reason"] = "%s; %s" % (result["reason"], disk) if result.get("reason") else disk


def prepare_runner_home(options):
    """The runner's (and so its zygotes') home: a copy of the image user's, whose caches (matplotlib's font list) the
    image build warmed, so a zygote's imports do not rebuild them. Caches only: a copy that fails is no error."""
    home, source = options.get("home"), options.get("home_from")
    if not home or os.path.exists(home):
        return
    try:
        if source and os.path.isdir(source):
            shutil.copytree(source, home, symlinks=True)
        else:
            os.makedirs(home)
    except (OSError, shutil.Error):
        pass
