import { createRng } from '@junobench/core';

/**
 * McNemar's exact test: two-sided binomial test of `b` discordant pairs one way against `c` the other, p = min(1, 2 ·
 * P(X ≤ min(b, c))) with X ~ Binomial(b + c, 1/2). No discordant pair: p = 1.
 */
export function mcnemarExact(b: number, c: number): number {
  const n = b + c;
  if (n === 0) return 1;
  const k = Math.min(b, c);
  // Sum in log space: C(n, i) / 2^n underflows for a few hundred pairs.
  let logC = 0; // log C(n, 0)
  let sum = 0;
  for (let i = 0; i <= k; i++) {
    if (i > 0) logC += Math.log(n - i + 1) - Math.log(i);
    sum += Math.exp(logC - n * Math.LN2);
  }
  return Math.min(1, 2 * sum);
}

/** The q-quantile of sorted values by linear interpolation (Hyndman & Fan type 7, as R's and numpy's default). */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.ceil(h);
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}

/** One cluster (an instance): per tool, the sum of its tasks' outcomes, and how many tasks it holds. */
export interface Cluster {
  sums: readonly number[];
  count: number;
}

export interface ClusterBootstrap {
  /** Per tool: the percentile interval of its score. */
  scores: [number, number][];
  /** Per pair (i < j, in order): the percentile interval of score i − score j. */
  differences: [number, number][];
}

/**
 * Percentile bootstrap that resamples clusters, not tasks (Miller, "Adding Error Bars to Evals", 2024: tasks of one
 * instance are not independent, and their errors move together): each resample draws as many instances as there are,
 * with replacement, and a tool's score is the sum of its outcomes over the drawn instances' tasks divided by their
 * number. Every tool and pair is scored on the same draws, so the differences are paired. Seeded: the same clusters
 * and seed give the same intervals everywhere.
 */
export function bootstrapClusters(
  clusters: readonly Cluster[],
  options: { resamples: number; confidence: number; seed: string },
): ClusterBootstrap {
  const tools = clusters[0]?.sums.length ?? 0;
  const pairs: [number, number][] = [];
  for (let i = 0; i < tools; i++) for (let j = i + 1; j < tools; j++) pairs.push([i, j]);
  if (clusters.length === 0)
    return { scores: Array.from({ length: tools }, () => [0, 0]), differences: pairs.map(() => [0, 0]) };
  const rng = createRng(options.seed);
  const draws = Array.from({ length: tools }, () => new Float64Array(options.resamples));
  const sums = new Float64Array(tools);
  for (let r = 0; r < options.resamples; r++) {
    sums.fill(0);
    let count = 0;
    for (let n = 0; n < clusters.length; n++) {
      const c = clusters[rng.int(clusters.length)]!;
      count += c.count;
      for (let t = 0; t < tools; t++) sums[t]! += c.sums[t]!;
    }
    for (let t = 0; t < tools; t++) draws[t]![r] = count === 0 ? 0 : sums[t]! / count;
  }
  const alpha = (1 - options.confidence) / 2;
  const interval = (values: Float64Array | number[]): [number, number] => {
    const sorted = Array.from(values).sort((a, b) => a - b);
    return [quantile(sorted, alpha), quantile(sorted, 1 - alpha)];
  };
  return {
    scores: draws.map((d) => interval(d)),
    differences: pairs.map(([i, j]) => interval(Array.from(draws[i]!, (v, r) => v - draws[j]![r]!))),
  };
}
