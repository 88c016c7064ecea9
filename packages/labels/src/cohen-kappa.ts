import { compareCodePoints, type PairAgreement } from '@junobench/core';

/** The two-sided 97.5% standard normal quantile, for 95% asymptotic intervals. */
export const Z_975 = 1.959963984540054;

/**
 * Cohen's kappa for two annotators over the same items (Cohen 1960), with its
 * large-sample standard errors (Fleiss, Cohen & Everitt 1969).
 *
 * Degenerate cases are reported, never hidden behind a number:
 * - `n = 0` (no item labelled by both): every statistic is null, `reason` says why;
 * - chance agreement 1 (both annotators put every item in the same single
 *   category): kappa is 0/0, so it is null with a reason, although observed
 *   agreement is 1. We do not report 1 "by convention": a dimension on which
 *   nobody ever disagreed *and* nothing varied says nothing about reliability.
 */
/**
 * Cohen's kappa for one pair of annotators: the fields of a pair in the
 * agreement report (schemas/agreement-report.schema.json, where each one is
 * documented with its formula) that depend only on the two label lists.
 * se: Fleiss, Cohen & Everitt (1969, eq. 13; Fleiss, Levin & Paik 2003, eq.
 * 18.15), under the alternative; se0: under H0 κ = 0; ciAsymptotic: κ ± 1.96·se
 * clipped to [−1, 1].
 */
export type KappaResult = Omit<PairAgreement, 'annotators' | 'bootstrap' | 'perCategory'>;

/**
 * Cohen's kappa of two parallel label lists (`a[i]` and `b[i]` label the same item).
 * Pure; throws a RangeError when the lists differ in length (a programming error).
 */
export function computeCohenKappa(a: readonly string[], b: readonly string[]): KappaResult {
  if (a.length !== b.length) throw new RangeError(`computeCohenKappa: ${a.length} labels vs ${b.length}`);
  const categories = [...new Set([...a, ...b])].sort(compareCodePoints);
  const index = new Map(categories.map((c, i) => [c, i]));
  const k = categories.length;
  const table = Array.from({ length: k }, () => new Array<number>(k).fill(0));
  for (let i = 0; i < a.length; i++) table[index.get(a[i]!)!]![index.get(b[i]!)!]! += 1;
  return computeKappaFromTable(table, categories);
}

/**
 * Cohen's kappa of a k×k contingency table of counts: `table[i][j]` = items
 * annotator A put in category i and annotator B in category j.
 */
export function computeKappaFromTable(
  table: readonly (readonly number[])[],
  categories: readonly string[],
): KappaResult {
  const k = table.length;
  let n = 0;
  for (const row of table) for (const c of row) n += c;
  const base = { n, categories: [...categories] };
  if (n === 0) {
    return {
      ...base,
      observed: null,
      chance: null,
      kappa: null,
      reason: 'no item was labelled by both annotators',
      se: null,
      se0: null,
      z: null,
      ciAsymptotic: null,
    };
  }
  // Observed and chance agreement from integer counts, so that perfect
  // agreement gives exactly 1 and equal tables give equal bits.
  const rowN = table.map((row) => row.reduce((s, x) => s + x, 0));
  const colN = Array.from({ length: k }, (_, j) => table.reduce((s, row) => s + row[j]!, 0));
  let agree = 0;
  let marginProduct = 0;
  for (let i = 0; i < k; i++) {
    agree += table[i]![i]!;
    marginProduct += rowN[i]! * colN[i]!;
  }
  const po = agree / n;
  const pe = marginProduct / (n * n);
  // p_e = 1 exactly when both annotators used one and the same category throughout.
  if (marginProduct === n * n) {
    const only = categories[rowN.findIndex((m) => m > 0)] ?? '';
    return {
      ...base,
      observed: 1,
      chance: 1,
      kappa: null,
      reason: `both annotators labelled every item "${only}": chance agreement is 1, so kappa is 0/0 (observed agreement is 1)`,
      se: null,
      se0: null,
      z: null,
      ciAsymptotic: null,
    };
  }
  const kappa = (n * agree - marginProduct) / (n * n - marginProduct);
  const p = table.map((row) => row.map((c) => c / n));
  const rowM = rowN.map((x) => x / n);
  const colM = colN.map((x) => x / n);
  const denom = n * (1 - pe) * (1 - pe);

  let termA = 0;
  let termB = 0;
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < k; j++) {
      const pij = p[i]![j]!;
      if (pij === 0) continue;
      if (i === j) termA += pij * (1 - (rowM[i]! + colM[i]!) * (1 - kappa)) ** 2;
      else termB += pij * (colM[i]! + rowM[j]!) ** 2;
    }
  }
  termB *= (1 - kappa) ** 2;
  const termC = (kappa - pe * (1 - kappa)) ** 2;
  // Rounding can leave a variance of −1e−17 at perfect agreement; it is 0.
  const se = Math.sqrt(Math.max(0, (termA + termB - termC) / denom));

  let cross = 0;
  for (let i = 0; i < k; i++) cross += rowM[i]! * colM[i]! * (rowM[i]! + colM[i]!);
  const se0 = Math.sqrt(Math.max(0, (pe + pe * pe - cross) / denom));

  const lo = Math.max(-1, kappa - Z_975 * se);
  const hi = Math.min(1, kappa + Z_975 * se);
  return { ...base, observed: po, chance: pe, kappa, se, se0, z: se0 > 0 ? kappa / se0 : null, ciAsymptotic: [lo, hi] };
}
