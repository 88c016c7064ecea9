import { compareCodePoints, createRng } from '@junobench/core';

export interface BootstrapOptions {
  /** Number of resamples (each draws n items with replacement). */
  resamples: number;
  /** Seed text; the same seed and data give the same interval on every machine. */
  seed: string | number;
  /** Two-sided coverage, e.g. 0.95. */
  confidence: number;
}

export interface BootstrapInterval {
  resamples: number;
  /** Resamples whose kappa was undefined (every drawn item in one shared category); left out of the interval. */
  undefinedResamples: number;
  /**
   * Percentile interval of the defined resampled kappas (quantiles by linear interpolation, Hyndman & Fan type 7); null
   * when none is defined.
   */
  ci: [number, number] | null;
}

export const DEFAULT_BOOTSTRAP_RESAMPLES = 2000;

/**
 * Percentile bootstrap confidence interval of Cohen's kappa: items (pairs of
 * labels) are resampled with replacement, kappa is recomputed on each
 * resample, and the interval is the α/2 and 1 − α/2 quantiles.
 */
export function bootstrapKappa(
  a: readonly string[],
  b: readonly string[],
  options: BootstrapOptions,
): BootstrapInterval {
  if (a.length !== b.length) throw new RangeError(`bootstrapKappa: ${a.length} labels vs ${b.length}`);
  const { resamples, confidence } = options;
  if (!Number.isInteger(resamples) || resamples < 1)
    throw new RangeError(`bootstrapKappa: resamples must be a positive integer, got ${resamples}`);
  if (!(confidence > 0 && confidence < 1))
    throw new RangeError(`bootstrapKappa: confidence must be in (0, 1), got ${confidence}`);
  const n = a.length;
  if (n === 0) return { resamples, undefinedResamples: resamples, ci: null };

  const categories = [...new Set([...a, ...b])].sort(compareCodePoints);
  const index = new Map(categories.map((c, i) => [c, i]));
  const k = categories.length;
  const ai = a.map((x) => index.get(x)!);
  const bi = b.map((x) => index.get(x)!);
  const rng = createRng(options.seed);
  const rowCount = new Float64Array(k);
  const colCount = new Float64Array(k);
  const kappas: number[] = [];
  let undefinedResamples = 0;
  for (let r = 0; r < resamples; r++) {
    rowCount.fill(0);
    colCount.fill(0);
    let agree = 0;
    for (let i = 0; i < n; i++) {
      const j = rng.int(n);
      const x = ai[j]!;
      const y = bi[j]!;
      rowCount[x]! += 1;
      colCount[y]! += 1;
      if (x === y) agree++;
    }
    let marginProduct = 0;
    for (let c = 0; c < k; c++) marginProduct += rowCount[c]! * colCount[c]!;
    // Chance agreement 1: every drawn item in one shared category, kappa 0/0.
    if (marginProduct === n * n) {
      undefinedResamples++;
      continue;
    }
    // The same integer form as computeCohenKappa: (n·agree − Σ r·c) / (n² − Σ r·c).
    kappas.push((n * agree - marginProduct) / (n * n - marginProduct));
  }
  if (kappas.length === 0) return { resamples, undefinedResamples, ci: null };
  kappas.sort((x, y) => x - y);
  const alpha = 1 - confidence;
  return {
    resamples,
    undefinedResamples,
    ci: [quantileSorted(kappas, alpha / 2), quantileSorted(kappas, 1 - alpha / 2)],
  };
}

/** Quantile of sorted values by linear interpolation between order statistics (Hyndman & Fan type 7, R's default). */
export function quantileSorted(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) throw new RangeError('quantileSorted: no values');
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}
