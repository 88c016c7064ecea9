import type { ReplayEvidence } from './replay-evidence.js';

/** What a new crash has, as far as it is known; only the exception and its traceback are required. */
export interface SuggestInput {
  ename: string;
  evalue: string;
  /** Traceback lines as Jupyter stores them (ANSI escapes allowed). */
  traceback: readonly string[];
  /** Top-level modules the notebook imports. */
  imports?: readonly string[];
  /** Source of the crashing code cell. */
  cell?: string;
  /** Sources of the code cells before the crashing one, in notebook order. */
  cellsBefore?: readonly string[];
  /** Sources of the code cells after the crashing one, in notebook order. */
  cellsAfter?: readonly string[];
  /** Saved execution count of the crashing cell (null: never run). */
  executionCount?: number | null;
  /** Saved execution counts of cellsBefore / cellsAfter, aligned with them. */
  executionCountsBefore?: ReadonlyArray<number | null>;
  executionCountsAfter?: ReadonlyArray<number | null>;
  /** What a replay that reproduced the crash showed (`add` after its run). */
  replay?: ReplayEvidence;
}
