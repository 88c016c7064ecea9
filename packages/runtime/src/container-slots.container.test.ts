// What a notebook that broke out of its nested sandbox (nest.py) would be in: the slot container itself
// (container-slots.ts). Its own process runs here where the runner would, as the runner's uid, and finds
// the container's limits: no network, its memory and process limits, a read-only root and run folder, no
// capability, and the nesting profile's refusals (no ptrace, no process_vm_*).
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type Docker from 'dockerode';
import { connectDockerEngine, readEngineKind } from './container-engine.js';
import { runContainer } from './container-exec.js';
import type { ContainerRunSettings } from './container-sandbox.js';
import { planSlotContainer } from './container-slots.js';
import { formatSeccompProfile, planSeccompProfile } from './seccomp-profile.js';
import { ensureSandboxTestImage } from '../test-helpers/sandbox-test-image.js';

let docker: Docker;
let image: string;
let tmp: string;

beforeAll(async () => {
  docker = await connectDockerEngine(process.env);
  image = await ensureSandboxTestImage(docker);
  tmp = await mkdtemp(path.join(os.tmpdir(), 'junobench-slot-'));
});

afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

const CHECK = `
import ctypes, errno, json, os, socket
out = {}
out['uid'] = os.getuid()
out['interfaces'] = [n for _, n in socket.if_nameindex()]
try:
    socket.create_connection(('10.0.2.2', 80), timeout=3)
    out['net'] = 'connected'
except OSError as e:
    out['net'] = e.errno
def read(*paths):
    for p in paths:
        if os.path.exists(p):
            return open(p).read().split()[0]
out['memory'] = read('/sys/fs/cgroup/memory.max', '/sys/fs/cgroup/memory/memory.limit_in_bytes')
out['pids'] = read('/sys/fs/cgroup/pids.max', '/sys/fs/cgroup/pids/pids.max')
status = dict(l.split(':', 1) for l in open('/proc/self/status'))
out['caps'] = [status[k].strip() for k in ('CapEff', 'CapPrm', 'CapBnd')]
out['seccomp'] = status['Seccomp'].strip()
writes = {}
for p in ('/x', '/opt/x', '/run/junobench/x', '/run/junobench/inside/x'):
    try:
        open(p, 'w').write('x')
        writes[p] = 'written'
    except OSError as e:
        writes[p] = e.errno
out['writes'] = writes
libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace(0, 0, 0, 0)
out['ptrace'] = ctypes.get_errno()
libc.syscall(310, 1, 0, 0, 0, 0, 0)
out['process_vm_readv'] = ctypes.get_errno()
# Outside a user namespace of its own, mounting needs a capability it has not got.
out['mount'] = libc.mount(b'tmpfs', b'/tmp', b'tmpfs', 0, None) == 0 or ctypes.get_errno()
print(json.dumps(out))
`;

it("a notebook escaped from its sandbox would still meet the slot container's limits", async () => {
  const engine = await readEngineKind(docker);
  const profile = formatSeccompProfile(planSeccompProfile({ nesting: true }));
  let seccomp = profile;
  if (engine === 'podman') {
    seccomp = path.join(tmp, 'seccomp-nesting.json');
    await writeFile(seccomp, profile, { mode: 0o644 });
  }
  const box = path.join(tmp, 'box');
  await mkdir(path.join(box, 'inside'), { recursive: true, mode: 0o777 });
  await mkdir(path.join(box, 'runner-x'), { mode: 0o1777 });
  const settings: ContainerRunSettings = {
    image,
    memoryBytes: 384 * 1024 ** 2,
    diskBytes: 64 * 1024 ** 2,
    nanoCpus: 1e9,
    pidsLimit: 200,
    threads: 1,
    python: 'python3',
    runnerPath: '/opt/junobench/junobench_runner.py',
    user: 'junobench',
    startupTimeoutSeconds: 60,
    wallClockSeconds: () => 60,
    seccompNesting: seccomp,
    engine,
  };
  const spec = planSlotContainer(settings, 1, path.join(box, 'runner-x'), box, 200_777, true);
  const outcome = await runContainer(docker, {
    ...spec,
    cmd: ['python3', '-c', CHECK],
    waitForGo: false,
    wallClockSeconds: 60,
    labels: { 'org.junobench.test': 'slot-escape' },
  });
  expect(outcome.exitCode, outcome.stderr).toBe(0);
  const out = JSON.parse(outcome.stdout.trim().split('\n').pop()!) as Record<string, unknown>;
  expect(out).toMatchObject({
    uid: 200_777,
    interfaces: ['lo'],
    memory: String(384 * 1024 ** 2),
    pids: '200',
    caps: ['0000000000000000', '0000000000000000', '0000000000000000'],
    seccomp: '2',
    writes: {
      '/x': expect.any(Number),
      '/opt/x': expect.any(Number),
      '/run/junobench/x': 30,
      '/run/junobench/inside/x': 30,
    },
    ptrace: 1,
    process_vm_readv: 1,
    mount: 1,
  });
  expect(out.net).not.toBe('connected');
  expect([13, 30]).toContain((out.writes as Record<string, number>)['/x']);
}, 300_000);
