import type { SuggestInput } from './suggest-input.js';
import { quotedKeys, removesKey } from './removed-keys.js';

/** What the notebook-state evidence reads of a crash: its exception, its statement and the cells around it. */
export interface NotebookStateFacts {
  input: SuggestInput;
  /** Exception class, lowercased (`keyerror`). */
  eclass: string;
  message: string;
  /** The crashing statement (the deepest notebook frame's arrowed line). */
  statement: string;
}

/** Exception classes that out-of-order cells commonly produce from data a later cell changed. */
const OUT_OF_ORDER_CLASSES = new Set(['keyerror', 'attributeerror', 'valueerror', 'indexerror', 'typeerror']);

/** A crash's cause in the notebook's state, and why. */
export interface NotebookState {
  kind: 'rerun' | 'out-of-order';
  why: string;
}

/**
 * Evidence in the notebook's cells (not the traceback) that the crash comes
 * from the notebook's state rather than its code: a key an earlier cell
 * already removed (the cell ran again), or cells run out of order. Shared by
 * the root cause (`NB specific`) and the library cause (`None`), so that the
 * two dimensions never disagree about it. Undefined when the cells are not
 * known (a pool record) or show nothing.
 */
export function notebookStateEvidence(f: NotebookStateFacts): NotebookState | undefined {
  const rerun = rerunEvidence(f);
  if (rerun) return { kind: 'rerun', why: rerun };
  const outOfOrder = OUT_OF_ORDER_CLASSES.has(f.eclass) ? outOfOrderEvidence(f) : undefined;
  return outOfOrder ? { kind: 'out-of-order', why: outOfOrder } : undefined;
}

/**
 * A KeyError for a column that the crashing cell or an earlier one removes or
 * renames: the cell ran a second time, on data it had already changed.
 */
function rerunEvidence(f: NotebookStateFacts): string | undefined {
  if (f.eclass !== 'keyerror' && f.eclass !== 'valueerror') return undefined;
  // The crashing statement itself is left out: a first run of it fails the same way when the column was never
  // there. (predictLibrary's statement rule reads it with the message: every key it removes already gone.)
  const ownCell = (f.input.cell ?? '').split('\n').filter((l) => f.statement === '' || l.trim() !== f.statement.trim());
  const cells = [...(f.input.cellsBefore ?? []), ...ownCell].join('\n');
  if (cells.trim() === '') return undefined;
  for (const key of quotedKeys(f.message)) {
    if (removesKey(cells, key))
      return `the notebook already removes or renames '${key}' (a drop, del, pop, rename or get_dummies): the cell ran again on data it had changed`;
  }
  return undefined;
}

/**
 * Cells before the crashing one that ran after it, or cells after it that ran
 * before it. A notebook keeps only the count of each cell's last run, so a
 * cell above with a higher count may simply have been re-run after the crash
 * (a user working down the notebook, then fixing and re-running): when a count
 * below the crash's that no cell holds is free for it, after the cells above
 * it, its earlier run fits there and says nothing about the order. This is the
 * reading `add` replays the notebook by (packages/pipeline's
 * planReproducedNotebook), so a draft replayed top to bottom is not suggested
 * as an out-of-order crash.
 */
function outOfOrderEvidence(f: NotebookStateFacts): string | undefined {
  const n = f.input.executionCount;
  if (n === undefined || n === null) return undefined;
  const before = f.input.executionCountsBefore ?? [];
  const after = f.input.executionCountsAfter ?? [];
  const taken = new Set([...before, ...after].filter((c): c is number => c !== null && c < n));
  let placedUpTo = 0;
  let laterBefore = 0;
  let rerun = 0;
  for (const c of before) {
    if (c === null) continue;
    if (c < n) {
      placedUpTo = Math.max(placedUpTo, c);
      continue;
    }
    let k = placedUpTo + 1;
    while (k < n && taken.has(k)) k++;
    if (k < n) {
      taken.add(k);
      placedUpTo = k;
      rerun++;
    } else laterBefore++;
  }
  const earlierAfter = after.filter((c): c is number => c !== null && c < n).length;
  if (laterBefore + earlierAfter === 0) return undefined;
  const rerunNote = rerun > 0 ? `; ${rerun} other cell(s) above may have been re-run after the crash` : '';
  return `the cells ran out of order (the crashing cell is [${n}]; ${laterBefore} cell(s) above it ran later and cannot have run before it, ${earlierAfter} below it ran earlier${rerunNote})`;
}
