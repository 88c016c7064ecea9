import { compareCodePoints, createRng, type Rng } from '@junobench/core';

/**
 * How many items each stratum keeps: proportional to its size (largest
 * remainder, ties broken by key so the result never depends on Map order),
 * and at least one per non-empty stratum when the budget allows, so a rare
 * category a crash may depend on is never sampled away.
 */
export function allocateQuotas(counts: ReadonlyMap<string, number>, target: number): Map<string, number> {
  const keys = [...counts.keys()].filter((k) => (counts.get(k) ?? 0) > 0).sort(compareCodePoints);
  const total = keys.reduce((s, k) => s + counts.get(k)!, 0);
  const quotas = new Map<string, number>();
  if (target >= total) {
    for (const k of keys) quotas.set(k, counts.get(k)!);
    return quotas;
  }
  const t = Math.max(0, Math.floor(target));
  const rema: { k: string; r: number }[] = [];
  let given = 0;
  for (const k of keys) {
    const exact = (t * counts.get(k)!) / total;
    const q = Math.floor(exact);
    quotas.set(k, q);
    given += q;
    rema.push({ k, r: exact - q });
  }
  rema.sort((a, b) => b.r - a.r || compareCodePoints(a.k, b.k));
  for (let i = 0; given < t && i < rema.length; i++, given++) quotas.set(rema[i]!.k, quotas.get(rema[i]!.k)! + 1);
  if (keys.length <= t) {
    // Give every empty-handed stratum one item, taken from the largest quotas.
    const needy = keys.filter((k) => quotas.get(k) === 0);
    for (const k of needy) {
      const donor = keys
        .filter((d) => quotas.get(d)! > 1)
        .sort((a, b) => quotas.get(b)! - quotas.get(a)! || compareCodePoints(a, b))[0];
      if (!donor) break;
      quotas.set(donor, quotas.get(donor)! - 1);
      quotas.set(k, 1);
    }
  }
  return quotas;
}

/**
 * Knuth's selection sampling (Algorithm S), one per stratum: decides for
 * each item, in file order, whether it is kept, so that exactly `quota` of
 * the stratum's `count` items are, uniformly at random — with O(1) memory
 * per stratum, which is what lets a multi-GB CSV stream through.
 */
export class StratifiedSelector {
  private readonly state = new Map<string, { rng: Rng; seen: number; needed: number; count: number }>();

  constructor(
    private readonly seed: string | number,
    counts: ReadonlyMap<string, number>,
    quotas: ReadonlyMap<string, number>,
  ) {
    for (const [k, count] of counts) {
      this.state.set(k, {
        rng: createRng(`${String(seed)}\u0000stratum\u0000${k}`),
        seen: 0,
        needed: quotas.get(k) ?? 0,
        count,
      });
    }
  }

  /** Whether the next item of stratum `key` is kept. Call once per item, in order. */
  take(key: string): boolean {
    const s = this.state.get(key);
    if (!s) throw new Error(`stratum "${key}" was not counted in the first pass`);
    const remaining = s.count - s.seen;
    s.seen++;
    if (s.needed <= 0 || remaining <= 0) return false;
    if (s.rng.next() * remaining < s.needed) {
      s.needed--;
      return true;
    }
    return false;
  }
}

/** Choose `k` of `items` per group, seeded; returns the kept items in their input order. */
export function sampleByGroup<T>(
  items: readonly T[],
  groupOf: (item: T) => string,
  howMany: (groupSize: number) => number,
  seed: string | number,
): T[] {
  const groups = new Map<string, number[]>();
  items.forEach((it, i) => {
    const g = groupOf(it);
    let list = groups.get(g);
    if (!list) groups.set(g, (list = []));
    list.push(i);
  });
  const keep = new Set<number>();
  for (const g of [...groups.keys()].sort(compareCodePoints)) {
    const idx = groups.get(g)!;
    const k = Math.min(idx.length, Math.max(0, howMany(idx.length)));
    for (const i of createRng(`${String(seed)}\u0000group\u0000${g}`).sample(idx, k)) keep.add(i);
  }
  return items.filter((_, i) => keep.has(i));
}

/** round(fraction × n), at least one when n > 0. */
export function fractionOf(n: number, fraction: number): number {
  if (n <= 0) return 0;
  return Math.min(n, Math.max(1, Math.round(n * fraction)));
}
