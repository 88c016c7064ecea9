import { describe, expect, it } from 'vitest';
import { assignSplit, DEFAULT_SPLIT } from './assign-split.js';

const ids = Array.from({ length: 2000 }, (_, i) => `crash-${i}`);

describe('assignSplit', () => {
  it('depends on the id alone: the same crash lands on the same side in any pool and order', () => {
    const forward = ids.map((id) => assignSplit(id));
    const backward = [...ids]
      .reverse()
      .map((id) => assignSplit(id))
      .reverse();
    expect(backward).toEqual(forward);
  });

  it('holds out about the fraction asked', () => {
    const share = (fraction: number) =>
      ids.filter((id) => assignSplit(id, { seed: 's', heldOutFraction: fraction }) === 'held-out').length / ids.length;
    expect(share(0.5)).toBeGreaterThan(0.45);
    expect(share(0.5)).toBeLessThan(0.55);
    expect(share(0.2)).toBeGreaterThan(0.16);
    expect(share(0.2)).toBeLessThan(0.24);
    expect(share(0)).toBe(0);
    expect(share(1)).toBe(1);
  });

  it('another seed is another split', () => {
    const a = ids.map((id) => assignSplit(id, DEFAULT_SPLIT));
    const b = ids.map((id) => assignSplit(id, { ...DEFAULT_SPLIT, seed: 'other' }));
    expect(a).not.toEqual(b);
  });
});
