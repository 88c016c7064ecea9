# A spike towards a docker runtime within 1.3x of the local one, not used by the toolchain: inside ONE long-lived
# container, a zygote that imported the kernel stack and the instance's modules forks each notebook's kernel into a
# nested sandbox of its own (user, mount, PID, network and IPC namespaces; fresh tmpfs for /work, /tmp, /dev/shm and
# the runner's folder; its own /proc; the kernel's sockets over ZeroMQ's ipc transport, as it has no network), and
# jupyter_client drives it from outside the sandbox. It prints, per kernel: the sandbox's first pid as the container
# sees it, seconds from fork to a kernel that answers, and what the kernel sees (its pid, /work, how many processes,
# the runner's folder).
#
# Run (the benchmark image of `junobench image build --profile debian`):
#   podman run --rm --ulimit nofile=4096:4096 --ulimit nproc=4096:4096 \
#     --security-opt seccomp=unconfined --security-opt unmask=/proc/* --cap-drop ALL --user 200001:200001 \
#     --read-only --tmpfs /work --tmpfs /tmp --tmpfs /run/jb:mode=1777 \
#     -v "$PWD/bench/verify/nested-kernel-spike.py:/nest.py:ro" <image> python3 /nest.py
#
# What it showed (2026-12-06, 2 cores): a kernel answers 0.46-0.65 s after its fork, against 9.1 s per notebook for
# a fresh container (4.7 s until the kernel is ready, 4.4 s of imports: results.md); the kernel is pid 2 of its own
# namespace (pid 1 reaps), sees 2 processes, only its own /work and only its own folder of the runner's; no
# capability and a non-root uid outside. What the runtime would still need: a seccomp profile that lets the runner
# (not the notebook) create namespaces and mount, the kernel's own filter applied after the sandbox is set up (the
# local runtime's BPF program), `unmask=/proc/*` (Podman) or `systempaths=unconfined` (Docker) so a nested /proc can
# be mounted (or a /proc bound read-only instead), oom_score_adj 1000 on kernels so the container's OOM killer picks
# the notebook and not the runner, per-notebook disk (tmpfs size=) and process limits, and the instance copied as
# root before the runner drops its rights (host files of mode 0600).
import ctypes, importlib, os, sys, time, json, signal
t0 = time.time()
# The zygote's imports: the kernel stack and the instance's modules.
for module in ('ipykernel.kernelapp', 'numpy', 'pandas', 'matplotlib'):
    importlib.import_module(module)
print("zygote imports", round(time.time() - t0, 2), flush=True)
libc = ctypes.CDLL(None, use_errno=True)
NS = 0x10000000 | 0x00020000 | 0x20000000 | 0x40000000 | 0x08000000  # user mnt pid net ipc
MS_REC, MS_PRIVATE, MS_BIND, MS_RDONLY, MS_REMOUNT, MS_NOSUID, MS_NODEV = 16384, 1 << 18, 4096, 1, 32, 2, 4

def mount(src, tgt, fs, flags, data=None):
    if libc.mount(src.encode() if src else None, tgt.encode(), fs.encode() if fs else None, flags, data.encode() if data else None) != 0:
        raise OSError(ctypes.get_errno(), "mount %s: %s" % (tgt, os.strerror(ctypes.get_errno())))

def fork_nested(conn_dir, conn_file, name):
    r, w = os.pipe()
    x = os.fork()
    if x == 0:
        uid, gid = os.getuid(), os.getgid()
        if libc.unshare(NS) != 0:
            os.write(w, b"unshare failed %d" % ctypes.get_errno()); os._exit(1)
        open('/proc/self/setgroups', 'w').write('deny')
        open('/proc/self/uid_map', 'w').write('%d %d 1' % (uid, uid))
        open('/proc/self/gid_map', 'w').write('%d %d 1' % (gid, gid))
        y = os.fork()
        if y != 0:
            os.write(w, str(y).encode()); os._exit(0)
        # y: pid 1 of the new namespace
        mount(None, '/', None, MS_REC | MS_PRIVATE)
        keep = os.open(conn_dir, os.O_PATH)
        for d in ('/work', '/tmp', '/dev/shm', '/run/jb'):
            mount('tmpfs', d, 'tmpfs', MS_NOSUID | MS_NODEV, 'size=64m')
        os.makedirs(conn_dir, exist_ok=True)
        mount('/proc/self/fd/%d' % keep, conn_dir, None, MS_BIND)
        mount('proc', '/proc', 'proc', MS_NOSUID | MS_NODEV)
        z = os.fork()
        if z != 0:
            while True:  # reaper
                try:
                    pid, st = os.wait()
                except ChildProcessError:
                    os._exit(0)
                if pid == z:
                    os._exit(0)
        with open('/work/%s.txt' % name, 'w') as f: f.write(name)
        os.chdir('/work')
        from ipykernel.kernelapp import IPKernelApp
        sys.argv = ['ipykernel_launcher', '-f', conn_file]
        app = IPKernelApp.instance(); app.initialize(); app.start(); os._exit(0)
    os.close(w)
    y = int(os.read(r, 100) or b'0'); os.close(r)
    return y

from jupyter_client import BlockingKernelClient
from jupyter_client.connect import write_connection_file
os.makedirs('/run/jb', exist_ok=True)
results = {}
for name in ('a', 'b'):
    d = '/run/jb/k-' + name
    os.makedirs(d, exist_ok=True)
    cf, _ = write_connection_file(fname=d + '/kernel.json', transport='ipc', ip=d + '/s')
    t = time.time()
    y = fork_nested(d, cf, name)
    kc = BlockingKernelClient(connection_file=cf); kc.load_connection_file(); kc.start_channels()
    kc.wait_for_ready(timeout=30)
    ready = time.time() - t
    code = "import os, numpy; print(os.getpid(), sorted(os.listdir('/work')), len([p for p in os.listdir('/proc') if p.isdigit()]), os.listdir('/run/jb'))"
    out = []
    kc.execute(code)
    while True:
        m = kc.get_iopub_msg(timeout=30)
        if m['msg_type'] == 'stream': out.append(m['content']['text'])
        if m['msg_type'] == 'error': out.append(str(m['content']['evalue']))
        if m['msg_type'] == 'status' and m['content']['execution_state'] == 'idle' and out: break
    results[name] = (y, round(ready, 2), ''.join(out).strip())
    kc.stop_channels()
    os.kill(y, signal.SIGKILL)
print(json.dumps(results), flush=True)
