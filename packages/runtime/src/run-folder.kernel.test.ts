// Orphans (docs/verify.md, "Runs that go wrong"): a toolchain process killed with SIGKILL runs no
// clean-up of its own. Its runner, zygotes and kernels must still go, and its
// temporary files (scratch copies, kernel connection files holding signing
// keys, zygote sockets) must be swept by the next runtime on the same root.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLocalRuntime } from './local-runtime.js';

const FIXTURE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../test-fixtures/run-until-killed.mts');
let tmp: string;
let root: string;
let instance: string;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'jb-orphans-'));
  root = path.join(tmp, 'root');
  instance = path.join(tmp, 'instance');
  await import('node:fs/promises').then((fs) => Promise.all([fs.mkdir(root), fs.mkdir(instance)]));
  const signal = path.join(tmp, 'looping');
  const nb = {
    nbformat: 4,
    nbformat_minor: 4,
    metadata: {},
    cells: [
      {
        cell_type: 'code',
        metadata: {},
        execution_count: null,
        outputs: [],
        source: `open(${JSON.stringify(signal)}, 'w').close()\nwhile True:\n    pass`,
      },
    ],
  };
  await writeFile(path.join(instance, 'loop.ipynb'), JSON.stringify(nb));
});

afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

/** Processes whose command line names this test's root (runner, zygotes, forked and launched kernels). */
function processesUnder(dir: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(dir)) pids.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

it('after a SIGKILL of the toolchain mid-notebook, no process is left and the next runtime sweeps its files', async () => {
  const child = execa('node', ['--import', 'tsx', FIXTURE, root, instance], {
    reject: false,
    cwd: path.dirname(FIXTURE),
  });
  const signal = path.join(tmp, 'looping');
  for (let i = 0; i < 1200 && !existsSync(signal); i++) await sleep(100);
  expect(existsSync(signal)).toBe(true);
  const [folder] = await readdir(root);
  expect(folder).toMatch(new RegExp(`^junobench-${child.pid}-`));
  const files = (await readdir(path.join(root, folder!), { recursive: true })).map(String);
  // What must not outlive the run: the scratch copy and the kernel's connection file (its signing key).
  expect(files.some((f) => /^scratch-[^/]+\/loop\.ipynb$/.test(f))).toBe(true);
  expect(files.some((f) => /kernel-[^/]+\.json$/.test(f))).toBe(true);
  expect(processesUnder(root).length).toBeGreaterThanOrEqual(3); // runner, zygote(s), kernel

  child.kill('SIGKILL');
  await child;
  let left = processesUnder(root);
  for (let i = 0; i < 150 && left.length > 0; i++) {
    await sleep(200);
    left = processesUnder(root);
  }
  expect(left).toEqual([]);
  expect(existsSync(path.join(root, folder!))).toBe(true); // nobody cleaned up: the process was killed

  const rt = await createLocalRuntime({ scratchRoot: root });
  try {
    const [r] = await rt.run([
      {
        id: 'ok',
        instanceDir: instance,
        notebook: 'loop.ipynb',
        cells: [],
        cellTimeoutSeconds: 30,
        timeoutSeconds: 60,
      },
    ]);
    expect(r!.status).toBe('completed');
    expect(existsSync(path.join(root, folder!))).toBe(false);
  } finally {
    await rt.close();
  }
  expect(await readdir(root)).toEqual([]);
}, 300_000);
