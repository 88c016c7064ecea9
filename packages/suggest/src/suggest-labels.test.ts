import { describe, expect, it } from 'vitest';
import { LABEL_DIMENSIONS, VOCABULARIES, checkSchema } from '@junobench/core';
import { cell, crash, lib } from '../test-helpers/crash.js';
import { RULE_CONFIDENCE } from './rule-confidence.js';
import { suggestLabels, suggestLabelsWithRules, type SuggestInput } from './suggest-labels.js';

const keyError = crash('KeyError', "'price'", [
  cell("df['price'].mean()"),
  lib('pandas/core/frame.py', 'DataFrame.__getitem__(self, key)', 'indexer = self.columns.get_loc(key)'),
]);

describe('suggestLabels', () => {
  it('returns exactly { value, confidence, evidence } per dimension, in the vocabularies, valid against the schema', () => {
    const s = suggestLabels(keyError);
    expect(Object.keys(s).sort()).toEqual([...LABEL_DIMENSIONS].sort());
    for (const d of LABEL_DIMENSIONS) {
      expect(Object.keys(s[d]).sort()).toEqual(['confidence', 'evidence', 'value']);
      expect(VOCABULARIES[d]).toContain(s[d].value);
      expect(s[d].confidence).toBeGreaterThanOrEqual(0);
      expect(s[d].confidence).toBeLessThanOrEqual(1);
      expect(s[d].evidence.length).toBeGreaterThan(0);
    }
    expect(checkSchema('label-suggestion', s)).toEqual([]);
    expect(s).toMatchObject({
      library: { value: 'pandas' },
      crashType: { value: 'key error' },
      rootCause: { value: 'data confusion' },
    });
  });

  it("takes a crash record as it is (the pool's records are inputs)", () => {
    const { suggestions, rules } = suggestLabelsWithRules(keyError);
    for (const d of LABEL_DIMENSIONS) expect(suggestions[d].confidence).toBe(RULE_CONFIDENCE[rules[d]]);
  });

  it('works from the exception alone, without a traceback', () => {
    const s = suggestLabels({ ename: 'NameError', evalue: "name 'df' is not defined", traceback: [] });
    expect(s.library.value).toBe('None');
    expect(s.crashType.value).toBe('variable not found');
    expect(s.rootCause.value).toBe('NB specific');
  });

  it('is pure: the same input gives the same suggestions', () => {
    expect(suggestLabels(keyError)).toEqual(suggestLabels(structuredClone(keyError)));
  });

  describe("the notebook's cells showing its state: library None, in agreement with the root cause", () => {
    const withCells = (extra: Partial<SuggestInput>): SuggestInput => ({
      ...keyError,
      cell: "df['price'].mean()",
      ...extra,
    });

    it.each<[string, Partial<SuggestInput>, RegExp]>([
      // [1] and [2] are taken: the cell that made the column cannot have run before the crash.
      [
        'cells run out of order',
        {
          executionCount: 3,
          cellsBefore: ['df = load()', "df['price'] = df.a * df.b"],
          executionCountsBefore: [1, 9],
          cellsAfter: ['x = 1'],
          executionCountsAfter: [2],
        },
        /ran out of order/,
      ],
      [
        'a cell below ran first',
        {
          executionCount: 7,
          cellsBefore: [],
          executionCountsBefore: [],
          cellsAfter: ['df = load()'],
          executionCountsAfter: [3],
        },
        /ran out of order/,
      ],
      [
        'an earlier cell already removed the key',
        { cellsBefore: ["df = pd.read_csv('t.csv')", "df.drop(columns='price', inplace=True)"] },
        /ran again/,
      ],
    ])('%s', (_name, extra, why) => {
      const { suggestions, rules } = suggestLabelsWithRules(withCells(extra));
      expect(suggestions.library.value).toBe('None');
      expect(rules.library).toBe('library.notebook-cells');
      expect(suggestions.rootCause.value).toBe('NB specific');
      expect(suggestions.library.evidence[0]).toMatch(why);
      // The annotator also sees what the traceback alone said.
      expect(suggestions.library.evidence[1]).toMatch(/from the traceback alone: pandas/);
    });

    it.each<[string, Partial<SuggestInput>]>([
      [
        'the cells ran in order',
        {
          executionCount: 4,
          cellsBefore: ['df = load()'],
          executionCountsBefore: [3],
          cellsAfter: ['x = 1'],
          executionCountsAfter: [5],
        },
      ],
      ['no execution counts saved', { cellsBefore: ['df = load()'] }],
      // Ran top to bottom, crashed at [4], then the user re-ran the second cell ([5]): its first run fits at the free
      // [2], as `add` replays it (file order).
      [
        'a cell above was only re-run after the crash',
        {
          executionCount: 4,
          cellsBefore: ['import pandas as pd', 'df = load()', "df['b'] = df.a * 2"],
          executionCountsBefore: [1, 5, 3],
        },
      ],
    ])('not when %s', (_name, extra) => {
      const { suggestions, rules } = suggestLabelsWithRules(withCells(extra));
      expect(suggestions.library.value).toBe('pandas');
      expect(rules.library).not.toBe('library.notebook-cells');
    });

    it('not when the key is removed only by the crashing statement itself and some of its keys are still there (a misnamed column)', () => {
      const drop = crash('KeyError', `"['price'] not found in axis"`, [
        cell("df = df.drop(columns=['price', 'tax'])"),
        lib('pandas/core/frame.py', 'DataFrame.drop(self, labels, axis)', 'return super().drop('),
      ]);
      const { suggestions, rules } = suggestLabelsWithRules({
        ...drop,
        cell: "df = df.drop(columns=['price', 'tax'])",
        cellsBefore: ['df = load()'],
      });
      expect(suggestions.library.value).toBe('pandas');
      expect(rules.library).not.toBe('library.notebook-cells');
    });

    it('out-of-order cells do not overrule a crash class they do not produce (a missing module)', () => {
      const s = suggestLabels({
        ...crash('ModuleNotFoundError', "No module named 'xgboost'", [cell('import xgboost')]),
        cell: 'import xgboost',
        executionCount: 4,
        cellsBefore: ['x = 1'],
        executionCountsBefore: [9],
      });
      expect(s.rootCause.value).not.toBe('NB specific');
    });
  });

  it('has a measured confidence for every rule, in [0, 1]', () => {
    for (const [rule, c] of Object.entries(RULE_CONFIDENCE)) {
      expect(rule).toMatch(/^(library|crashType|rootCause|pipelineStage)\./);
      expect(c).toBeGreaterThan(0);
      expect(c).toBeLessThanOrEqual(1);
    }
  });
});
