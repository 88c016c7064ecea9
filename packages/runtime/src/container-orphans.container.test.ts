// Orphans (docs/verify.md, "Runtimes"), container side: a toolchain killed with SIGKILL
// runs no clean-up. Its containers must not run on to their wall-clock limit
// (705 s by default), not even one that ignores its stdin (its owner's watchdog
// removes it), and containers a dead toolchain left in the engine are removed
// when the next runtime starts.
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type Docker from 'dockerode';
import { connectDockerEngine } from './container-engine.js';
import { CONTAINER_LABEL } from './container-exec.js';
import { OWNER_LABEL, createContainerRuntime } from './container-runtime.js';
import { ensureSandboxTestImage } from '../test-helpers/sandbox-test-image.js';

const FIXTURE = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../test-fixtures/container-run-until-killed.mts',
);
let docker: Docker;
let image: string;
let tmp: string;
const tag = randomBytes(4).toString('hex');

beforeAll(async () => {
  docker = await connectDockerEngine(process.env);
  image = await ensureSandboxTestImage(docker);
  tmp = await mkdtemp(path.join(os.tmpdir(), 'junobench-orphans-'));
});

afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

async function instance(name: string, source: string): Promise<string> {
  const dir = path.join(tmp, name);
  await mkdir(dir, { recursive: true });
  const nb = {
    nbformat: 4,
    nbformat_minor: 4,
    metadata: {},
    cells: [{ cell_type: 'code', metadata: {}, execution_count: null, outputs: [], source }],
  };
  await writeFile(path.join(dir, 'notebook.ipynb'), JSON.stringify(nb));
  return dir;
}

const byRun = (id: string) => docker.listContainers({ all: true, filters: { label: [`org.junobench.run=${id}`] } });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** CPU seconds used by the IPython kernels inside a container, read from the host. */
async function kernelCpuSeconds(containerId: string): Promise<number> {
  let total = 0;
  const { readdir } = await import('node:fs/promises');
  for (const pid of (await readdir('/proc')).filter((n) => /^\d+$/.test(n))) {
    try {
      const [cmdline, cgroup, stat] = await Promise.all([
        readFile(`/proc/${pid}/cmdline`, 'utf8'),
        readFile(`/proc/${pid}/cgroup`, 'utf8'),
        readFile(`/proc/${pid}/stat`, 'utf8'),
      ]);
      if (!cmdline.includes('ipykernel_launcher') || !cgroup.includes(containerId)) continue;
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      total += (Number(f[11]) + Number(f[12])) / 100;
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

it('a SIGKILL of the toolchain mid-notebook ends its containers within seconds, not at their wall-clock limit', async () => {
  const id = `orphan-${tag}`;
  const dir = await instance('loop', 'while True:\n    pass');
  const child = execa('node', ['--import', 'tsx', FIXTURE, image, dir, id], {
    reject: false,
    cwd: path.dirname(FIXTURE),
    env: process.env,
  });
  // The notebook's loop burns CPU in its kernel: it is running (not starting) when the toolchain is killed.
  let container: Docker.ContainerInfo | undefined;
  let looping = false;
  for (let i = 0; i < 1200 && !looping; i++) {
    container ??= (await byRun(id))[0];
    looping = container !== undefined && (await kernelCpuSeconds(container.Id)) >= 3;
    if (!looping) await sleep(100);
  }
  expect(looping).toBe(true);
  // The container that ignores its stdin runs too, and the process has one watchdog, however many containers.
  expect((await byRun(`${id}-deaf`)).map((c) => c.State)).toEqual(['running']);
  const watchdogs = await findWatchdogs(child.pid!);
  expect(watchdogs).toHaveLength(1);
  child.kill('SIGKILL');
  await child;
  let left = [...(await byRun(id)), ...(await byRun(`${id}-deaf`))];
  for (let i = 0; i < 150 && left.length > 0; i++) {
    await sleep(200);
    left = [...(await byRun(id)), ...(await byRun(`${id}-deaf`))];
  }
  expect(left).toEqual([]);
  // Its work done, the watchdog is gone too.
  let alive = watchdogs;
  for (let i = 0; i < 100 && alive.length > 0; i++) {
    await sleep(200);
    alive = await findWatchdogs(child.pid!);
  }
  expect(alive).toEqual([]);
}, 600_000);

/** The live watchdogs of toolchain process `pid` (its owner label is on their command line). */
async function findWatchdogs(pid: number): Promise<number[]> {
  const { readdir } = await import('node:fs/promises');
  const mark = `${OWNER_LABEL}=${os.hostname()}:${pid}:`;
  const found: number[] = [];
  for (const p of (await readdir('/proc')).filter((n) => /^\d+$/.test(n))) {
    const [cmdline, stat] = await Promise.all([
      readFile(`/proc/${p}/cmdline`, 'utf8').catch(() => ''),
      readFile(`/proc/${p}/stat`, 'utf8').catch(() => ''),
    ]);
    const zombie = stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
    if (!zombie && cmdline.split('\0').some((arg) => arg.startsWith(mark))) found.push(Number(p));
  }
  return found;
}

it('containers left by a dead toolchain are removed when the next runtime starts', async () => {
  // As a toolchain killed between create and start leaves it: created, never started, owned by a pid that is gone.
  const stale = await docker.createContainer({
    Image: image,
    Cmd: ['sleep', '600'],
    Labels: {
      [CONTAINER_LABEL]: 'run',
      [OWNER_LABEL]: `${os.hostname()}:4194305:1`,
      'org.junobench.run': `stale-${tag}`,
    },
    HostConfig: { NetworkMode: 'none' },
  });
  // One owned by a live process (this one) is not touched.
  const kept = await docker.createContainer({
    Image: image,
    Cmd: ['sleep', '600'],
    Labels: {
      [CONTAINER_LABEL]: 'run',
      [OWNER_LABEL]: `${os.hostname()}:${process.pid}:`,
      'org.junobench.run': `kept-${tag}`,
    },
    HostConfig: { NetworkMode: 'none' },
  });
  try {
    const rt = createContainerRuntime({ docker, image, memory: '512m' });
    const dir = await instance('ok', 'x = 1');
    const [r] = await rt.run([
      {
        id: `ok-${tag}`,
        instanceDir: dir,
        notebook: 'notebook.ipynb',
        cells: [0],
        cellTimeoutSeconds: 60,
        timeoutSeconds: 120,
      },
    ]);
    await rt.close();
    expect(r!.status).toBe('completed');
    expect(await byRun(`stale-${tag}`)).toEqual([]);
    expect((await byRun(`kept-${tag}`)).map((c) => c.Id)).toEqual([kept.id]);
  } finally {
    await stale.remove({ force: true }).catch(() => undefined);
    await kept.remove({ force: true }).catch(() => undefined);
  }
}, 600_000);
