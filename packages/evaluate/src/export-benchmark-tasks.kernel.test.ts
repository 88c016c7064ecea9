// `tasks export --context runtime` on embedded instances, in real kernels: every detect and diagnose prompt carries
// the state before its target cell, captured by running only the cells before it; no prompt names the exception or
// its message (the target never ran), and the same instances give the same bytes.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSchema, readInstance, type DetectTask, type DiagnoseTask, type Task } from '@junobench/core';
import { createLocalRuntime } from '@junobench/runtime';
import { exportBenchmarkTasks } from './export-benchmark-tasks.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const instancesDir = path.join(repoRoot, 'raw/instances');
// A KeyError on a DataFrame, an out-of-order NameError and a shape mismatch in numpy.
const IDS = ['pandas_1', 'NBspecific_2', 'numpy_2'];

let dir: string;
let tasks: Task[];
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'jb-context-'));
  const report = await exportBenchmarkTasks({
    set: { instancesDir, ids: IDS },
    output: path.join(dir, 'a.jsonl'),
    kinds: ['detect', 'diagnose'],
    context: 'runtime',
    createRuntime: () => createLocalRuntime({}),
    jobs: 2,
  });
  expect(report.states).toMatchObject({ captured: 6, uncaptured: [] });
  tasks = (await readFile(path.join(dir, 'a.jsonl'), 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Task);
}, 600_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('tasks export --context runtime', () => {
  it('every detect and diagnose task carries a captured state, valid against the task schema', () => {
    expect(tasks).toHaveLength(9);
    for (const t of tasks) {
      expect(checkSchema('task', t)).toEqual([]);
      const state = (t as DetectTask | DiagnoseTask).state!;
      expect(state.captured, t.id).toBe(true);
      expect(t.prompt).toMatch(/Runtime state (just )?before (cell|code cell) \d+/);
    }
  });

  it('the state names what the target reads, with its type, shape and columns', () => {
    const withDataFrame = tasks.filter((t) =>
      (t as DetectTask).state?.names.some((n) => n.type === 'pandas.core.frame.DataFrame' && n.columns && n.shape),
    );
    expect(withDataFrame.length).toBeGreaterThan(0);
    const names = tasks.flatMap((t) => (t as DetectTask).state!.names);
    expect(names.every((n) => n.repr.length <= 200 && !/ at 0x[0-9a-f]+/i.test(n.repr))).toBe(true);
  });

  it('no prompt names the exception or its message: the target never ran', async () => {
    for (const id of IDS) {
      const crash = (await readInstance(path.join(instancesDir, id))).crash;
      const cls = crash.ename.split('.').pop()!;
      for (const t of tasks) {
        // The state section: a diagnose prompt is given the error on purpose, and every detect prompt's closing line
        // shows the answer format with an example class (KeyError); neither is the state, which must not name the crash.
        const start = t.prompt.indexOf('Runtime state');
        const text = t.prompt.slice(start, t.prompt.indexOf(t.task === 'detect' ? 'Question:' : 'Classify', start));
        expect(text.length).toBeGreaterThan(0);
        expect(text, `${t.id} names ${cls}`).not.toContain(cls);
        if (crash.evalue.length >= 4) expect(text, `${t.id} quotes the message`).not.toContain(crash.evalue);
      }
    }
  });

  it('the same instances give the same bytes', async () => {
    await exportBenchmarkTasks({
      set: { instancesDir, ids: IDS },
      output: path.join(dir, 'b.jsonl'),
      kinds: ['detect', 'diagnose'],
      context: 'runtime',
      createRuntime: () => createLocalRuntime({}),
      jobs: 2,
    });
    expect(await readFile(path.join(dir, 'b.jsonl'), 'utf8')).toBe(await readFile(path.join(dir, 'a.jsonl'), 'utf8'));
  }, 600_000);
});
