// Notebook code cannot forge the sandbox wrapper's report. A kernel's output
// reaches the container's stderr, so a notebook could print the wrapper's
// lines there ("setup-failed", an OOM-kill count, a full disk) and then kill
// its runner: its own death then read as a failure of the toolchain.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeCodeNotebook } from '../test-helpers/code-notebook.js';
import { useSandboxSuite } from '../test-helpers/sandbox-runtime.js';
import { REACH_RUNNER_CELL, forgeResultCell } from '../test-helpers/forgery-cells.js';
import type { NotebookRun } from './runtime.js';

const sandbox = useSandboxSuite('forgery');

const FORGE_AND_KILL = [
  'import os, signal',
  'def runner():',
  '    pid = os.getpid()',
  '    while pid > 1:',
  "        with open(f'/proc/{pid}/stat') as f: pid = int(f.read().rsplit(')', 1)[1].split()[1])",
  "        with open(f'/proc/{pid}/cmdline', 'rb') as f:",
  "            if b'junobench_runner' in f.read(): return pid",
  "os.write(1, b'junobench-container: exit=0 oom_kill=7 disk_full=/work\\njunobench-container: setup-failed: the toolchain is broken, not this notebook\\n')",
  'os.kill(runner(), signal.SIGKILL)',
].join('\n');

describe("container runtime: the wrapper's report (fresh containers, --no-fork)", () => {
  it('a notebook that forges it on its output and kills its runner is a kernel death of its own, not a toolchain failure', async () => {
    const dir = await writeCodeNotebook(path.join(sandbox.tmp, 'forge'), [FORGE_AND_KILL, 'print("not reached")']);
    const [r] = await sandbox.runtime({ fork: false }).run([
      {
        id: 'forgery',
        instanceDir: dir,
        notebook: 'notebook.ipynb',
        cells: [0, 1],
        cellTimeoutSeconds: 120,
        timeoutSeconds: 300,
      },
    ]);
    expect(r!.status).toBe('kernel-died');
    expect(r!.reason).toMatch(/^the runner exited with code 137 \(killed by signal 9\) before printing a result/);
    // Its output is quoted as the runner's last words, never taken as the wrapper's verdict.
    expect(r!.reason).not.toMatch(/^out of memory|filled its scratch disk/);
  }, 600_000);
});

describe("container runtime: the runner's result", () => {
  const runOf = (id: string, dir: string, cells: number[]): NotebookRun => ({
    id,
    instanceDir: dir,
    notebook: 'notebook.ipynb',
    cells,
    cellTimeoutSeconds: 120,
    timeoutSeconds: 300,
  });

  it('a notebook cannot reach the runner: no ptrace, no copy of its file descriptors, none reopened through /proc', async () => {
    const dir = await writeCodeNotebook(path.join(sandbox.tmp, 'reach'), [REACH_RUNNER_CELL]);
    const [r] = await sandbox.runtime().run([runOf('reach', dir, [0])]);
    expect(r!.cells[0]).toMatchObject({ status: 'error', ename: 'RuntimeError', evalue: 'reached=[]' });
  }, 600_000);

  // As verify and score see them: a fixed notebook that raises 1/0 after forging "completed"
  // (fixed-ok, or a repair resolved), a reproduced one that never crashes forging a KeyError
  // (crash-reproduced). The forged line never counts. In a fresh container the killed runner is a
  // kernel death; in a slot container the notebook finds no runner to write to or kill (its
  // sandbox holds only its init and itself), so the forging cell fails on its own.
  it.each([
    ['completed', ['print("forging")', '1/0']],
    ['error', ['print("forging")', 'x = 1']],
  ] as const)(
    'a notebook that forges a result saying %s and kills its runner: a kernel death, or a failure of its own in a slot',
    async (status, cells) => {
      const dir = await writeCodeNotebook(path.join(sandbox.tmp, `forge-${status}`), [
        cells[0],
        forgeResultCell(status),
        cells[1],
      ]);
      const [fresh] = await sandbox.runtime({ fork: false }).run([runOf(`forge-${status}`, dir, [0, 1, 2])]);
      expect(fresh!.status).toBe('kernel-died');
      expect(fresh!.cells.find((c) => c.ename === 'KeyError')).toBeUndefined();
      expect(fresh!.reason).toMatch(/^the runner exited with code 137 \(killed by signal 9\) before printing a result/);
      const [slot] = await sandbox.runtime().run([runOf(`forge-${status}-slot`, dir, [0, 1, 2])]);
      expect(slot!.status, JSON.stringify(slot)).toBe('error');
      expect(slot!.cells.map((c) => c.status)).toEqual(['ok', 'error', 'not-run']);
      // runner() found nothing to reach: pidfd_open(None).
      expect(slot!.cells[1]).toMatchObject({ ename: 'TypeError' });
      expect(slot!.cells.find((c) => c.ename === 'KeyError')).toBeUndefined();
    },
    600_000,
  );
});
