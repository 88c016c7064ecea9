// Notebooks of one run of the docker runtime cannot reach each other: while an
// "owner" notebook holds files in every writable place, memory with a marker
// and a child process, a "prober" running beside it (jobs 2, with a third
// notebook's container started ahead) looks for them everywhere it can write
// or list, signals every process id it can address, and overwrites its own
// copies of the same paths. The owner then finds everything as it left it.
// Whatever the runtime's design (a container per notebook today, or notebooks
// forked into nested sandboxes of a long-lived container), this must hold.
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type Docker from 'dockerode';
import type { RunResult } from '@junobench/core';
import type { NotebookRun, Runtime } from './runtime.js';
import { connectDockerEngine } from './container-engine.js';
import { createContainerRuntime } from './container-runtime.js';
import { writeCodeNotebook } from '../test-helpers/code-notebook.js';
import { ensureSandboxTestImage } from '../test-helpers/sandbox-test-image.js';

let docker: Docker;
let image: string;
let tmp: string;
let rt: Runtime | undefined;
// The owner's secret. The prober's code holds it reversed only (and no run id holds it), so whatever the prober
// finds holding the secret is the owner's, never its own source or command line.
const marker = `junobench-isolation-${randomBytes(6).toString('hex')}`;
const reversed = [...marker].reverse().join('');
const runPrefix = `isolation-${randomBytes(4).toString('hex')}`;

beforeAll(async () => {
  docker = await connectDockerEngine(process.env);
  image = await ensureSandboxTestImage(docker);
  tmp = await mkdtemp(path.join(os.tmpdir(), 'junobench-isolation-'));
});

afterAll(async () => {
  await rt?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

const WRITABLE = ['/work', '/tmp', '/var/tmp', '/dev/shm'];

// Each notebook ends by raising its report (the cell's error message is the one output a result carries).
const REPORT = `raise RuntimeError('REPORT ' + json.dumps(report))`;

// The owner: its secret in every writable place, in its memory and in a child's command line; then it waits for the
// prober, and checks that nothing of it changed.
const OWNER = [
  `import json, os, signal, subprocess, sys, time
MARK = ${JSON.stringify(marker)}
report = {'start': time.time()}
for d in ${JSON.stringify(WRITABLE)}:
    with open(os.path.join(d, 'secret.txt'), 'w') as f:
        f.write(MARK + ' owner')
held = bytearray((MARK + ' in memory ').encode() * 1000)
child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)', MARK + '-child'])
report['held'] = time.time()
# The test signals it once the prober has reported (at most 60 s): the two cannot tell each other.
stop = []
signal.signal(signal.SIGUSR1, lambda *_: stop.append(1))`,
  `end = time.time() + 60
while not stop and time.time() < end:
    time.sleep(0.1)`,
  `report['end'] = time.time()
problems = []
for d in ${JSON.stringify(WRITABLE)}:
    text = open(os.path.join(d, 'secret.txt')).read()
    if text != MARK + ' owner':
        problems.append('%s/secret.txt now holds %r' % (d, text))
if child.poll() is not None:
    problems.append('its child ended: %r' % child.returncode)
if bytes(held[:len(MARK)]) != MARK.encode():
    problems.append('its memory changed')
child.kill()
report['problems'] = problems
${REPORT}`,
];

// The prober: waits until the owner holds its things, then looks for them and tries to reach them.
const PROBER = [
  `import json, os, stat, time
MARK = ${JSON.stringify(reversed)}[::-1]
time.sleep(6)
report = {'start': time.time()}
found = []
# Every process id it can address (signal 0 checks without sending) must be one of those it lists, and none of
# those may be the owner's.
addressable = set()
for p in range(1, int(open('/proc/sys/kernel/pid_max').read())):
    try:
        os.kill(p, 0)
    except ProcessLookupError:
        continue
    except PermissionError:
        pass
    addressable.add(p)
pids = [int(p) for p in os.listdir('/proc') if p.isdigit()]
# Threads are addressable too: every task of every process it lists.
listed = set(pids)
for p in pids:
    try:
        listed.update(int(t) for t in os.listdir('/proc/%d/task' % p))
    except OSError:
        pass
for p in pids:
    try:
        with open('/proc/%d/cmdline' % p, 'rb') as f:
            if MARK.encode() in f.read():
                found.append('process %d' % p)
    except OSError:
        pass
# Every regular file under every mount point it has (the system's own folders aside): none holds the owner's secret.
mounts = sorted({line.split()[4] for line in open('/proc/self/mountinfo')})
def skipped(d):
    return d != '/dev/shm' and any(d == s or d.startswith(s + '/') for s in ('/proc', '/sys', '/usr', '/lib', '/bin', '/sbin', '/etc', '/dev'))
for top in mounts:
    for root, dirs, files in os.walk(top):
        if skipped(root):
            dirs[:] = []
            continue
        for name in files:
            path = os.path.join(root, name)
            try:
                if not stat.S_ISREG(os.lstat(path).st_mode):
                    continue
                with open(path, 'rb') as f:
                    if MARK.encode() in f.read(1 << 20):
                        found.append(path)
            except OSError:
                pass
# Its own copies of the owner's paths: written, and never the owner's.
for d in ${JSON.stringify(WRITABLE)}:
    with open(os.path.join(d, 'secret.txt'), 'w') as f:
        f.write('prober was here')
report.update(end=time.time(), found=found, others=sorted(addressable - listed)[:20], mounts=mounts)
${REPORT}`,
];

function run(id: string, dir: string, cells: number): NotebookRun {
  return {
    id: `${runPrefix}-${id}`,
    instanceDir: dir,
    notebook: 'notebook.ipynb',
    cells: Array.from({ length: cells }, (_, i) => i),
    cellTimeoutSeconds: 90,
    timeoutSeconds: 150,
  };
}

interface Report {
  start: number;
  held?: number;
  end: number;
  problems?: string[];
  found?: string[];
  others?: number[];
}

/** Processes of this machine whose command line holds `text` (a container's processes are visible from the host). */
function hostProcessesWith(text: string): number[] {
  const found: number[] = [];
  for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(text)) found.push(Number(pid));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

function reportOf(r: RunResult): Report {
  const evalue = r.cells.find((c) => c.evalue?.startsWith('REPORT '))?.evalue;
  if (!evalue) throw new Error(`${r.id}: no report (${r.status}: ${r.reason ?? ''} ${JSON.stringify(r.cells)})`);
  return JSON.parse(evalue.slice('REPORT '.length)) as Report;
}

describe('docker runtime: notebooks of one run cannot reach each other', () => {
  it('a notebook beside another sees none of its processes, files or memory, and changes none of them', async () => {
    const owner = await writeCodeNotebook(path.join(tmp, 'owner'), OWNER);
    const prober = await writeCodeNotebook(path.join(tmp, 'prober'), PROBER);
    // Three runs on two jobs: the owner and the prober run together, each in a job of its own; the third's container
    // starts ahead (in the owner's job) meanwhile.
    const runs = [run('owner', owner, OWNER.length), run('owner-2', owner, 1), run('prober', prober, PROBER.length)];
    rt = createContainerRuntime({ docker, image, memory: '1g', cpus: 1, jobs: 2 });
    // Once the prober has reported, the owner is told to check its things (SIGUSR1 to its kernel, the parent of its
    // marked child, from the host) instead of sleeping for as long as the prober could take.
    const [ownerResult, , proberResult] = await rt.run(runs, {
      jobs: 2,
      onResult: (_result, r) => {
        if (r.id !== `${runPrefix}-prober`) return;
        for (const child of hostProcessesWith(`${marker}-child`)) {
          try {
            const parent = /^PPid:\s+(\d+)/m.exec(readFileSync(`/proc/${child}/status`, 'utf8'))?.[1];
            // Only the kernel (a Python process), never whatever adopted an orphaned child.
            if (parent && /^Name:\s+python/m.test(readFileSync(`/proc/${parent}/status`, 'utf8')))
              process.kill(Number(parent), 'SIGUSR1');
          } catch {
            // gone meanwhile: the owner then checks after its 60 s
          }
        }
      },
    });
    const o = reportOf(ownerResult!);
    const p = reportOf(proberResult!);
    // They overlapped: the prober looked while the owner held its things.
    expect(p.start).toBeGreaterThan(o.held!);
    expect(p.end).toBeLessThan(o.end);
    expect(p.found).toEqual([]);
    expect(p.others).toEqual([]);
    expect(o.problems).toEqual([]);
  }, 300_000);
});

// What one notebook leaves behind in a slot container (docs/verify.md, "Runtimes": kernels forked into
// sandboxes of their own, one notebook after another): files in every writable place, a daemon detached
// from its kernel (a new session, a double fork), memory. The next notebook of the same slot finds none of it.
const LEAVER = [
  `import os, subprocess, sys, time
MARK = ${JSON.stringify(marker)}
for d in ${JSON.stringify(WRITABLE)}:
    with open(os.path.join(d, 'secret.txt'), 'w') as f:
        f.write(MARK + ' leaver')
held = bytearray((MARK + ' in memory ').encode() * 1000)
daemon = subprocess.Popen([sys.executable, '-c', 'import os, time\\nif os.fork() == 0:\\n    time.sleep(300)', MARK + '-daemon'], start_new_session=True)
daemon.wait()
print('left')`,
];

describe('docker runtime: a notebook after another in the same slot', () => {
  it('finds nothing the one before it left: no file, no process it detached, no memory', async () => {
    const leaver = await writeCodeNotebook(path.join(tmp, 'leaver'), LEAVER);
    const prober = await writeCodeNotebook(path.join(tmp, 'prober-after'), PROBER);
    const slot = createContainerRuntime({ docker, image, memory: '1g', cpus: 1, jobs: 1 });
    try {
      const [left, after] = await slot.run(
        [run('leaver', leaver, LEAVER.length), run('after', prober, PROBER.length)],
        {
          jobs: 1,
        },
      );
      expect(left!.status, JSON.stringify(left)).toBe('completed');
      const p = reportOf(after!);
      expect(p.found).toEqual([]);
      expect(p.others).toEqual([]);
      // Not merely out of sight: seen from this machine, the daemon is gone with its sandbox.
      expect(hostProcessesWith(`${marker}-daemon`)).toEqual([]);
    } finally {
      await slot.close();
    }
  }, 300_000);
});
