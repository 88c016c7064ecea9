import { compareCodePoints } from '@junobench/core';

/**
 * Krippendorff's alpha for nominal data, any number of coders, missing values
 * allowed (Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability", §C).
 *
 * From the coincidence matrix o_ck = Σ_u (number of c–k pairs of values in
 * unit u) / (m_u − 1), over units with m_u ≥ 2 values:
 *   n_c = Σ_k o_ck,  n = Σ_c n_c,
 *   α = 1 − (n − 1) · Σ_{c≠k} o_ck / Σ_{c≠k} n_c·n_k.
 * Units with fewer than two values are not pairable and do not count.
 */
export interface AlphaResult {
  alpha: number | null;
  /** Why alpha is null, when it is. */
  reason?: string;
  /** Units with at least two values (pairable units). */
  units: number;
  /** n: the number of pairable values. */
  pairableValues: number;
  /** D_o = Σ_{c≠k} o_ck / n. */
  observedDisagreement: number | null;
  /** D_e = Σ_{c≠k} n_c·n_k / (n(n − 1)). */
  expectedDisagreement: number | null;
}

/** A unit's values, one per coder; null or undefined where a coder gave none. */
export type AlphaUnit = readonly (string | null | undefined)[];

export function computeKrippendorffAlpha(units: readonly AlphaUnit[]): AlphaResult {
  const pairable = units
    .map((u) => u.filter((v): v is string => v !== null && v !== undefined))
    .filter((v) => v.length >= 2);
  const categories = [...new Set(pairable.flat())].sort(compareCodePoints);
  const index = new Map(categories.map((c, i) => [c, i]));
  const k = categories.length;
  const o = Array.from({ length: k }, () => new Array<number>(k).fill(0));
  for (const values of pairable) {
    const m = values.length;
    const counts = new Array<number>(k).fill(0);
    for (const v of values) counts[index.get(v)!]! += 1;
    // Ordered pairs of values from different coders: c≠k gives n_c·n_k, c=k gives n_c(n_c − 1).
    for (let c = 0; c < k; c++) {
      if (counts[c] === 0) continue;
      for (let d = 0; d < k; d++) {
        if (counts[d] === 0) continue;
        const pairs = c === d ? counts[c]! * (counts[c]! - 1) : counts[c]! * counts[d]!;
        o[c]![d]! += pairs / (m - 1);
      }
    }
  }
  const nc = o.map((row) => row.reduce((s, x) => s + x, 0));
  const n = nc.reduce((s, x) => s + x, 0);
  const base = { units: pairable.length, pairableValues: pairable.reduce((s, v) => s + v.length, 0) };
  if (pairable.length === 0) {
    return {
      ...base,
      alpha: null,
      reason: 'no unit has two or more values, so nothing can be compared',
      observedDisagreement: null,
      expectedDisagreement: null,
    };
  }
  let offDiagonal = 0;
  let expectedPairs = 0;
  for (let c = 0; c < k; c++) {
    for (let d = 0; d < k; d++) {
      if (c === d) continue;
      offDiagonal += o[c]![d]!;
      expectedPairs += nc[c]! * nc[d]!;
    }
  }
  const observedDisagreement = offDiagonal / n;
  if (expectedPairs === 0) {
    return {
      ...base,
      alpha: null,
      reason: `every value is "${categories[0] ?? ''}": expected disagreement is 0, so alpha is 0/0 (observed disagreement is 0)`,
      observedDisagreement,
      expectedDisagreement: 0,
    };
  }
  const expectedDisagreement = expectedPairs / (n * (n - 1));
  return { ...base, alpha: 1 - ((n - 1) * offDiagonal) / expectedPairs, observedDisagreement, expectedDisagreement };
}
