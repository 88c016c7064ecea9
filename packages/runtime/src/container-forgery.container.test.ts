// Notebook code cannot forge the sandbox wrapper's report. A kernel's output
// reaches the container's stderr, so a notebook could print the wrapper's
// lines there ("setup-failed", an OOM-kill count, a full disk) and then kill
// its runner: its own death then read as a failure of the toolchain.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeCodeNotebook } from '../test-helpers/code-notebook.js';
import { useSandboxSuite } from '../test-helpers/sandbox-runtime.js';

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

describe("container runtime: the wrapper's report", () => {
  it('a notebook that forges it on its output and kills its runner is a kernel death of its own, not a toolchain failure', async () => {
    const dir = await writeCodeNotebook(path.join(sandbox.tmp, 'forge'), [FORGE_AND_KILL, 'print("not reached")']);
    const [r] = await sandbox.runtime().run([
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
