import { describe, expect, it } from 'vitest';
import type { CrashRecord } from '@junobench/core';
import { evaluateLibcause, labelledLibrary } from './evaluate-libcause.js';

const rec = (label: string | undefined, predicted: string | undefined): CrashRecord => ({
  id: `${label}-${predicted}`,
  notebook: 'n',
  source: 'kaggle',
  ename: 'E',
  evalue: '',
  traceback: [],
  columns: {},
  ...(label !== undefined ? { labels: { library: label } } : {}),
  ...(predicted !== undefined ? { predictedLibrary: predicted } : {}),
});

describe('evaluateLibcause', () => {
  it('scores predictions against labels, with a confusion table and per-library recall/precision', () => {
    const ev = evaluateLibcause([
      rec('pandas', 'pandas'),
      rec('pandas', 'numpy'),
      rec('numpy', 'numpy'),
      rec('tensorflow', 'tensorflow/keras'),
      rec('NBspecific', 'pandas'),
      rec(undefined, 'torch'),
    ]);
    expect(ev).toEqual({
      total: 5,
      hits: 3,
      accuracy: 0.6,
      confusion: {
        pandas: { numpy: 1, pandas: 1 },
        numpy: { numpy: 1 },
        'tensorflow/keras': { 'tensorflow/keras': 1 },
        None: { pandas: 1 },
      },
      perLibrary: {
        None: { labelled: 1, predicted: 0, hits: 0, recall: 0, precision: 0 },
        numpy: { labelled: 1, predicted: 2, hits: 1, recall: 1, precision: 0.5 },
        pandas: { labelled: 2, predicted: 2, hits: 1, recall: 0.5, precision: 0.5 },
        'tensorflow/keras': { labelled: 1, predicted: 1, hits: 1, recall: 1, precision: 1 },
      },
    });
  });

  it('predicts records without predictedLibrary, or uses the predictor given', () => {
    const r: CrashRecord = {
      ...rec('None', undefined),
      ename: 'NameError',
      evalue: "name 'x' is not defined",
      traceback: ["NameError: name 'x' is not defined"],
    };
    expect(evaluateLibcause([r])).toMatchObject({ total: 1, hits: 1, accuracy: 1 });
    expect(evaluateLibcause([r], { predict: () => 'pandas' })).toMatchObject({ hits: 0, accuracy: 0 });
  });

  it('is zero on no labelled records', () => {
    expect(evaluateLibcause([rec(undefined, 'x')])).toEqual({
      total: 0,
      hits: 0,
      accuracy: 0,
      confusion: {},
      perLibrary: {},
    });
  });

  it.each([
    ['tensorflow', 'tensorflow/keras'],
    ['NBspecific', 'None'],
    ['SomethingElse', 'SomethingElse'],
    ['', undefined],
    [undefined, undefined],
  ])('labelledLibrary(%j) = %j', (label, expected) => {
    expect(labelledLibrary(rec(label, undefined))).toBe(expected);
  });
});
