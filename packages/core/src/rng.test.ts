import { describe, expect, it } from 'vitest';
import { createRng } from './rng.js';

describe('createRng', () => {
  it('gives the same sequence for the same seed, another for another seed', () => {
    const a = Array.from({ length: 5 }, createRng('s1').next);
    const seq = (seed: string) => {
      const r = createRng(seed);
      return Array.from({ length: 5 }, () => r.next());
    };
    expect(seq('s1')).toEqual(seq('s1'));
    expect(seq('s1')).not.toEqual(seq('s2'));
    expect(a).toHaveLength(5);
  });

  it('pins the sequence across platforms and versions (regression value)', () => {
    const r = createRng(42);
    const first = [r.int(1000), r.int(1000), r.int(1000)];
    expect(createRng(42).int(1000)).toBe(first[0]);
    // Changing the generator would silently change every published sample.
    expect(first).toMatchInlineSnapshot(`
      [
        915,
        461,
        618,
      ]
    `);
  });

  it('int is uniform enough and in range', () => {
    const r = createRng('u');
    const counts = new Array(4).fill(0);
    for (let i = 0; i < 40_000; i++) counts[r.int(4)]++;
    for (const c of counts) expect(Math.abs(c - 10_000)).toBeLessThan(500);
    expect(() => r.int(0)).toThrow(RangeError);
  });

  it('shuffle is a permutation and sample draws without replacement', () => {
    const items = Array.from({ length: 50 }, (_, i) => i);
    const r = createRng('p');
    expect([...r.shuffle(items)].sort((a, b) => a - b)).toEqual(items);
    const s = r.sample(items, 10);
    expect(new Set(s).size).toBe(10);
    expect(r.sample(items, 100)).toHaveLength(50);
  });

  it('fork gives independent, reproducible streams', () => {
    const a = createRng('x').fork('pandas');
    const b = createRng('x').fork('pandas');
    const c = createRng('x').fork('numpy');
    const va = a.next();
    expect(b.next()).toBe(va);
    expect(c.next()).not.toBe(va);
  });
});
