import { describe, expect, it } from 'vitest';
import { computeKrippendorffAlpha, type AlphaUnit } from './krippendorff-alpha.js';
import { computeCohenKappa } from './cohen-kappa.js';

const TOL = 1e-9;
const _ = null;

/** Coders × units, as printed in Krippendorff (2011), turned into units × coders. */
function byUnit(rows: (string | number | null)[][]): AlphaUnit[] {
  return rows[0]!.map((__, u) => rows.map((r) => (r[u] === null || r[u] === undefined ? null : String(r[u]))));
}

describe('computeKrippendorffAlpha (nominal)', () => {
  it.each([
    {
      name: 'Krippendorff (2011) §C: 4 observers, 12 units, missing data → α = 113/152 ≈ 0.743',
      rows: [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, _, _, _],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, _, 3],
        [_, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, _],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, _],
      ],
      alpha: 113 / 152,
      units: 11,
      n: 40,
      observed: 0.2,
      expected: 0.7794871794871795,
    },
    {
      name: 'Krippendorff (2011) §A: 2 observers, binary, 10 units → α = 2/21 ≈ 0.095',
      rows: [
        [0, 1, 0, 0, 0, 0, 0, 0, 1, 0],
        [1, 1, 1, 0, 0, 1, 0, 0, 0, 0],
      ],
      alpha: 2 / 21,
      units: 10,
      n: 20,
      observed: 0.4,
      expected: 168 / 380,
    },
    {
      name: 'three coders, hand-computed coincidences → α = 3/5',
      rows: [
        ['a', 'a', 'b', 'c', 'a', 'b'],
        ['a', 'b', 'b', 'c', _, 'c'],
        ['a', 'a', _, 'c', _, 'b'],
      ],
      alpha: 3 / 5,
      units: 5,
      n: 14,
      observed: undefined,
      expected: undefined,
    },
    {
      name: 'perfect agreement with variation → α = 1',
      rows: [
        ['x', 'y', 'z', 'x'],
        ['x', 'y', 'z', 'x'],
      ],
      alpha: 1,
      units: 4,
      n: 8,
      observed: 0,
      expected: undefined,
    },
  ])('$name', ({ rows, alpha, units, n, observed, expected }) => {
    const r = computeKrippendorffAlpha(byUnit(rows));
    expect(Math.abs(r.alpha! - alpha)).toBeLessThan(TOL);
    expect(r.units).toBe(units);
    expect(r.pairableValues).toBe(n);
    if (observed !== undefined) expect(Math.abs(r.observedDisagreement! - observed)).toBeLessThan(TOL);
    if (expected !== undefined) expect(Math.abs(r.expectedDisagreement! - expected)).toBeLessThan(TOL);
  });

  it('the 2011 example rounds to the published 0.743', () => {
    const r = computeKrippendorffAlpha(
      byUnit([
        [1, 2, 3, 3, 2, 1, 4, 1, 2, _, _, _],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, _, 3],
        [_, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, _],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, _],
      ]),
    );
    expect(r.alpha!.toFixed(3)).toBe('0.743');
  });

  it("two coders, no missing data: α is Scott's π with a small-sample correction", () => {
    // Krippendorff (2011): π = (p_o − p_e) / (1 − p_e) with p_e from the pooled
    // marginals, and α = 1 − (2N − 1)/(2N)·(1 − π) for N units.
    const a = ['x', 'x', 'y', 'y', 'z', 'x', 'y', 'z', 'z', 'x'];
    const b = ['x', 'y', 'y', 'y', 'z', 'x', 'x', 'z', 'y', 'x'];
    const N = a.length;
    const po = a.filter((v, i) => v === b[i]).length / N;
    const cats = ['x', 'y', 'z'];
    const pe = cats.reduce(
      (s, c) => s + ((a.filter((v) => v === c).length + b.filter((v) => v === c).length) / (2 * N)) ** 2,
      0,
    );
    const pi = (po - pe) / (1 - pe);
    const r = computeKrippendorffAlpha(a.map((v, i) => [v, b[i]]));
    expect(Math.abs(r.alpha! - (1 - ((2 * N - 1) / (2 * N)) * (1 - pi)))).toBeLessThan(TOL);
    // …and it is close to, but not the same as, Cohen's kappa.
    expect(Math.abs(r.alpha! - computeCohenKappa(a, b).kappa!)).toBeLessThan(0.05);
  });

  it.each([
    {
      name: 'no unit has two values',
      units: [['a', null], [null, 'b'], ['c']],
      reason: /no unit has two or more values/,
    },
    { name: 'no units at all', units: [], reason: /no unit/ },
    {
      name: 'every value is the same category',
      units: [
        ['a', 'a'],
        ['a', 'a', 'a'],
      ],
      reason: /expected disagreement is 0/,
    },
  ])('degenerate: $name → null with a reason', ({ units, reason }) => {
    const r = computeKrippendorffAlpha(units as AlphaUnit[]);
    expect(r.alpha).toBeNull();
    expect(r.reason).toMatch(reason);
  });

  it('units with a single value do not count', () => {
    const base = computeKrippendorffAlpha([
      ['a', 'a'],
      ['b', 'a'],
      ['b', 'b'],
    ]);
    const withLonely = computeKrippendorffAlpha([
      ['a', 'a'],
      ['b', 'a'],
      ['b', 'b'],
      ['c', null, undefined],
    ]);
    expect(withLonely.alpha).toBe(base.alpha);
    expect(withLonely.units).toBe(3);
  });
});
