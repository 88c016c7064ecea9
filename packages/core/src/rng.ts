import { createHash } from 'node:crypto';

/**
 * A seeded pseudo-random generator (sfc32, seeded from the SHA-256 of the seed
 * text). Same seed → same sequence on every platform and Node version, which
 * Math.random cannot give. Not for cryptography.
 */
export interface Rng {
  /** Uniform float in [0, 1). */
  next(): number;
  /** Uniform integer in [0, n). */
  int(n: number): number;
  /** A new array with the items in a seeded random order (Fisher–Yates). */
  shuffle<T>(items: readonly T[]): T[];
  /** k items without replacement, in the order drawn. */
  sample<T>(items: readonly T[], k: number): T[];
  /** An independent generator derived from this seed and a label. */
  fork(label: string): Rng;
}

export function createRng(seed: string | number): Rng {
  const seedText = String(seed);
  const digest = createHash('sha256').update(seedText).digest();
  let a = digest.readUInt32LE(0);
  let b = digest.readUInt32LE(4);
  let c = digest.readUInt32LE(8);
  let d = digest.readUInt32LE(12);
  const nextU32 = (): number => {
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    let t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    t = (t + d) | 0;
    c = (c + t) | 0;
    return t >>> 0;
  };
  // Discard the first outputs: sfc32 mixes its state over the first dozen steps.
  for (let i = 0; i < 15; i++) nextU32();

  const rng: Rng = {
    next: () => nextU32() / 4294967296,
    int(n: number) {
      if (!Number.isInteger(n) || n <= 0) throw new RangeError(`int(n) needs a positive integer, got ${n}`);
      // Rejection sampling: no modulo bias.
      const limit = 4294967296 - (4294967296 % n);
      let x = nextU32();
      while (x >= limit) x = nextU32();
      return x % n;
    },
    shuffle<T>(items: readonly T[]): T[] {
      const out = items.slice();
      for (let i = out.length - 1; i > 0; i--) {
        const j = rng.int(i + 1);
        [out[i], out[j]] = [out[j]!, out[i]!];
      }
      return out;
    },
    sample<T>(items: readonly T[], k: number): T[] {
      if (k >= items.length) return rng.shuffle(items);
      // Partial Fisher–Yates: O(k) swaps on a copy.
      const out = items.slice();
      for (let i = 0; i < k; i++) {
        const j = i + rng.int(out.length - i);
        [out[i], out[j]] = [out[j]!, out[i]!];
      }
      return out.slice(0, k);
    },
    fork: (label: string) => createRng(`${seedText}\u0000${label}`),
  };
  return rng;
}
