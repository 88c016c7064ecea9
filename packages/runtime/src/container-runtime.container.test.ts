import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type Docker from 'dockerode';
import { pack } from 'tar-fs';
import { hashTree } from '@junobench/core';
import type { NotebookRun, Runtime } from './runtime.js';
import { connectDockerEngine } from './container-engine.js';
import { createContainerRuntime } from './container-runtime.js';
import { writeCodeNotebook } from '../test-helpers/code-notebook.js';
import { ensureSandboxTestImage } from '../test-helpers/sandbox-test-image.js';

// Real containers on the engine at DOCKER_HOST (tools/setup-engine.sh starts
// one): each test writes a tiny purpose-made notebook into a temporary
// instance folder and runs it in the sandbox image.

let docker: Docker;
let image: string;
let tmp: string;
const prefix = `sandbox-${randomBytes(4).toString('hex')}`;
const runtimes: Runtime[] = [];

beforeAll(async () => {
  docker = await connectDockerEngine(process.env);
  image = await ensureSandboxTestImage(docker);
  tmp = await mkdtemp(path.join(os.tmpdir(), 'junobench-sandbox-'));
});

afterAll(async () => {
  await Promise.all(runtimes.map((r) => r.close()));
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

function runtime(options: Partial<Parameters<typeof createContainerRuntime>[0]> = {}): Runtime {
  const r = createContainerRuntime({ docker, image, memory: '1g', cpus: 1, ...options });
  runtimes.push(r);
  return r;
}

/** A temporary instance folder holding `notebook.ipynb` with these code cells (and data files). */
function instance(name: string, cells: string[], files: Record<string, string> = {}): Promise<string> {
  return writeCodeNotebook(path.join(tmp, name), cells, files);
}

function runOf(name: string, dir: string, cells: number, extra: Partial<NotebookRun> = {}): NotebookRun {
  return {
    id: `${prefix}-${name}`,
    instanceDir: dir,
    notebook: 'notebook.ipynb',
    cells: Array.from({ length: cells }, (_, i) => i),
    cellTimeoutSeconds: 60,
    timeoutSeconds: 120,
    ...extra,
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Thread counts of the processes on this host (a container's processes are visible from the host). */
function threadCounts(): number[] {
  const counts: number[] = [];
  for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      counts.push(Number(/^Threads:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0));
    } catch {
      // gone meanwhile
    }
  }
  return counts;
}

/** Python processes holding at least 900 threads: the hog notebook's kernel, seen from the host. */
function hogKernels(): number[] {
  return readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .filter((pid) => {
      try {
        const status = readFileSync(`/proc/${pid}/status`, 'utf8');
        return /^Name:\s+python/m.test(status) && Number(/^Threads:\s+(\d+)/m.exec(status)?.[1] ?? 0) >= 900;
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
}

/** Containers of this test file still known to the engine (running or not). */
async function leftovers(id: string): Promise<Docker.ContainerInfo[]> {
  return docker.listContainers({ all: true, filters: { label: [`org.junobench.run=${id}`] } });
}

describe('container runtime sandbox (real engine)', () => {
  it('runs a notebook in a fresh container: a crash is reported as the runner reports it, and describe() names the image', async () => {
    const dir = await instance('crash', ['x = 41 + 1', 'import sys\nprint(sys.version)', 'x / 0']);
    const rt = runtime();
    const [r] = await rt.run([runOf('crash', dir, 3)]);
    expect(r!.status).toBe('error');
    expect(r!.cells.map((c) => c.status)).toEqual(['ok', 'ok', 'error']);
    expect(r!.cells[2]).toMatchObject({ ename: 'ZeroDivisionError', evalue: 'division by zero' });
    const id = await rt.describe(['json', 'no_such_module_xyz']);
    expect(id.kind).toBe('docker');
    expect(id.imageId).toMatch(/^(sha256:)?[0-9a-f]{64}$/);
    expect(id.image).toBe(image);
    expect(id.pythonVersion).toMatch(/^3\.\d+/);
    expect(id.packages).toEqual({ json: expect.any(String), no_such_module_xyz: null });
    expect(await leftovers(r!.id)).toEqual([]);
  });

  it('a notebook cannot open a network connection, not even to this machine', async () => {
    // A server on this machine's own address: reachable from any container
    // with a network, so the test fails if the sandbox has one.
    const hostIp = Object.values(os.networkInterfaces())
      .flat()
      .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
    const server = net.createServer((s) => s.end('hello\n'));
    let connections = 0;
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
    const port = (server.address() as net.AddressInfo).port;
    try {
      // Sanity: the server does answer on that address from the host.
      if (hostIp) {
        await new Promise<void>((resolve, reject) => {
          const c = net.connect(port, hostIp, () => {
            c.end();
            resolve();
          });
          c.on('error', reject);
        });
      }
      const target = hostIp ?? '127.0.0.1';
      const dir = await instance('network', [
        'import socket\nnames = [n for _, n in socket.if_nameindex()]\nassert names == ["lo"], names',
        `import socket\ns = socket.create_connection((${JSON.stringify(target)}, ${port}), timeout=10)\nprint(s.recv(10))`,
      ]);
      const [r] = await runtime().run([runOf('network', dir, 2)]);
      expect(r!.cells[0]!.status).toBe('ok');
      expect(r!.status).toBe('error');
      expect(r!.cells[1]!.status).toBe('error');
      expect(r!.cells[1]!.ename).toMatch(/OSError|ConnectionRefusedError|TimeoutError/);
      expect(r!.cells[1]!.evalue).toMatch(/unreachable|refused|timed out/i);
      expect(connections).toBe(hostIp ? 1 : 0);
    } finally {
      server.close();
    }
  });

  it('memory, CPU and process limits are in force inside the container, and the notebook runs unprivileged', async () => {
    const read = (v1: string, v2: string) =>
      `(open(${JSON.stringify(v2)}).read().strip() if os.path.exists(${JSON.stringify(v2)}) else open(${JSON.stringify(v1)}).read().strip())`;
    const dir = await instance('limits', [
      [
        'import os',
        `mem = ${read('/sys/fs/cgroup/memory/memory.limit_in_bytes', '/sys/fs/cgroup/memory.max')}`,
        `assert mem == str(384 * 1024 ** 2), mem`,
        `cpu = ${read('/sys/fs/cgroup/cpu/cpu.cfs_quota_us', '/sys/fs/cgroup/cpu.max')}`,
        // v1: quota in µs per 100 ms period; v2: "quota period".
        `assert cpu.split()[0] == "50000", cpu`,
        `pids = ${read('/sys/fs/cgroup/pids/pids.max', '/sys/fs/cgroup/pids.max')}`,
        `assert pids == "256", pids`,
        // Its own uid, not the image user's: no per-user limit shared with other containers.
        'assert os.getuid() >= 200000 and os.geteuid() == os.getuid(), os.getuid()',
        "caps = [l for l in open('/proc/self/status') if l.startswith(('CapEff', 'CapBnd'))]",
        "assert all(l.split()[1] == '0000000000000000' for l in caps), caps",
        "assert os.getcwd() == '/work', os.getcwd()",
      ].join('\n'),
    ]);
    const [r] = await runtime({ memory: '384m', cpus: 0.5, pidsLimit: 256 }).run([runOf('limits', dir, 1)]);
    expect(r!.cells[0]).toMatchObject({ status: 'ok' });
    expect(r!.status).toBe('completed');
  });

  it('allocating past the memory limit is reported as kernel-died (out of memory)', async () => {
    const dir = await instance('oom', ['x = 1', "hog = b'\\x01' * (1024 ** 3)\nprint(len(hog))"]);
    const [r] = await runtime({ memory: '256m' }).run([runOf('oom', dir, 2)]);
    expect(r!.status).toBe('kernel-died');
    expect(r!.reason).toMatch(/^out of memory/);
    expect(r!.reason).toContain('256 MiB');
    expect(r!.cells.map((c) => c.status)).toEqual(['ok', 'kernel-died']);
    expect(await leftovers(r!.id)).toEqual([]);
  });

  it('writing into the inputs changes only the scratch copy, never the instance on the host', async () => {
    const dir = await instance(
      'inputs',
      [
        // The working copy is writable and really is a copy of the inputs.
        "print(open('data/input.csv').read())\nopen('data/input.csv', 'w').write('overwritten\\n')\nopen('new-file.txt', 'w').write('x')\nimport os, shutil\nos.remove('notebook.ipynb')\nshutil.rmtree('data')",
        // The mounted instance itself is read-only.
        "open('/instance/data/input.csv', 'w').write('overwritten\\n')",
      ],
      { 'data/input.csv': 'a,b\n1,2\n' },
    );
    // Owner-only permissions on the host (like mkdtemp's) must not stop the copy.
    await chmod(dir, 0o700);
    await chmod(path.join(dir, 'data/input.csv'), 0o600);
    const before = await hashTree(dir);
    const [r] = await runtime().run([runOf('inputs', dir, 2)]);
    expect(r!.cells[0]!.status).toBe('ok');
    expect(r!.cells[1]!.status).toBe('error');
    expect(r!.cells[1]!.ename).toMatch(/OSError|PermissionError/);
    expect(r!.cells[1]!.evalue).toMatch(/Read-only file system|Permission denied/);
    expect(await hashTree(dir)).toBe(before);
    expect(await readFile(path.join(dir, 'data/input.csv'), 'utf8')).toBe('a,b\n1,2\n');
    await expect(stat(path.join(dir, 'new-file.txt'))).rejects.toThrow();
  });

  it('an endless loop is stopped at the cell limit and leaves no container behind', async () => {
    const dir = await instance('loop', ['while True:\n    pass']);
    const [r] = await runtime().run([runOf('loop', dir, 1, { cellTimeoutSeconds: 3, timeoutSeconds: 10 })]);
    expect(r!.status).toBe('timeout');
    expect(r!.cells[0]!.status).toBe('timeout');
    expect(await leftovers(r!.id)).toEqual([]);
  });

  it('a limit of years (1e9 s, past what a Node timer holds) is waited for, not taken for an expired one', async () => {
    // Node's setTimeout fires after 1 ms for delays over 2^31-1 ms: the container was killed at once and reported as past its limit.
    const dir = await instance('years', ['import time\ntime.sleep(2)\nprint("done")', 'while True:\n    pass']);
    const [r] = await runtime().run([runOf('years', dir, 2, { cellTimeoutSeconds: 3, timeoutSeconds: 1e9 })]);
    expect(
      r!.cells.map((c) => c.status),
      JSON.stringify(r),
    ).toEqual(['ok', 'timeout']);
    expect(r!.status).toBe('timeout');
    expect(r!.reason).toMatch(/^cell exceeded 3 s/);
    expect(await leftovers(r!.id)).toEqual([]);
  });

  it('fresh containers (--no-fork): a run past the wall-clock limit has its container killed: timeout, and no container behind', async () => {
    // The runner's own limits are far away (300 s): only the container kill can end this run.
    const dir = await instance('wall', [
      'import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    time.sleep(0.1)',
    ]);
    const rt = runtime({ fork: false, wallClockSeconds: () => 12 });
    const [r] = await rt.run([runOf('wall', dir, 1, { cellTimeoutSeconds: 300, timeoutSeconds: 300 })]);
    expect(r!.status).toBe('timeout');
    expect(r!.reason).toBe('the container ran past its 12 s wall-clock limit and was killed');
    expect(await leftovers(r!.id)).toEqual([]);
  });

  it('fresh containers (--no-fork): a container whose runner dies is reported as kernel-died with the reason', async () => {
    const dir = await instance('dies', [
      'import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\nimport time\ntime.sleep(30)',
    ]);
    const [r] = await runtime({ fork: false }).run([runOf('dies', dir, 1)]);
    expect(r!.status).toBe('kernel-died');
    expect(r!.reason).toMatch(/^the runner exited with code 137 \(killed by signal 9\) before printing a result/);
    expect(await leftovers(r!.id)).toEqual([]);
  });

  it("slot containers: a kernel's parent is its sandbox's init, which it cannot kill; the runner is out of its reach", async () => {
    const dir = await instance('parent', [
      'import os, signal\nassert os.getppid() == 1, os.getppid()\nos.kill(os.getppid(), signal.SIGKILL)\nos.kill(1, signal.SIGTERM)',
      'import os\nprint(os.getpid())',
    ]);
    const [r] = await runtime().run([runOf('parent', dir, 2)]);
    expect(r!.status, JSON.stringify(r)).toBe('completed');
  });

  it('the scratch disk is bounded (--disk): writing past it fails in the notebook and the reason names the limit; nothing else is writable', async () => {
    const dir = await instance('disk', [
      [
        'import os, errno',
        "for p in ('/opt/x', '/var/x', '/home/junobench/x', '/x'):",
        '    try:',
        "        open(p, 'w').write('x')",
        "        raise AssertionError('writable: ' + p)",
        '    except OSError as e:',
        '        assert e.errno in (errno.EROFS, errno.EACCES), (p, e)',
        "open(os.path.expanduser('~/ok'), 'w').write('home is writable')",
        "open('/tmp/ok', 'w').write('tmp is writable')",
      ].join('\n'),
      "with open('big.bin', 'wb') as f:\n    for _ in range(100):\n        f.write(b'\\0' * 1024 ** 2)",
    ]);
    const [r] = await runtime({ memory: '512m', disk: '64m' }).run([runOf('disk', dir, 2)]);
    expect(r!.cells[0]!.status).toBe('ok');
    expect(r!.cells[1]).toMatchObject({
      status: 'error',
      ename: 'OSError',
      evalue: expect.stringContaining('No space left on device'),
    });
    expect(r!.reason).toBe(
      'the notebook filled its scratch disk /work (64 MiB each for /work, /tmp, /var/tmp and /dev/shm: --disk)',
    );
    expect(await leftovers(r!.id)).toEqual([]);
  });

  it.each(['/var/tmp', '/dev/shm'])(
    '%s is bounded by --disk too (engines mount their own there): filling it fails and the reason names it',
    async (where) => {
      // Podman mounts a world-writable tmpfs of half the host's memory on /var/tmp
      // when the root is read-only, and a 64 MB /dev/shm: neither followed --disk.
      const dir = await instance(`disk-${where.split('/').pop()}`, [
        [
          'import os',
          `st = os.statvfs(${JSON.stringify(where)})`,
          'size = st.f_blocks * st.f_frsize',
          'assert size == 96 * 1024 ** 2, size',
        ].join('\n'),
        `with open(${JSON.stringify(`${where}/fill`)}, 'wb') as f:\n    for _ in range(200):\n        f.write(b'\\1' * 1024 ** 2)`,
      ]);
      const [r] = await runtime({ memory: '768m', disk: '96m' }).run([runOf(`disk-${where.split('/').pop()}`, dir, 2)]);
      expect(r!.cells[0], JSON.stringify(r)).toMatchObject({ status: 'ok' });
      expect(r!.cells[1]).toMatchObject({
        status: 'error',
        ename: 'OSError',
        evalue: expect.stringContaining('No space left on device'),
      });
      expect(r!.reason).toBe(
        `the notebook filled its scratch disk ${where} (96 MiB each for /work, /tmp, /var/tmp and /dev/shm: --disk)`,
      );
      expect(await leftovers(r!.id)).toEqual([]);
    },
  );

  it('a notebook holding hundreds of threads does not make another container fail to start threads (no shared per-user limit)', async () => {
    const hogDir = await instance('hog', [
      [
        'import os, signal, threading, time',
        'ev = threading.Event()',
        // The test lets go of the hog with a signal from the host once the other notebook ran: a file the host writes
        // would not reach a slot's kernel, whose instance is a copy (the hog then held on for its whole 30 s).
        'stop = []\nsignal.signal(signal.SIGUSR1, lambda *_: stop.append(1))',
        'ts = [threading.Thread(target=ev.wait) for _ in range(900)]',
        'for t in ts:\n    t.start()',
        'end = time.time() + 60',
        'while not stop and time.time() < end:\n    time.sleep(0.1)',
        'ev.set()',
        'for t in ts:\n    t.join()',
      ].join('\n'),
    ]);
    const otherDir = await instance('other', [
      'import subprocess, threading\nts = [threading.Thread(target=lambda: None) for _ in range(200)]\nfor t in ts:\n    t.start()\nfor t in ts:\n    t.join()\nsubprocess.run(["true"], check=True)',
    ]);
    const rt = runtime({ pidsLimit: 4096 });
    const hog = rt.run([runOf('hog', hogDir, 1)]);
    try {
      // The hog's kernel holds its threads (seen from the host) before the other notebook starts.
      let held = false;
      for (let i = 0; i < 1200 && !held; i++) {
        held = threadCounts().some((n) => n >= 900);
        if (!held) await sleep(100);
      }
      expect(held).toBe(true);
      const [other] = await rt.run([runOf('other', otherDir, 1)]);
      expect(other!.status, JSON.stringify(other)).toBe('completed');
    } finally {
      for (const pid of hogKernels()) process.kill(pid, 'SIGUSR1');
    }
    const [h] = await hog;
    expect(h!.status).toBe('completed');
  });

  it("an image whose runner is not this toolchain's is refused before any notebook runs (exit 3, what to do)", async () => {
    // Another toolchain commit's image: the same image with one runner module changed.
    const tag = `junobench/sandbox-test-other-runner:${image.split(':')[1]}`;
    const dockerfile = `FROM ${image}\nUSER root\nRUN printf '\\n# another toolchain\\n' >> /opt/junobench/jbrunner/protocol.py\nUSER junobench\n`;
    const context = path.join(tmp, 'other-runner-image');
    await mkdir(context, { recursive: true });
    await writeFile(path.join(context, 'Dockerfile'), dockerfile);
    const stream = await docker.buildImage(pack(context), { t: tag, networkmode: 'host', rm: true, forcerm: true });
    await new Promise<void>((resolve, reject) =>
      docker.modem.followProgress(stream, (err: Error | null) => (err ? reject(err) : resolve())),
    );
    try {
      const dir = await instance('other-runner', ['print(1)']);
      const rt = runtime({ image: tag });
      const refused = {
        code: 'E_ENV_IMAGE',
        exitCode: 3,
        message: expect.stringMatching(/this toolchain's runner is [0-9a-f]{12}/),
      };
      await expect(rt.describe(['json'])).rejects.toMatchObject(refused);
      await expect(runtime({ image: tag }).run([runOf('other-runner', dir, 1)])).rejects.toMatchObject(refused);
      // The image built from this checkout's runner passes the same check.
      await expect(runtime().describe(['json'])).resolves.toMatchObject({ image });
    } finally {
      await docker
        .getImage(tag)
        .remove({ force: true })
        .catch(() => undefined);
    }
  });

  it('runs several notebooks at once (jobs) and returns their results in order', async () => {
    const dirs = await Promise.all(
      [0, 1, 2].map((i) => instance(`jobs-${i}`, [`import time\ntime.sleep(1)\nprint(${i})`])),
    );
    const runs = dirs.map((d, i) => runOf(`jobs-${i}`, d, 1));
    const results = await runtime({ jobs: 3 }).run(runs, { jobs: 2 });
    expect(results.map((r) => [r.id, r.status])).toEqual(runs.map((r) => [r.id, 'completed']));
    for (const r of results) expect(await leftovers(r.id)).toEqual([]);
  });
});
