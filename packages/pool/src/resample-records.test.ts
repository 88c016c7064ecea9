import { describe, expect, it } from 'vitest';
import { createRng, type CrashRecord } from '@junobench/core';
import { parseLibraryList, resampleLibrary, resampleRecords } from './resample-records.js';

const rec = (id: string, label?: string, predicted?: string): CrashRecord => ({
  id,
  notebook: 'n',
  source: 'kaggle',
  ename: 'E',
  evalue: '',
  traceback: [],
  columns: {},
  ...(label ? { labels: { library: label } } : {}),
  ...(predicted ? { predictedLibrary: predicted } : {}),
});

const pool: CrashRecord[] = [
  ...Array.from({ length: 10 }, (_, i) => rec(`pd${i}`, 'pandas')),
  ...Array.from({ length: 6 }, (_, i) => rec(`np${i}`, undefined, 'numpy')),
  ...Array.from({ length: 2 }, (_, i) => rec(`tf${i}`, 'tensorflow', 'numpy')),
  rec('nolib'),
];

describe('resampleRecords', () => {
  it('draws up to N per library (labelled library first, else predicted) and reports shortfalls', () => {
    const { selected, report } = resampleRecords(pool, { perLibrary: 4, seed: 1 });
    const count = (lib: string) => selected.filter((r) => resampleLibrary(r) === lib).length;
    expect([count('pandas'), count('numpy'), count('tensorflow/keras')]).toEqual([4, 4, 2]);
    expect(report).toMatchObject({
      seed: '1',
      perLibrary: 4,
      input: 19,
      selected: 10,
      unassigned: 1,
      outside: 0,
      libraries: [
        { library: 'numpy', available: 6, selected: 4 },
        { library: 'pandas', available: 10, selected: 4 },
        { library: 'tensorflow/keras', available: 2, selected: 2 },
      ],
      shortfalls: [{ library: 'tensorflow/keras', requested: 4, available: 2 }],
    });
    // Grouped by library in code-point order.
    expect(selected.map(resampleLibrary)).toEqual([
      'numpy',
      'numpy',
      'numpy',
      'numpy',
      'pandas',
      'pandas',
      'pandas',
      'pandas',
      'tensorflow/keras',
      'tensorflow/keras',
    ]);
  });

  it('gives the same sample whatever the input order', () => {
    const a = resampleRecords(pool, { perLibrary: 3, seed: 's' }).selected.map((r) => r.id);
    for (let i = 0; i < 5; i++) {
      const shuffled = createRng(i).shuffle(pool);
      expect(resampleRecords(shuffled, { perLibrary: 3, seed: 's' }).selected.map((r) => r.id)).toEqual(a);
    }
  });

  it('draws another sample with another seed', () => {
    const ids = (seed: string) =>
      resampleRecords(pool, { perLibrary: 3, seed })
        .selected.map((r) => r.id)
        .join(',');
    const samples = new Set(['a', 'b', 'c', 'd'].map(ids));
    expect(samples.size).toBeGreaterThan(1);
  });

  it('keeps only the libraries asked for, as users write them, and reports the missing ones', () => {
    const { selected, report } = resampleRecords(pool, {
      perLibrary: 2,
      seed: 1,
      libraries: ['tensorflow', 'pandas', 'torch'],
    });
    expect(selected.map(resampleLibrary)).toEqual(['pandas', 'pandas', 'tensorflow/keras', 'tensorflow/keras']);
    expect(report.outside).toBe(6);
    expect(report.shortfalls).toEqual([{ library: 'torch', requested: 2, available: 0 }]);
  });

  it.each([
    [{ perLibrary: 0, seed: 1 }, /--per-library must be a positive whole number/],
    [{ perLibrary: 1.5, seed: 1 }, /--per-library must be a positive whole number/],
    [{ perLibrary: 2, seed: '' }, /a seed is required/],
    [{ perLibrary: 2, seed: 1, libraries: ['pandsa'] }, /unknown library "pandsa" — did you mean "pandas"\?/],
  ])('refuses %j', (options, message) => {
    expect(() => resampleRecords(pool, options)).toThrow(message);
  });

  it('parses library lists', () => {
    expect(parseLibraryList(['keras', ' tensorflow ', 'scikit-learn', '', 'NBspecific'])).toEqual([
      'tensorflow/keras',
      'sklearn',
      'None',
    ]);
  });
});
