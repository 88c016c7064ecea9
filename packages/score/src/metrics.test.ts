import { describe, expect, it } from 'vitest';
import { majorityVote, passAtK, planPassKs, pooledRate, rate, scoreClasses } from './metrics.js';

describe('passAtK (unbiased estimator 1 − C(n−c, k) / C(n, k))', () => {
  it.each([
    // n, c, k, hand-computed value
    [1, 1, 1, 1],
    [1, 0, 1, 0],
    [5, 2, 1, 2 / 5],
    [5, 2, 2, 1 - 3 / 10], // C(3,2)=3, C(5,2)=10
    [5, 2, 3, 1 - 1 / 10], // C(3,3)=1, C(5,3)=10
    [5, 2, 4, 1], // fewer than k failures: every draw of 4 holds a pass
    [4, 0, 2, 0],
    [10, 3, 5, 1 - 21 / 252], // C(7,5)=21, C(10,5)=252
    [100, 10, 10, 0.6695237889132748], // 1 − C(90,10)/C(100,10)
    [200, 10, 100, 0.9992289739372822], // 1 − C(190,100)/C(200,100): no overflow
  ])('n=%i c=%i k=%i → %f', (n, c, k, expected) => {
    expect(passAtK(n, c, k)).toBeCloseTo(expected, 12);
  });

  it('pass@1 is the share of passing attempts', () => {
    for (let c = 0; c <= 7; c++) expect(passAtK(7, c, 1)).toBeCloseTo(c / 7, 12);
  });

  it.each([
    [0, 0, 1],
    [3, 4, 1],
    [3, 1, 4],
    [3, 1, 0],
    [2.5, 1, 1],
  ])('refuses n=%s c=%s k=%s', (n, c, k) => {
    expect(() => passAtK(n, c, k)).toThrow(RangeError);
  });

  it('reports k = 1, the usual steps below n, and n', () => {
    expect(planPassKs(1)).toEqual([1]);
    expect(planPassKs(3)).toEqual([1, 2, 3]);
    expect(planPassKs(10)).toEqual([1, 2, 5, 10]);
    expect(planPassKs(12)).toEqual([1, 2, 5, 10, 12]);
  });
});

describe('scoreClasses (per-class F1, macro average)', () => {
  it('matches hand-computed precision, recall and F1; a missing answer is wrong and no class', () => {
    const { classes, macroF1 } = scoreClasses(['a', 'a', 'b', 'c'], ['a', 'b', 'b', undefined]);
    expect(classes.map((c) => [c.label, c.support, c.predicted])).toEqual([
      ['a', 2, 1],
      ['b', 1, 2],
      ['c', 1, 0],
    ]);
    const byLabel = Object.fromEntries(classes.map((c) => [c.label, c]));
    expect(byLabel.a).toMatchObject({ precision: 1, recall: 0.5 });
    expect(byLabel.a!.f1).toBeCloseTo(2 / 3, 12);
    expect(byLabel.b).toMatchObject({ precision: 0.5, recall: 1 });
    expect(byLabel.c!.f1).toBe(0);
    expect(macroF1).toBeCloseTo((2 / 3 + 2 / 3 + 0) / 3, 12);
  });

  it('counts a class that is predicted but never true (F1 0), as scikit-learn does', () => {
    expect(scoreClasses(['a', 'b'], ['a', 'c']).macroF1).toBeCloseTo(1 / 3, 12);
  });

  it('is 1 for perfect answers and 0 for no answers', () => {
    expect(scoreClasses(['x', 'y', 'y'], ['x', 'y', 'y']).macroF1).toBe(1);
    expect(scoreClasses(['x', 'y'], [undefined, undefined]).macroF1).toBe(0);
  });
});

describe('majorityVote', () => {
  it.each([
    [[true, false, true], true],
    [[false, true, true, false], false], // tie: the earliest attempt's answer
    [['KeyError', undefined, undefined], undefined], // missing answers vote too
    [['a', 'b', 'c', 'b'], 'b'],
    [[], undefined],
  ] as const)('%j → %j', (answers, expected) => {
    expect(majorityVote([...answers])).toBe(expected);
  });
});

describe('rates', () => {
  it('keeps counts and pools them', () => {
    expect(rate(3, 4)).toEqual({ correct: 3, total: 4, value: 0.75 });
    expect(rate(0, 0).value).toBe(0);
    expect(pooledRate([rate(1, 2), rate(2, 2)])).toEqual({ correct: 3, total: 4, value: 0.75 });
  });
});
