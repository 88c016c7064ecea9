import { describe, expect, it } from 'vitest';
import type { CrashRecord, LibraryName } from '@junobench/core';
import { predictLibraryBaseline } from './predict-library-baseline.js';

const rec = (traceback: string[]): CrashRecord => ({
  id: 'x',
  notebook: 'n',
  source: 'kaggle',
  ename: 'E',
  evalue: '',
  traceback,
  columns: {},
});

describe('predictLibraryBaseline (keyword counting, crash line ×3)', () => {
  it.each<[string, string[], LibraryName]>([
    ['no keyword → None', ['NameError: name x is not defined'], 'None'],
    [
      'counts keywords over the traceback',
      ['File /site-packages/pandas/core/frame.py', 'File /site-packages/pandas/core/base.py', '----> 1 np.zeros(3)'],
      'numpy',
    ],
    [
      'the crash line counts three times',
      ['/site-packages/sklearn/a.py', '/site-packages/sklearn/b.py', '----> 2 plt.plot(x)'],
      'matplotlib',
    ],
    ['two arrowed lines add up', ['----> 1 sns.heatmap(d)', '--> 20 plt.gca()', '-> 10 plt.x()'], 'matplotlib'],
    ['keras and tf are one class', ['----> 1 tf.keras.Model()', '/site-packages/keras/engine.py'], 'tensorflow/keras'],
    ['whole words only', ['pandasql npx'], 'None'],
  ])('%s', (_name, lines, expected) => {
    expect(predictLibraryBaseline(rec(lines))).toBe(expected);
  });
});
