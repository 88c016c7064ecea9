import { describe, expect, it } from 'vitest';
import { StratifiedSelector, allocateQuotas, fractionOf, sampleByGroup } from './select-rows.js';

describe('allocateQuotas', () => {
  it.each([
    { counts: { a: 50, b: 30, c: 20 }, target: 10, want: { a: 5, b: 3, c: 2 } },
    { counts: { a: 990, b: 9, c: 1 }, target: 10, want: { a: 8, b: 1, c: 1 } },
    { counts: { a: 5, b: 5 }, target: 100, want: { a: 5, b: 5 } },
    { counts: { a: 1, b: 1, c: 1 }, target: 2, want: { a: 1, b: 1, c: 0 } },
    { counts: { a: 3, b: 0 }, target: 2, want: { a: 2 } },
  ])('$counts with $target → $want', ({ counts, target, want }) => {
    const q = allocateQuotas(new Map(Object.entries(counts)), target);
    expect(Object.fromEntries(q)).toEqual(want);
    const total = Math.min(
      target,
      Object.values(counts).reduce((s, n) => s + n, 0),
    );
    expect([...q.values()].reduce((s, n) => s + n, 0)).toBe(total);
  });

  it('does not depend on the order of the map', () => {
    const a = allocateQuotas(
      new Map([
        ['x', 7],
        ['y', 7],
        ['z', 7],
      ]),
      10,
    );
    const b = allocateQuotas(
      new Map([
        ['z', 7],
        ['x', 7],
        ['y', 7],
      ]),
      10,
    );
    expect(Object.fromEntries(a)).toEqual(Object.fromEntries(b));
  });
});

describe('StratifiedSelector', () => {
  it('keeps exactly the quota of each stratum, reproducibly', () => {
    const counts = new Map([
      ['a', 1000],
      ['b', 37],
    ]);
    const quotas = new Map([
      ['a', 100],
      ['b', 5],
    ]);
    const run = (seed: string) => {
      const s = new StratifiedSelector(seed, counts, quotas);
      const kept: string[] = [];
      for (let i = 0; i < 1000; i++) if (s.take('a')) kept.push(`a${i}`);
      for (let i = 0; i < 37; i++) if (s.take('b')) kept.push(`b${i}`);
      return kept;
    };
    const one = run('s');
    expect(one.filter((k) => k.startsWith('a'))).toHaveLength(100);
    expect(one.filter((k) => k.startsWith('b'))).toHaveLength(5);
    expect(run('s')).toEqual(one);
    expect(run('t')).not.toEqual(one);
  });
});

describe('sampleByGroup', () => {
  it('takes k per group and keeps input order', () => {
    const items = ['a/1', 'a/2', 'a/3', 'b/1', 'b/2', 'c/1'];
    const out = sampleByGroup(
      items,
      (s) => s[0]!,
      () => 1,
      7,
    );
    expect(out).toHaveLength(3);
    expect(new Set(out.map((s) => s[0]))).toEqual(new Set(['a', 'b', 'c']));
    expect(out).toEqual([...out].sort());
    expect(
      sampleByGroup(
        items,
        (s) => s[0]!,
        () => 1,
        7,
      ),
    ).toEqual(out);
  });

  it.each([
    [0, 0.1, 0],
    [5, 0.1, 1],
    [100, 0.1, 10],
    [3, 1, 3],
  ])('fractionOf(%i, %f) = %i', (n, f, want) => expect(fractionOf(n, f)).toBe(want));
});
