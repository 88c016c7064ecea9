import { describe, expect, it } from 'vitest';
import type { LabelSuggestions } from '@junobench/core';
import { SuggestionEvaluator } from './evaluate-suggestions.js';

const s = (library: string, crashType: string, confidence = 0.9): LabelSuggestions =>
  ({
    library: { value: library, confidence, evidence: ['e'] },
    crashType: { value: crashType, confidence, evidence: ['e'] },
    rootCause: { value: 'API misuse', confidence: 0.5, evidence: ['e'] },
    pipelineStage: { value: 'training', confidence: 0.5, evidence: ['e'] },
  }) as LabelSuggestions;

describe('SuggestionEvaluator', () => {
  it('scores each dimension over the crashes labelled in it, with a confusion table and accuracy by confidence', () => {
    const ev = new SuggestionEvaluator();
    ev.add({ library: 'pandas', crashType: 'key error' }, s('pandas', 'key error'));
    ev.add({ library: 'None', crashType: 'key error' }, s('pandas', 'key error', 0.4));
    ev.add({ library: 'numpy' }, s('numpy', 'value error'));
    const r = ev.result();
    expect(r.crashes).toBe(3);
    expect(r.dimensions.library).toMatchObject({ total: 3, hits: 2, accuracy: 0.666667 });
    expect(r.dimensions.library.confusion).toEqual({ None: { pandas: 1 }, numpy: { numpy: 1 }, pandas: { pandas: 1 } });
    expect(r.dimensions.crashType).toMatchObject({ total: 2, hits: 2, accuracy: 1 });
    expect(r.dimensions.rootCause).toMatchObject({ total: 0, accuracy: 0 });
    expect(r.dimensions.library.byConfidence.find((b) => b.atLeast === 0.5)).toEqual({
      atLeast: 0.5,
      total: 2,
      hits: 2,
      accuracy: 1,
    });
  });

  it('counts hits per rule when the rules are given', () => {
    const ev = new SuggestionEvaluator();
    const rules = {
      library: 'library.entry',
      crashType: 'crashType.key',
      rootCause: 'rootCause.key',
      pipelineStage: 'pipelineStage.default',
    } as const;
    ev.add({ library: 'pandas' }, s('pandas', 'key error'), rules);
    ev.add({ library: 'None' }, s('pandas', 'key error'), rules);
    expect(ev.result().rules).toEqual({ 'library.entry': { total: 2, hits: 1 } });
  });
});
