import { describe, expect, it } from 'vitest';
import { checkSchema, type DiagnoseTask } from '@junobench/core';
import { suggestLabels, notebookCrashInput } from '@junobench/suggest';
import { planHeuristicAnswers, planOracleAnswers } from './plan-baselines.js';
import { planTasks } from './plan-tasks.js';
import type { TaskSource } from './read-task-sources.js';
import { makeNotebook } from '../test-helpers/score.js';

const source: TaskSource = {
  id: 'pandas_1',
  dir: '/instances/pandas_1',
  instance: {
    id: 'pandas_1',
    source: { platform: 'local', datasets: [] },
    crash: { ename: 'KeyError', evalue: "'price'", match: 'exact', cell: 1 },
    execution: { order: 'file' },
    requires: ['pandas'],
    labels: {
      library: 'pandas',
      crashType: 'key error',
      rootCause: 'data confusion',
      pipelineStage: 'data preparation',
    },
  },
  reproduced: makeNotebook(['import pandas as pd\ndf = pd.DataFrame({"cost": [1]})', "df['price']"]),
  fixed: makeNotebook(['import pandas as pd\ndf = pd.DataFrame({"cost": [1]})', "df['cost']"]),
  original: (() => {
    const nb = makeNotebook(['import pandas as pd\ndf = pd.DataFrame({"cost": [1]})', "df['price']"]);
    (nb.cells[1] as { outputs: unknown[] }).outputs = [
      {
        output_type: 'error',
        ename: 'KeyError',
        evalue: "'price'",
        traceback: [
          'KeyError                                  Traceback (most recent call last)',
          "Cell In[2], line 1\n----> 1 df['price']",
          'File /usr/lib/python3/dist-packages/pandas/core/frame.py:3761, in DataFrame.__getitem__(self, key)\n-> 3761 indexer = self.columns.get_loc(key)',
          "KeyError: 'price'",
        ],
      },
    ];
    return nb;
  })(),
  files: [],
};

describe('baselines', () => {
  const planned = planTasks([source]);
  const ids = planned.tasks.map((t) => t.id);

  it('the oracle answers every task from the key, in the prediction format', () => {
    const lines = planOracleAnswers(ids, planned.keys);
    expect(lines).toHaveLength(4);
    for (const l of lines) expect(checkSchema('prediction', l)).toEqual([]);
    const diagnose = lines.find((l) => l.task === 'diagnose')!;
    expect(diagnose.answer).toEqual({
      library: 'pandas',
      crashType: 'key error',
      rootCause: 'data confusion',
      pipelineStage: 'data preparation',
    });
    expect((lines.find((l) => l.task === 'repair')!.answer as { notebook: unknown }).notebook).toBe(source.fixed);
  });

  it('the heuristic: diagnose from the label suggestions, detect the majority answer; no repairs', () => {
    const lines = planHeuristicAnswers(planned.tasks);
    for (const l of lines) expect(checkSchema('prediction', l)).toEqual([]);
    expect(lines.map((l) => l.task).sort()).toEqual(['detect', 'detect', 'diagnose']);
    const diagnose = lines.find((l) => l.task === 'diagnose')!;
    expect(diagnose.answer).toEqual({
      library: 'pandas',
      crashType: 'key error',
      rootCause: 'data confusion',
      pipelineStage: 'data preparation',
    });
    expect(lines.filter((l) => l.task === 'detect').map((l) => l.answer)).toEqual([
      { crashes: true, exception: 'ValueError' },
      { crashes: true, exception: 'ValueError' },
    ]);
    const task = planned.tasks.find((t) => t.task === 'diagnose') as DiagnoseTask;
    expect(task.error.traceback.join('\n')).toContain('pandas/core/frame.py');
    // The same suggestions `labels suggest` makes on that notebook and crash: its cells reach the estimator.
    const s = suggestLabels(notebookCrashInput(task.notebook as never, { ...task.error, codeCell: task.error.cell }));
    expect(diagnose.answer).toEqual({
      library: s.library.value,
      crashType: s.crashType.value,
      rootCause: s.rootCause.value,
      pipelineStage: s.pipelineStage.value,
    });
    expect(s.crashType.evidence.join(' ')).toContain("'price'");
  });
});
