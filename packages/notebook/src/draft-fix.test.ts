import { describe, expect, it } from 'vitest';
import { listCodeCells } from './code-cells.js';
import { DRAFT_FIX_TAG, isDraftFix, planDraftFix } from './draft-fix.js';
import type { Notebook } from './notebook-types.js';

const reproduced: Notebook = {
  nbformat: 4,
  nbformat_minor: 5,
  metadata: {},
  cells: [
    { cell_type: 'code', id: 'a', source: 'import pandas as pd', execution_count: null, metadata: {}, outputs: [] },
    { cell_type: 'code', id: 'b', source: "pd.DataFrame()['x']", execution_count: null, metadata: {}, outputs: [] },
  ],
};

describe('the draft fix', () => {
  it('is the reproduced notebook with a first markdown cell that marks it, the code cells unchanged', () => {
    const fix = planDraftFix(reproduced);
    expect(isDraftFix(fix)).toBe(true);
    expect(isDraftFix(reproduced)).toBe(false);
    expect(fix.cells[0]).toMatchObject({
      cell_type: 'markdown',
      id: DRAFT_FIX_TAG,
      metadata: { tags: [DRAFT_FIX_TAG] },
    });
    expect(String(fix.cells[0]!.source)).toMatch(/^\*\*DRAFT FIX\*\*/);
    // crash.cell counts code cells: the mark moves none.
    expect(listCodeCells(fix).map((c) => c.source)).toEqual(listCodeCells(reproduced).map((c) => c.source));
  });

  it('stops being one when its mark cell is deleted, and is marked once however often planned', () => {
    const fix = planDraftFix(planDraftFix(reproduced));
    expect(fix.cells.filter((c) => c.cell_type === 'markdown')).toHaveLength(1);
    expect(isDraftFix({ cells: fix.cells.slice(1) })).toBe(false);
  });
});
