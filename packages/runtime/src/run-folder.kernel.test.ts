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
  // The notebook can write only in its scratch folder: it says there when its loop runs.
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
        source: `open('looping', 'w').close()\nwhile True:\n    pass`,
      },
    ],
  };
  await writeFile(path.join(instance, 'loop.ipynb'), JSON.stringify(nb));
  // A notebook that keeps adding and removing a file in its scratch copy: a removal of the run folder races it.
  const churn = structuredClone(nb);
  churn.cells[0]!.source = `import os\nopen('looping', 'w').close()\nwhile True:\n    open('churn', 'w').close()\n    os.remove('churn')`;
  await writeFile(path.join(instance, 'churn.ipynb'), JSON.stringify(churn));
});

afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

/**
 * Processes whose command line names this test's root or one of `marks`:
 * bubblewrap names the root, and the runner, its zygotes and its kernels
 * (sandboxed, they see other paths) name their runner folder.
 */
function processesUnder(dir: string, marks: string[] = []): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      if ([dir, ...marks].some((m) => cmdline.includes(m))) pids.push(Number(name));
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
  const listing = async () => {
    const [name] = await readdir(root).catch(() => []);
    return name ? (await readdir(path.join(root, name), { recursive: true })).map(String) : [];
  };
  for (let i = 0; i < 1200 && !(await listing()).some((f) => /^box\/scratch-[^/]+\/looping$/.test(f)); i++)
    await sleep(100);
  const [folder] = await readdir(root);
  expect(folder).toMatch(new RegExp(`^junobench-${child.pid}-`));
  const files = await listing();
  expect(files.some((f) => /^box\/scratch-[^/]+\/looping$/.test(f))).toBe(true);
  // What must not outlive the run: the scratch copy and the kernel's connection file (its signing key).
  expect(files.some((f) => /^box\/scratch-[^/]+\/loop\.ipynb$/.test(f))).toBe(true);
  expect(files.some((f) => /kernel-[^/]+\.json$/.test(f))).toBe(true);
  const runners = files.filter((f) => /^box\/runner-[^/]+$/.test(f)).map((f) => path.basename(f));
  expect(processesUnder(root, runners).length).toBeGreaterThanOrEqual(4); // bubblewrap, runner, zygote(s), kernel

  child.kill('SIGKILL');
  await child;
  let left = processesUnder(root, runners);
  for (let i = 0; i < 150 && left.length > 0; i++) {
    await sleep(200);
    left = processesUnder(root, runners);
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

it('a toolchain that exits mid-notebook (Ctrl-C) stops its runner first, and leaves no folder or process', async () => {
  // The run folder went at exit while the runner was still alive: a kernel writing in its scratch copy made the
  // removal fail half-way (ENOTEMPTY), and the folder stayed.
  const exitRoot = await mkdtemp(path.join(tmp, 'exit-root-'));
  const child = await execa('node', ['--import', 'tsx', FIXTURE, exitRoot, instance, 'churn.ipynb', 'exit'], {
    reject: false,
    cwd: path.dirname(FIXTURE),
    timeout: 240_000,
  });
  expect(child.exitCode, child.stderr).toBe(130);
  expect(await readdir(exitRoot)).toEqual([]);
  let left = processesUnder(exitRoot);
  for (let i = 0; i < 150 && left.length > 0; i++) {
    await sleep(200);
    left = processesUnder(exitRoot);
  }
  expect(left).toEqual([]);
}, 300_000);
