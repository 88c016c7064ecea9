import { compareCodePoints, type ClassScore, type Rate } from '@junobench/core';

/** A share with its counts: `value` = correct / total (0 when total is 0). */
export function rate(correct: number, total: number): Rate {
  return { correct, total, value: total === 0 ? 0 : correct / total };
}

/** Sum of rates (several attempts scored singly): the pooled share. */
export function pooledRate(rates: readonly Rate[]): Rate {
  return rate(
    rates.reduce((s, r) => s + r.correct, 0),
    rates.reduce((s, r) => s + r.total, 0),
  );
}

/**
 * Per-class precision, recall and F1, and their macro average over the
 * classes that occur in the truth or the predictions (a class predicted but
 * never true counts, with F1 0, as scikit-learn's `f1_score(average="macro")`
 * does). A missing prediction (undefined) is a wrong answer that belongs to no class.
 */
export function scoreClasses(
  truth: readonly string[],
  predicted: readonly (string | undefined)[],
): { classes: ClassScore[]; macroF1: number } {
  const labels = new Set<string>(truth);
  for (const p of predicted) if (p !== undefined) labels.add(p);
  const classes: ClassScore[] = [...labels].sort(compareCodePoints).map((label) => {
    let tp = 0;
    let support = 0;
    let pred = 0;
    truth.forEach((t, i) => {
      const p = predicted[i];
      if (t === label) support++;
      if (p === label) pred++;
      if (t === label && p === label) tp++;
    });
    const precision = pred === 0 ? 0 : tp / pred;
    const recall = support === 0 ? 0 : tp / support;
    const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
    return { label, support, predicted: pred, precision, recall, f1 };
  });
  const macroF1 = classes.length === 0 ? 0 : classes.reduce((s, c) => s + c.f1, 0) / classes.length;
  return { classes, macroF1 };
}

/**
 * The most frequent answer among attempts (undefined = no answer, which can
 * win too). Ties go to the answer given first, by attempt order: a vote never
 * depends on anything but the answers.
 */
export function majorityVote<T>(
  answers: readonly T[],
  keyOf: (a: T) => string = (a) => JSON.stringify(a) ?? 'undefined',
): T | undefined {
  if (answers.length === 0) return undefined;
  const counts = new Map<string, { n: number; first: number; value: T }>();
  answers.forEach((a, i) => {
    const k = keyOf(a);
    const c = counts.get(k);
    if (c) c.n++;
    else counts.set(k, { n: 1, first: i, value: a });
  });
  let best: { n: number; first: number; value: T } | undefined;
  for (const c of counts.values()) if (!best || c.n > best.n || (c.n === best.n && c.first < best.first)) best = c;
  return best!.value;
}

/**
 * The unbiased pass@k estimator (Chen et al., 2021): with n attempts of which
 * c pass, the probability that at least one of k attempts drawn without
 * replacement passes, 1 − C(n−c, k) / C(n, k), computed as a product so that
 * large n does not overflow.
 */
export function passAtK(n: number, c: number, k: number): number {
  if (
    !Number.isInteger(n) ||
    !Number.isInteger(c) ||
    !Number.isInteger(k) ||
    n < 1 ||
    c < 0 ||
    c > n ||
    k < 1 ||
    k > n
  ) {
    throw new RangeError(`pass@k needs integers 1 ≤ k ≤ n and 0 ≤ c ≤ n, got n=${n}, c=${c}, k=${k}`);
  }
  if (n - c < k) return 1;
  let miss = 1;
  for (let i = n - c + 1; i <= n; i++) miss *= 1 - k / i;
  return 1 - miss;
}

/** The k values reported for n attempts: 1, then 2, 5, 10, … up to n, and n itself. */
export function planPassKs(n: number): number[] {
  const ks = new Set<number>([1]);
  for (const k of [2, 5, 10, 20, 50, 100]) if (k <= n) ks.add(k);
  ks.add(Math.max(1, n));
  return [...ks].sort((a, b) => a - b);
}
