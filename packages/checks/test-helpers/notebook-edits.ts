// Test-only (a module of this package's test-helpers/ folder, outside src/): the alternative correct fixes of the
// embedded instances (test/fixtures/alternative-fixes) are edits of their notebooks, applied here for the tests and
// bench/checks.
import { listCodeCells, type CodeCell, type Notebook } from '@junobench/notebook';

/** One edit of a notebook's code cells (indices count code cells, after the edits before it). */
export type NotebookEdit =
  | { cell: number; replace: string; with: string }
  | { insertAfter: number; source: string; count?: number | null }
  | { counts: (number | null)[] };

export interface AlternativeFix {
  name: string;
  kind: 'another API' | 'another computation' | 'reordered code' | 'an extra cell' | 'different random numbers';
  /** The notebook the edits start from. */
  from: 'reproduced' | 'fixed';
  edits: NotebookEdit[];
}

export interface AlternativeFixes {
  instance: string;
  alternatives: AlternativeFix[];
}

/** The notebook with the edits applied, outputs cleared; throws naming the edit that does not apply exactly once. */
export function applyNotebookEdits(nb: Notebook, edits: readonly NotebookEdit[]): Notebook {
  let cells: Notebook['cells'] = nb.cells.map((c) => (c.cell_type === 'code' ? { ...c, outputs: [] } : { ...c }));
  for (const [k, e] of edits.entries()) {
    const code = listCodeCells({ ...nb, cells });
    if ('replace' in e) {
      const target = code[e.cell];
      if (!target) throw new Error(`edit ${k}: no code cell ${e.cell}`);
      const n = target.source.split(e.replace).length - 1;
      if (n !== 1)
        throw new Error(`edit ${k}: code cell ${e.cell} holds ${JSON.stringify(e.replace)} ${n} times, not once`);
      cells = cells.map((c, i) =>
        i === target.cellIndex ? { ...c, source: target.source.replace(e.replace, () => e.with) } : c,
      );
    } else if ('insertAfter' in e) {
      const after = code[e.insertAfter];
      if (!after) throw new Error(`edit ${k}: no code cell ${e.insertAfter}`);
      const cell: CodeCell = {
        cell_type: 'code',
        metadata: {},
        source: e.source,
        execution_count: e.count ?? null,
        outputs: [],
      };
      cells = [...cells.slice(0, after.cellIndex + 1), cell, ...cells.slice(after.cellIndex + 1)];
    } else {
      if (e.counts.length !== code.length)
        throw new Error(`edit ${k}: ${e.counts.length} counts for ${code.length} code cells`);
      cells = cells.map((c) => {
        const at = code.findIndex((x) => x.cellIndex === cells.indexOf(c));
        return at < 0 ? c : { ...c, execution_count: e.counts[at] ?? null };
      });
    }
  }
  return { ...nb, cells: cells as Notebook['cells'] };
}
