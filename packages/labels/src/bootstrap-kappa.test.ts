import { describe, expect, it } from 'vitest';
import { bootstrapKappa, quantileSorted } from './bootstrap-kappa.js';
import { computeCohenKappa } from './cohen-kappa.js';

const a = ['x', 'x', 'y', 'y', 'z', 'x', 'y', 'z', 'z', 'x', 'x', 'y', 'z', 'x', 'y', 'y', 'x', 'z', 'x', 'y'];
const b = ['x', 'y', 'y', 'y', 'z', 'x', 'x', 'z', 'y', 'x', 'x', 'y', 'z', 'x', 'y', 'z', 'x', 'z', 'x', 'y'];

describe('quantileSorted (Hyndman & Fan type 7)', () => {
  it.each([
    { values: [1, 2, 3, 4], q: 0, expected: 1 },
    { values: [1, 2, 3, 4], q: 1, expected: 4 },
    { values: [1, 2, 3, 4], q: 0.5, expected: 2.5 },
    { values: [1, 2, 3, 4], q: 0.25, expected: 1.75 },
    { values: [10], q: 0.975, expected: 10 },
    { values: [0, 10], q: 0.025, expected: 0.25 },
  ])('q=$q of $values → $expected', ({ values, q, expected }) => {
    expect(quantileSorted(values, q)).toBeCloseTo(expected, 12);
  });
});

describe('bootstrapKappa', () => {
  it('is reproducible: same seed, same interval; another seed, another interval', () => {
    const r1 = bootstrapKappa(a, b, { resamples: 500, seed: 7, confidence: 0.95 });
    const r2 = bootstrapKappa(a, b, { resamples: 500, seed: 7, confidence: 0.95 });
    const r3 = bootstrapKappa(a, b, { resamples: 500, seed: 8, confidence: 0.95 });
    expect(r2).toEqual(r1);
    expect(r3.ci).not.toEqual(r1.ci);
  });

  it('brackets the point estimate and stays within [-1, 1]', () => {
    const k = computeCohenKappa(a, b).kappa!;
    const { ci, undefinedResamples } = bootstrapKappa(a, b, { resamples: 2000, seed: 'junobench', confidence: 0.95 });
    expect(undefinedResamples).toBe(0);
    expect(ci![0]).toBeLessThan(k);
    expect(ci![1]).toBeGreaterThan(k);
    expect(ci![0]).toBeGreaterThanOrEqual(-1);
    expect(ci![1]).toBeLessThanOrEqual(1);
  });

  it('a wider confidence gives a wider interval', () => {
    const narrow = bootstrapKappa(a, b, { resamples: 1000, seed: 1, confidence: 0.5 }).ci!;
    const wide = bootstrapKappa(a, b, { resamples: 1000, seed: 1, confidence: 0.99 }).ci!;
    expect(wide[0]).toBeLessThanOrEqual(narrow[0]);
    expect(wide[1]).toBeGreaterThanOrEqual(narrow[1]);
  });

  it('perfect agreement with variation: every defined resample has kappa 1', () => {
    const r = bootstrapKappa(['p', 'q', 'p', 'q', 'r'], ['p', 'q', 'p', 'q', 'r'], {
      resamples: 300,
      seed: 3,
      confidence: 0.95,
    });
    expect(r.ci).toEqual([1, 1]);
  });

  it('a single shared category: every resample undefined, no interval', () => {
    const r = bootstrapKappa(['p', 'p', 'p'], ['p', 'p', 'p'], { resamples: 50, seed: 3, confidence: 0.95 });
    expect(r).toEqual({ resamples: 50, undefinedResamples: 50, ci: null });
  });

  it('no items: no interval', () => {
    expect(bootstrapKappa([], [], { resamples: 10, seed: 1, confidence: 0.95 }).ci).toBeNull();
  });

  it.each([
    { resamples: 0, confidence: 0.95 },
    { resamples: 1.5, confidence: 0.95 },
    { resamples: 10, confidence: 1 },
    { resamples: 10, confidence: 0 },
  ])('rejects resamples=$resamples confidence=$confidence', (o) => {
    expect(() => bootstrapKappa(a, b, { ...o, seed: 1 })).toThrow(RangeError);
  });
});
