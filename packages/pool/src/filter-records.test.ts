import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { CrashRecord, FilterCriteria } from '@junobench/core';
import { filterRecords } from './filter-records.js';

function rec(id: string, source: CrashRecord['source'], mlBug: string | null, rootCause: string | null): CrashRecord {
  return {
    id,
    notebook: `${id}.ipynb`,
    source,
    ename: 'ValueError',
    evalue: '',
    traceback: [],
    columns: { label_if_ML_bug: mlBug, label_root_cause: rootCause },
  };
}

const ML = 'ML/data science library related (ML imports, error raised by library)';
const pool = [
  rec('k-ml', 'kaggle', ML, 'misunderstanding of APIs'),
  rec('g-ml', 'github', ML, 'misunderstanding of APIs'),
  rec('k-nb', 'kaggle', 'general code error', 'nb specific - execution order'),
  rec('k-general', 'kaggle', 'general code error', 'typo'),
  rec('k-module', 'kaggle', ML, 'module not installed'),
  rec('k-file', 'kaggle', ML, 'file/path not found or exist'),
  rec('k-settings', 'kaggle', ML, 'settings(permission, environment)'),
  rec('k-oom', 'kaggle', ML, 'Insufficient resources'),
  rec('k-unlabelled', 'kaggle', null, null),
  rec('k-data', 'kaggle', ML, 'misunderstanding of data structure'),
];

describe('filterRecords', () => {
  it('applies steps in order and counts the funnel', () => {
    const criteria: FilterCriteria = {
      steps: [
        { name: 'kaggle', keep: { field: 'source', equals: 'kaggle' } },
        { name: 'no typos', drop: { field: 'columns.label_root_cause', equals: 'typo' } },
      ],
    };
    const { kept, report } = filterRecords(pool, criteria);
    expect(kept.map((r) => r.id)).toEqual([
      'k-ml',
      'k-nb',
      'k-module',
      'k-file',
      'k-settings',
      'k-oom',
      'k-unlabelled',
      'k-data',
    ]);
    expect(report).toEqual({
      input: 10,
      kept: 8,
      steps: [
        { name: 'kaggle', action: 'keep', in: 10, kept: 9, removed: 1 },
        { name: 'no typos', action: 'drop', in: 9, kept: 8, removed: 1 },
      ],
    });
  });

  it('encodes the published JunoBench selection in raw/criteria/junobench.json', async () => {
    const criteria = JSON.parse(
      await readFile(fileURLToPath(new URL('../../../raw/criteria/junobench.json', import.meta.url)), 'utf8'),
    ) as FilterCriteria;
    const { kept, report } = filterRecords(pool, criteria);
    expect(kept.map((r) => r.id)).toEqual(['k-ml', 'k-nb', 'k-data']);
    expect(report.steps.map((s) => [s.in, s.kept, s.removed])).toEqual([
      [10, 9, 1],
      [9, 7, 2],
      [7, 3, 4],
    ]);
  });

  it('refuses invalid criteria', () => {
    expect(() =>
      filterRecords(pool, {
        steps: [{ name: 'x', keep: { field: 'ename', startswith: 'V' } }],
      } as unknown as FilterCriteria),
    ).toThrow(/unknown predicate "startswith" — did you mean "startsWith"\?/);
  });
});
