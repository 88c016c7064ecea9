import type { MarkdownCell, Notebook } from './notebook-types.js';

/** The tag (and id) of the cell that marks a fixed.ipynb as the draft fix `junobench add` wrote. */
export const DRAFT_FIX_TAG = 'junobench-draft-fix';

const DRAFT_FIX_TEXT = [
  '**DRAFT FIX** — written by `junobench add`: this is the reproduced notebook, copied as a starting point. ',
  "It still crashes. Repair the root cause (keep the author's intent and every cell), then **delete this cell**: ",
  'until then `verify`, the build and the report call this instance a draft and do not run this notebook as its fix.',
].join('');

/**
 * Pure: the starter of a draft's fixed.ipynb: the reproduced notebook with a
 * first markdown cell that marks it as a draft fix (tagged, so the mark is the
 * cell: deleting it in Jupyter is all it takes to say the fix is done).
 */
export function planDraftFix(reproduced: Notebook): Notebook {
  const mark: MarkdownCell = {
    cell_type: 'markdown',
    ...(reproduced.nbformat_minor >= 5 ? { id: DRAFT_FIX_TAG } : {}),
    metadata: { tags: [DRAFT_FIX_TAG] },
    source: DRAFT_FIX_TEXT,
  };
  return { ...reproduced, cells: [mark, ...reproduced.cells.filter((c) => !isDraftFixCell(c))] };
}

/** Whether a notebook still carries the draft-fix mark (a cell tagged junobench-draft-fix). */
export function isDraftFix(nb: Pick<Notebook, 'cells'>): boolean {
  return nb.cells.some(isDraftFixCell);
}

function isDraftFixCell(cell: { metadata?: Record<string, unknown> }): boolean {
  const tags = cell.metadata?.tags;
  return Array.isArray(tags) && tags.includes(DRAFT_FIX_TAG);
}
