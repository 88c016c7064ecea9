import { describe, expect, it } from 'vitest';
import { LABEL_DIMENSIONS, VOCABULARIES, checkSchema } from '@junobench/core';
import { cell, crash, lib } from './crash.test-helpers.js';
import { RULE_CONFIDENCE } from './rule-confidence.js';
import { suggestLabels, suggestLabelsWithRules } from './suggest-labels.js';

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
    expect(s).toMatchObject({ library: { value: 'pandas' }, crashType: { value: 'key error' }, rootCause: { value: 'data confusion' } });
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

  it('has a measured confidence for every rule, in [0, 1]', () => {
    for (const [rule, c] of Object.entries(RULE_CONFIDENCE)) {
      expect(rule).toMatch(/^(library|crashType|rootCause|pipelineStage)\./);
      expect(c).toBeGreaterThan(0);
      expect(c).toBeLessThanOrEqual(1);
    }
  });
});
