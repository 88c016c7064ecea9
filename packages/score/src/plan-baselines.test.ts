import { describe, expect, it } from 'vitest';
import { checkSchema, type DiagnoseTask } from '@junobench/core';
import { JUNOBENCH_MAJORITY, planCrashType, planHeuristicAnswers, planOracleAnswers } from './plan-baselines.js';
import { planTasks } from './plan-tasks.js';
import type { TaskSource } from './read-task-sources.js';
import { makeNotebook } from '../test-helpers/score.js';

describe('planCrashType (the heuristic: crash type from the exception)', () => {
  it.each([
    ['KeyError', "'price'", 'key error'],
    ['builtins.KeyError', "'price'", 'key error'],
    ['IndexError', 'index 3 is out of bounds', 'index error'],
    ['numpy.exceptions.AxisError', 'axis 2 is out of bounds', 'index error'],
    ['NameError', "name 'X_train' is not defined", 'variable not found'],
    ['AttributeError', "'DataFrame' object has no attribute 'ix'", 'attribute error'],
    ['TypeError', 'fit() got an unexpected keyword argument', 'invalid argument'],
    ['ValueError', 'operands could not be broadcast together with shapes (90,) (60,)', 'unsupported broadcast'],
    ['ValueError', 'The feature names should match those that were passed during fit.', 'feature name mismatch'],
    ['ValueError', 'Input contains NaN, infinity or a value too large', 'data value violation'],
    ['ValueError', 'x and y must have same first dimension, but have shapes (10,) and (9,)', 'tensor shape mismatch'],
    ['ValueError', "multiple must be one of ['layer', 'stack', 'fill', 'dodge']", 'value error'],
    ['RuntimeError', 'mat1 and mat2 shapes cannot be multiplied (64x784 and 256x64)', 'tensor shape mismatch'],
    ['RuntimeError', 'CUDA error: device-side assert triggered', 'runtime error'],
    ['ModuleNotFoundError', "No module named 'xgboost'", 'module not found'],
    ['FileNotFoundError', "No such file or directory: 'train.csv'", 'io error'],
    ['NotFittedError', 'This StandardScaler instance is not fitted yet.', 'model initialization error'],
    ['SomethingElseError', 'who knows', JUNOBENCH_MAJORITY.crashType],
  ])('%s: %s → %s', (ename, evalue, expected) => {
    expect(planCrashType(ename, evalue)).toBe(expected);
  });
});

const source: TaskSource = {
  id: 'pandas_1',
  dir: '/instances/pandas_1',
  instance: {
    id: 'pandas_1',
    source: { platform: 'local', datasets: [] },
    crash: { ename: 'KeyError', evalue: "'price'", match: 'exact', cell: 1 },
    execution: { order: 'file' },
    requires: ['pandas'],
    labels: { library: 'pandas', crashType: 'key error', rootCause: 'data confusion', pipelineStage: 'data preparation' },
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
    expect(diagnose.answer).toEqual({ library: 'pandas', crashType: 'key error', rootCause: 'data confusion', pipelineStage: 'data preparation' });
    expect((lines.find((l) => l.task === 'repair')!.answer as { notebook: unknown }).notebook).toBe(source.fixed);
  });

  it('the heuristic: library from the estimator, crash type from the exception, the rest the majority class; no repairs', () => {
    const lines = planHeuristicAnswers(planned.tasks);
    for (const l of lines) expect(checkSchema('prediction', l)).toEqual([]);
    expect(lines.map((l) => l.task).sort()).toEqual(['detect', 'detect', 'diagnose']);
    const diagnose = lines.find((l) => l.task === 'diagnose')!;
    expect(diagnose.answer).toEqual({ library: 'pandas', crashType: 'key error', rootCause: 'API misuse', pipelineStage: 'training' });
    expect(lines.filter((l) => l.task === 'detect').map((l) => l.answer)).toEqual([
      { crashes: true, exception: 'ValueError' },
      { crashes: true, exception: 'ValueError' },
    ]);
    const task = planned.tasks.find((t) => t.task === 'diagnose') as DiagnoseTask;
    expect(task.error.traceback.join('\n')).toContain('pandas/core/frame.py');
  });
});
