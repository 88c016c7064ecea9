// A notebook cannot write its own verdict in the local runtime: the runner's
// messages are signed with a key no kernel sees, so a result line a cell
// manages to put on the runner's output is not a message, and a runner the
// notebook kills is a failure of that notebook, not a pass.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalRuntime } from './local-runtime.js';
import type { NotebookRun, Runtime } from './runtime.js';
import { writeCodeNotebook } from '../test-helpers/code-notebook.js';
import { forgeResultCell } from '../test-helpers/forgery-cells.js';

let tmp: string;
let rt: Runtime;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'jb-local-forgery-'));
  rt = await createLocalRuntime();
}, 120_000);

afterAll(async () => {
  await rt?.close();
  await rm(tmp, { recursive: true, force: true });
});

const runOf = (id: string, dir: string, cells: number[]): NotebookRun => ({
  id,
  instanceDir: dir,
  notebook: 'notebook.ipynb',
  cells,
  cellTimeoutSeconds: 120,
  timeoutSeconds: 300,
});

describe("local runtime: the runner's result", () => {
  // As verify and score see them: a fixed notebook (or a repair) that raises 1/0 after forging
  // "completed", a reproduced one that never crashes forging a KeyError.
  it.each([
    ['completed', ['print("forging")', '1/0']],
    ['error', ['print("forging")', 'x = 1']],
  ] as const)(
    'a notebook that forges a result saying %s and kills its runner fails',
    async (status, cells) => {
      const dir = await writeCodeNotebook(path.join(tmp, `forge-${status}`), [
        cells[0],
        forgeResultCell(status),
        cells[1],
      ]);
      const [r] = await rt.run([runOf(`forge-${status}`, dir, [0, 1, 2])]);
      expect(r!.status).toBe('failed');
      expect(r!.cells.find((c) => c.ename === 'KeyError')).toBeUndefined();
      expect(r!.reason).toMatch(/^the runner process ended unexpectedly: .*\(while this notebook ran\)$/);
    },
    600_000,
  );
});
