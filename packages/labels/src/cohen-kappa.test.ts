import { describe, expect, it } from 'vitest';
import { computeCohenKappa, computeKappaFromTable, Z_975 } from './cohen-kappa.js';

// Expected values are exact rationals worked out by hand (and re-checked with
// Python's fractions module); SEs are square roots of exact rational variances.
const TOL = 1e-9;

/** Expand a k×k contingency table into two parallel label lists. */
function expand(table: number[][], names: string[]): [string[], string[]] {
  const a: string[] = [];
  const b: string[] = [];
  table.forEach((row, i) =>
    row.forEach((count, j) => {
      for (let c = 0; c < count; c++) {
        a.push(names[i]!);
        b.push(names[j]!);
      }
    }),
  );
  return [a, b];
}

describe('computeCohenKappa on published and hand-computed tables', () => {
  it.each([
    {
      name: 'Wikipedia "Cohen\'s kappa", simple example: 20/5/10/15 of 50',
      table: [
        [20, 5],
        [10, 15],
      ],
      observed: 7 / 10,
      chance: 1 / 2,
      kappa: 2 / 5,
      // Var = 252/15625 (Fleiss, Cohen & Everitt 1969); Var0 = 3/156.25
      se: Math.sqrt(252 / 15625),
      se0: 0.13856406460551018,
    },
    {
      name: 'Wikipedia, same 60% agreement, unbalanced marginals: 45/15/25/15',
      table: [
        [45, 15],
        [25, 15],
      ],
      observed: 3 / 5,
      chance: 27 / 50,
      kappa: 3 / 23,
      se: Math.sqrt(2724 / 279841),
      se0: 0.09760845356801585,
    },
    {
      name: 'Wikipedia, same 60% agreement, skewed marginals: 25/35/5/35',
      table: [
        [25, 35],
        [5, 35],
      ],
      observed: 3 / 5,
      chance: 23 / 50,
      kappa: 7 / 27,
      se: Math.sqrt(3164 / 531441),
      se0: 0.08314794192830981,
    },
    {
      name: "three categories, p_o = .70, p_e = .41 (Cohen 1960's worked example)",
      table: [
        [88, 14, 18],
        [10, 40, 10],
        [2, 6, 12],
      ],
      observed: 7 / 10,
      chance: 41 / 100,
      kappa: 29 / 59,
      se: 0.05100181557607785,
      se0: 0.05197893635659544,
    },
    {
      name: 'Fleiss, Levin & Paik (2003) psychiatric diagnoses, 100 subjects',
      table: [
        [75, 1, 4],
        [5, 4, 1],
        [0, 0, 10],
      ],
      observed: 89 / 100,
      chance: 33 / 50,
      kappa: 23 / 34,
      se: Math.sqrt(256971 / 33408400),
      se0: 0.07618725792346247,
    },
    {
      name: 'perfect agreement with two categories',
      table: [
        [9, 0],
        [0, 1],
      ],
      observed: 1,
      chance: 41 / 50,
      kappa: 1,
      se: 0,
      se0: 0.31622776601683794,
    },
    {
      name: 'complete disagreement (labels swapped)',
      table: [
        [0, 5],
        [5, 0],
      ],
      observed: 0,
      chance: 1 / 2,
      kappa: -1,
      se: 0,
      se0: 0.31622776601683794,
    },
    {
      name: 'one annotator uses a single category: kappa 0 despite 90% agreement',
      table: [
        [9, 1],
        [0, 0],
      ],
      observed: 9 / 10,
      chance: 9 / 10,
      kappa: 0,
      se: 0,
      se0: 0,
    },
  ])('$name', ({ table, observed, chance, kappa, se, se0 }) => {
    const names = table.map((_, i) => `c${i}`);
    const [a, b] = expand(table, names);
    const r = computeCohenKappa(a, b);
    expect(r.n).toBe(a.length);
    expect(r.observed).toBeCloseTo(observed, 12);
    expect(Math.abs(r.chance! - chance)).toBeLessThan(TOL);
    expect(Math.abs(r.kappa! - kappa)).toBeLessThan(TOL);
    expect(Math.abs(r.se! - se)).toBeLessThan(TOL);
    expect(Math.abs(r.se0! - se0)).toBeLessThan(TOL);
    expect(r.reason).toBeUndefined();
    expect(r.ciAsymptotic![0]).toBeCloseTo(Math.max(-1, kappa - Z_975 * se), 9);
    expect(r.ciAsymptotic![1]).toBeCloseTo(Math.min(1, kappa + Z_975 * se), 9);
    // The table form gives the same numbers.
    const fromTable = computeKappaFromTable(table, names);
    expect(fromTable.kappa).toBeCloseTo(r.kappa!, 12);
  });

  it('z is kappa / se0, and null when se0 is 0', () => {
    const [a, b] = expand(
      [
        [20, 5],
        [10, 15],
      ],
      ['y', 'n'],
    );
    const r = computeCohenKappa(a, b);
    expect(r.z).toBeCloseTo(0.4 / 0.13856406460551018, 9);
    const [c, d] = expand(
      [
        [9, 1],
        [0, 0],
      ],
      ['y', 'n'],
    );
    expect(computeCohenKappa(c, d).z).toBeNull();
  });

  it('does not depend on the order of items or on category names', () => {
    const [a, b] = expand(
      [
        [88, 14, 18],
        [10, 40, 10],
        [2, 6, 12],
      ],
      ['x', 'y', 'z'],
    );
    const order = a.map((_, i) => (i * 37) % a.length);
    const r1 = computeCohenKappa(a, b);
    const r2 = computeCohenKappa(
      order.map((i) => a[i]!),
      order.map((i) => b[i]!),
    );
    const rename = (s: string) => ({ x: 'zz', y: 'aa', z: 'mm' })[s]!;
    const r3 = computeCohenKappa(a.map(rename), b.map(rename));
    expect(r2.kappa).toBeCloseTo(r1.kappa!, 12);
    expect(r3.kappa).toBeCloseTo(r1.kappa!, 12);
    expect(r3.se).toBeCloseTo(r1.se!, 12);
  });

  it('lists the categories either annotator used, in code-point order', () => {
    expect(computeCohenKappa(['b', 'a'], ['c', 'a']).categories).toEqual(['a', 'b', 'c']);
  });
});

describe('computeCohenKappa degenerate cases', () => {
  it('no overlap (n = 0): every statistic is null, with a reason', () => {
    const r = computeCohenKappa([], []);
    expect(r).toMatchObject({
      n: 0,
      observed: null,
      chance: null,
      kappa: null,
      se: null,
      se0: null,
      z: null,
      ciAsymptotic: null,
    });
    expect(r.reason).toMatch(/no item/);
  });

  it('both annotators use one and the same category: kappa is 0/0, so null with a reason', () => {
    const r = computeCohenKappa(['x', 'x', 'x'], ['x', 'x', 'x']);
    expect(r).toMatchObject({ n: 3, observed: 1, chance: 1, kappa: null, se: null, ciAsymptotic: null });
    expect(r.reason).toMatch(/chance agreement is 1/);
  });

  it('each annotator uses a different single category: kappa 0', () => {
    const r = computeCohenKappa(['x', 'x'], ['y', 'y']);
    expect(r).toMatchObject({ observed: 0, chance: 0, kappa: 0 });
  });

  it('perfect agreement gives kappa 1 with a zero-width asymptotic interval', () => {
    const r = computeCohenKappa(['a', 'b', 'c', 'a'], ['a', 'b', 'c', 'a']);
    expect(r.kappa).toBe(1);
    expect(r.se).toBe(0);
    expect(r.ciAsymptotic).toEqual([1, 1]);
  });

  it('rejects lists of different length', () => {
    expect(() => computeCohenKappa(['a'], [])).toThrow(RangeError);
  });
});
