import { createRng } from '@junobench/core';

export type EvalSplit = 'dev' | 'held-out';

export interface SplitOptions {
  seed: string | number;
  /** Share of crashes held out, in [0, 1]. */
  heldOutFraction: number;
}

/** The split the suggestions were developed and measured with (docs/suggest.md, "How it is measured"). */
export const DEFAULT_SPLIT: SplitOptions = { seed: 'junobench-suggest-1', heldOutFraction: 0.5 };

/**
 * Which side of a seeded dev/held-out split a crash falls on, from its id
 * alone: the same crash lands on the same side in every pool that holds it
 * (the 111 published rows and the study's 746 share ids), whatever the order
 * or size of the pool. Rules are written against `dev` only; `held-out` is
 * measured, never read.
 */
export function assignSplit(id: string, options: SplitOptions = DEFAULT_SPLIT): EvalSplit {
  return createRng(`${options.seed}\u0000${id}`).next() < options.heldOutFraction ? 'held-out' : 'dev';
}
