import { mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkSchema, type JunoError, type Task } from '@junobench/core';
import { exportTasks } from './export-tasks.js';
import { planTasks } from './plan-tasks.js';
import { readTaskSources } from './read-task-sources.js';
import { readTaskSet } from './score-predictions.js';
import { writeTestInstance } from '../test-helpers/score.js';

let dir: string;
let instances: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'jb-export-'));
  instances = path.join(dir, 'instances');
  for (const id of ['a_1', 'b_1', 'c_1']) {
    await writeTestInstance(instances, {
      id,
      reproduced: ["rows = open('data/t.csv').read().splitlines()", "int(rows[1].split(',')[1])"],
      fixed: ["rows = open('data/t.csv').read().splitlines()", "float(rows[1].split(',')[1])"],
      crash: { ename: 'ValueError', evalue: "invalid literal for int() with base 10: '2.5'", match: 'exact', cell: 1 },
      data: { 't.csv': 'a,b\n1,2.5\n' },
    });
  }
  // A draft (not yet labelled): left out with its reason.
  const draft = await writeTestInstance(instances, {
    id: 'd_1',
    reproduced: ['x = 1'],
    fixed: ['x = 1'],
    crash: { ename: 'E', evalue: '', match: 'exact', cell: 0 },
  });
  const inst = JSON.parse(await readFile(path.join(draft, 'instance.json'), 'utf8'));
  delete inst.labels;
  inst.status = 'draft';
  await writeFile(path.join(draft, 'instance.json'), JSON.stringify(inst));
});

describe('exportTasks', () => {
  it('writes schema-valid tasks, byte-identical on every run, leaving drafts out', async () => {
    const a = await exportTasks({ instancesDir: instances, output: path.join(dir, 'a.jsonl') });
    await exportTasks({ instancesDir: instances, output: path.join(dir, 'b.jsonl') });
    expect(a.counts).toEqual({ detect: 6, diagnose: 3, repair: 3 });
    expect(a.skipped).toEqual([{ instance: 'd_1', reason: 'a draft (not yet labelled and fixed)' }]);
    const text = await readFile(path.join(dir, 'a.jsonl'), 'utf8');
    expect(await readFile(path.join(dir, 'b.jsonl'), 'utf8')).toBe(text);
    for (const line of text.trim().split('\n')) expect(checkSchema('task', JSON.parse(line))).toEqual([]);
  });

  it('writes repair workspaces without the answers, and refuses a workspace that is not empty', async () => {
    const ws = path.join(dir, 'ws');
    await exportTasks({ instancesDir: instances, output: path.join(dir, 'r.jsonl'), kinds: ['repair'], workspace: ws });
    const ids = (await readFile(path.join(dir, 'r.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as Task).id);
    expect((await readdir(ws)).sort()).toEqual([...ids].sort());
    const one = path.join(ws, ids[0]!);
    expect((await readdir(one)).sort()).toEqual(['data', 'notebook.ipynb']);
    const nb = JSON.parse(await readFile(path.join(one, 'notebook.ipynb'), 'utf8'));
    expect(nb.cells[1].outputs[0]).toMatchObject({ output_type: 'error', ename: 'ValueError' });
    await expect(
      exportTasks({ instancesDir: instances, output: path.join(dir, 'r2.jsonl'), kinds: ['repair'], workspace: ws }),
    ).rejects.toMatchObject({
      code: 'E_USAGE',
    });
  });

  it('refuses a workspace that is a file, naming it, and writes no tasks file', async () => {
    const file = path.join(dir, 'ws-file');
    await writeFile(file, 'notes\n');
    await expect(
      exportTasks({ instancesDir: instances, output: path.join(dir, 'r3.jsonl'), kinds: ['repair'], workspace: file }),
    ).rejects.toMatchObject({
      code: 'E_USAGE',
      message: 'the workspace is a file, not a folder',
      location: { file },
    });
    expect(await readFile(file, 'utf8')).toBe('notes\n');
    await expect(readFile(path.join(dir, 'r3.jsonl'), 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('readTaskSet', () => {
  it('accepts the exported tasks and refuses tasks that are not (or no longer) those of the instances', async () => {
    const file = path.join(dir, 'set.jsonl');
    await exportTasks({ instancesDir: instances, output: file, kinds: ['detect'] });
    const planned = planTasks((await readTaskSources(instances)).sources);
    const set = await readTaskSet(file, planned, { instancesDir: instances });
    expect(set.ids).toHaveLength(6);
    expect(set.instances).toBe(3);

    const lines = (await readFile(file, 'utf8')).trim().split('\n');
    // A prompt worded otherwise (an older junobench) is still the same task: the answers do not depend on it.
    const reworded = JSON.parse(lines[1]!) as Task;
    reworded.prompt = `${reworded.prompt}\n(worded by another version)`;
    await writeFile(file, [lines[0], JSON.stringify(reworded)].join('\n'));
    await expect(readTaskSet(file, planned, { instancesDir: instances })).resolves.toMatchObject({
      ids: [set.ids[0], set.ids[1]],
    });

    const changed = JSON.parse(lines[1]!) as Task & { target: string };
    changed.target = 'print("something else")';
    await writeFile(file, [lines[0], JSON.stringify(changed)].join('\n'));
    await expect(readTaskSet(file, planned, { instancesDir: instances })).rejects.toMatchObject({
      code: 'E_INPUT_ROW',
      location: { line: 2 },
      hint: expect.stringMatching(/-o new-tasks\.jsonl\)/),
    });

    const other = planTasks((await readTaskSources(instances)).sources, { seed: 'another' });
    await writeFile(file, lines[0]!);
    await expect(readTaskSet(file, other, { instancesDir: instances, seed: 'another' })).rejects.toThrow(
      /is not a task of the instances .* with the seed "another"$/,
    );
  });

  it('says that a seed may be missing, not only that the instances changed, and never to export over the tasks file', async () => {
    const file = path.join(dir, 'seeded.jsonl');
    await exportTasks({ instancesDir: instances, output: file, kinds: ['detect'], seed: 'mine' });
    const planned = planTasks((await readTaskSources(instances)).sources);
    const error = await readTaskSet(file, planned, { instancesDir: instances }).then(
      () => undefined,
      (e: unknown) => e as JunoError,
    );
    expect(error?.message).toMatch(/with the seed "junobench-tasks-1"$/);
    expect(error?.hint).toMatch(
      /^if the tasks were exported with another --seed, pass that same --seed here \(the default is junobench-tasks-1\)/,
    );
    expect(error?.hint).not.toContain(`-o ${file}`);
    await expect(
      readTaskSet(file, planTasks((await readTaskSources(instances)).sources, { seed: 'mine' }), {
        instancesDir: instances,
        seed: 'mine',
      }),
    ).resolves.toMatchObject({ instances: 3 });
  });
});
