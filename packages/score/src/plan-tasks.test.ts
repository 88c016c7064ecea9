import { describe, expect, it } from 'vitest';
import type { DetectTask, DiagnoseTask, Instance, Labels, RepairTask } from '@junobench/core';
import type { Notebook } from '@junobench/notebook';
import { formatTasksJsonl } from './export-tasks.js';
import { TASK_VOCABULARIES, parseAnswerException, planTasks, type DetectKey, type RepairKey } from './plan-tasks.js';
import type { TaskSource } from './read-task-sources.js';
import { makeNotebook, type TestCell } from '../test-helpers/score.js';

const labels: Labels = {
  library: 'pandas',
  crashType: 'key error',
  rootCause: 'API misuse',
  pipelineStage: 'data preparation',
  diagnosis: 'SECRET-DIAGNOSIS',
};

function source(
  id: string,
  reproduced: TestCell[],
  fixed: TestCell[],
  crashCell: number,
  extra: Partial<Instance> & { original?: Notebook } = {},
): TaskSource {
  const { original, ...rest } = extra;
  return {
    id,
    dir: `/instances/${id}`,
    instance: {
      id,
      source: { platform: 'local', datasets: [] },
      crash: { ename: 'KeyError', evalue: "'price'", match: 'exact', cell: crashCell },
      execution: { order: 'file' },
      requires: ['pandas'],
      labels,
      ...rest,
    } as Instance & { labels: Labels },
    reproduced: makeNotebook(reproduced),
    fixed: makeNotebook(fixed),
    ...(original ? { original } : {}),
    files: ['data/prices.csv'],
  };
}

const simple = (id: string) =>
  source(
    id,
    ['import pandas as pd', "df = pd.read_csv('data/prices.csv')", "df['price'].sum()"],
    ['import pandas as pd', "df = pd.read_csv('data/prices.csv')", "df['cost'].sum()"],
    2,
  );

// Out of order: the cell defining `y` (count null) never ran before the crash cell (count 3).
const outOfOrder = source(
  'NBspecific_9',
  [
    { source: 'x = 1  # first', count: 1 },
    { source: '# only a comment', count: 2 },
    { source: 'y = x + 1', count: null },
    { source: 'print(y)  # uses y\n# done', count: 3 },
  ],
  [
    { source: 'x = 1', count: 1 },
    { source: '# only a comment', count: 2 },
    { source: 'y = x + 1', count: 3 },
    { source: 'print(y)', count: 4 },
  ],
  3,
  {
    execution: { order: 'execution-count' },
    crash: { ename: 'NameError', evalue: "name 'y' is not defined", match: 'exact', cell: 3 },
  },
);

const ids = ['pandas_1', 'pandas_2', 'numpy_1', 'numpy_2', 'sklearn_1', 'sklearn_2', 'torch_1', 'torch_2'];
const sources = [...ids.map(simple), outOfOrder];

describe('planTasks', () => {
  const planned = planTasks(sources);
  const detect = planned.tasks.filter((t): t is DetectTask => t.task === 'detect');
  const keyOf = (id: string) => planned.keys.get(id)!;

  it('makes both versions of every instance a detect task, so half of them crash', () => {
    expect(detect).toHaveLength(2 * sources.length);
    const crashes = detect.map((t) => (keyOf(t.id) as DetectKey).crashes);
    expect(crashes.filter(Boolean)).toHaveLength(sources.length);
    expect(planned.tasks.filter((t) => t.task === 'diagnose')).toHaveLength(sources.length);
    expect(planned.tasks.filter((t) => t.task === 'repair')).toHaveLength(sources.length);
  });

  it('gives opaque ids that name neither the instance, the version nor the answer', () => {
    for (const t of planned.tasks) {
      expect(t.id).toMatch(/^(detect|diagnose|repair)-[0-9a-f]{16}$/);
      const text = JSON.stringify(t);
      for (const id of [...ids, 'NBspecific_9']) expect(text).not.toContain(id);
      expect(text).not.toMatch(/reproduced|fixed\.ipynb|SECRET-DIAGNOSIS|API misuse"?,\s*"?pipeline/);
    }
    expect(new Set(planned.tasks.map((t) => t.id)).size).toBe(planned.tasks.length);
  });

  it('is deterministic: same sources and seed → byte-identical tasks; another seed → other ids and order', () => {
    expect(formatTasksJsonl(planTasks([...sources].reverse()).tasks)).toBe(formatTasksJsonl(planned.tasks));
    const other = planTasks(sources, { seed: 'another' });
    expect(other.tasks.map((t) => t.id).filter((id) => planned.keys.has(id))).toEqual([]);
  });

  it('shuffles each kind with the seed, and a kind exported alone is the same as in "all"', () => {
    const instancesInOrder = detect.map((t) => (keyOf(t.id) as DetectKey).instance);
    expect(instancesInOrder).not.toEqual([...instancesInOrder].sort());
    expect(planTasks(sources, { kinds: ['detect'] }).tasks).toEqual(detect);
    expect(planned.tasks.map((t) => t.task)).toEqual([
      ...detect.map(() => 'detect'),
      ...ids.map(() => 'diagnose'),
      'diagnose',
      ...ids.map(() => 'repair'),
      'repair',
    ]);
  });

  it('shows the cells executed before the target, in execution order, without comments', () => {
    const byVersion = (v: string) =>
      detect.find((t) => {
        const k = keyOf(t.id) as DetectKey;
        return k.instance === 'NBspecific_9' && k.version === v;
      })!;
    const crashing = byVersion('reproduced');
    // count order: x = 1 (1), the comment-only cell (2, dropped once stripped), then the target (3); `y = x + 1` never
    // ran.
    expect(crashing.context).toEqual(['x = 1']);
    expect(crashing.target).toBe('print(y)');
    expect(keyOf(crashing.id)).toMatchObject({ crashes: true, exception: 'NameError', cell: 2, target: 2 });
    const fixed = byVersion('fixed');
    expect(fixed.context).toEqual(['x = 1', 'y = x + 1']);
    expect(fixed.target).toBe('print(y)');
    expect(keyOf(fixed.id)).toMatchObject({ crashes: false, cell: null, target: 3 });
    expect(fixed.prompt).toContain('Cells 1 to 2 ran without raising an exception; cell 3 is executed next.');
    expect(crashing.prompt).not.toMatch(/# (first|uses y|done|only a comment)/);
  });

  it("finds the fixed notebook's corresponding cell when the fix moved it", () => {
    const moved = source(
      'moved_1',
      ['a = 1', 'b = 2', "c = {}['k']", 'd = 4'],
      ['a = 1', "c = {'k': 3}['k']", 'b = 2', 'd = 4'],
      2,
    );
    const p = planTasks([moved], { kinds: ['detect'] });
    const fixed = p.tasks.find((t) => (p.keys.get(t.id) as DetectKey).version === 'fixed') as DetectTask;
    expect(fixed.context).toEqual(['a = 1']);
    expect(fixed.target).toBe("c = {'k': 3}['k']");
  });

  it("lists a library outside the canonical list that an exported instance is labelled with, in every diagnose task's vocabulary and prompt", () => {
    const extension = {
      ...simple('keras_nlp_1'),
      instance: { ...simple('keras_nlp_1').instance, labels: { ...labels, library: 'keras_nlp' } },
    };
    const p = planTasks([simple('pandas_1'), extension], { kinds: ['diagnose'] });
    const tasks = p.tasks as DiagnoseTask[];
    for (const t of tasks) {
      expect(t.vocabularies.library).toEqual([...TASK_VOCABULARIES.library, 'keras_nlp']);
      expect(t.prompt).toContain('"hyperopt", "None", "keras_nlp"');
    }
    // Only canonical labels: the canonical list, as before.
    expect((planTasks([simple('pandas_1')], { kinds: ['diagnose'] }).tasks[0] as DiagnoseTask).vocabularies).toEqual(
      TASK_VOCABULARIES,
    );
  });

  it('shows diagnose and repair the crashing notebook with only its error output, taken from original.ipynb', () => {
    const original = makeNotebook(['import pandas as pd', "df = pd.read_csv('data/prices.csv')", "df['price'].sum()"]);
    (original.cells[2] as { outputs: unknown[] }).outputs = [
      { output_type: 'stream', name: 'stdout', text: 'noise' },
      {
        output_type: 'error',
        ename: 'KeyError',
        evalue: "'price'",
        traceback: ['\u001b[0;31mKeyError\u001b[0m Traceback (most recent call last)', "KeyError: 'price'"],
      },
    ];
    const withOriginal = { ...simple('pandas_7'), original };
    const p = planTasks([withOriginal], { kinds: ['diagnose', 'repair'] });
    const diagnose = p.tasks.find((t) => t.task === 'diagnose') as DiagnoseTask;
    expect(diagnose.error).toEqual({
      cell: 2,
      ename: 'KeyError',
      evalue: "'price'",
      traceback: ['KeyError Traceback (most recent call last)', "KeyError: 'price'"],
    });
    const outputs = (diagnose.notebook.cells as { outputs?: unknown[] }[]).map((c) => c.outputs?.length ?? 0);
    expect(outputs).toEqual([0, 0, 1]);
    expect(diagnose.prompt).toContain(
      '--- error output of code cell 2 ---\nKeyError Traceback (most recent call last)',
    );
    expect(diagnose.vocabularies.rootCause).toContain('API misuse');
    const repair = p.tasks.find((t) => t.task === 'repair') as RepairTask;
    expect(repair.execution).toEqual({ order: 'file', cellTimeoutSeconds: 120, timeoutSeconds: 600 });
    expect(repair.files).toEqual(['data/prices.csv']);
    expect(repair.prompt).toContain('every code cell from top to bottom');
    expect((p.keys.get(repair.id) as RepairKey).crashCell).toBe(2);
  });

  it('makes the error output from instance.json when original.ipynb has none for the crash', () => {
    const p = planTasks([simple('pandas_8')], { kinds: ['diagnose'] });
    expect((p.tasks[0] as DiagnoseTask).error).toEqual({
      cell: 2,
      ename: 'KeyError',
      evalue: "'price'",
      traceback: ["KeyError: 'price'"],
    });
  });

  it('keeps only the kernel of the notebook metadata in diagnose and repair notebooks: Kaggle ids would name the published notebook', () => {
    const kaggle = simple('pandas_7');
    kaggle.reproduced.metadata = {
      ...kaggle.reproduced.metadata,
      kaggle: { dataSources: [{ datasetId: 123456, sourceId: 654321 }], dockerImageVersionId: 30746 },
    } as Notebook['metadata'];
    for (const cell of kaggle.reproduced.cells)
      cell.metadata = {
        _cell_guid: 'b1076dfc-b9ad-4769-8c92-a6c4dae69d19',
        _uuid: '8f2839f25d086af736a60e9eeb907d3b93b6e0e5',
        trusted: true,
      };
    const { tasks } = planTasks([kaggle], { kinds: ['diagnose', 'repair'] });
    expect(tasks).toHaveLength(2);
    for (const t of tasks as (DiagnoseTask | RepairTask)[]) {
      const nb = t.notebook as unknown as Notebook;
      expect(Object.keys(nb.metadata).sort()).toEqual(
        Object.keys(makeNotebook([]).metadata)
          .filter((k) => k === 'kernelspec' || k === 'language_info')
          .sort(),
      );
      expect(nb.cells.map((c) => c.metadata)).toEqual(nb.cells.map(() => ({})));
      expect(JSON.stringify(t)).not.toMatch(/_cell_guid|_uuid|654321|dockerImageVersionId/);
    }
  });

  it('warns when the two versions of a detect pair show the same code', () => {
    const same = source('same_1', ['a = 1', "{}['k']"], ['a = 1  # fixed elsewhere', "{}['k']"], 1);
    expect(planTasks([same], { kinds: ['detect'] }).warnings).toEqual([
      expect.stringMatching(/^same_1: its two detect tasks show the same code/),
    ]);
  });
});

describe('parseAnswerException', () => {
  it.each([
    ['KeyError', 'KeyError'],
    ['  builtins.NameError ', 'NameError'],
    ["KeyError: 'income'", 'KeyError'],
    ["KeyError: 'a.b'", 'KeyError'],
    ['pandas.errors.ParserError: Error tokenizing data. C error: Expected 3 fields in line 5, saw 4', 'ParserError'],
    ['ValueError:', 'ValueError'],
    ['NameError : name x', 'NameError'],
    ["a KeyError: 'x'", "a KeyError: 'x'"],
    ["KeyError('x')", "KeyError('x')"],
    ['', ''],
  ])('%j → %j', (answer, expected) => expect(parseAnswerException(answer)).toBe(expected));
});
