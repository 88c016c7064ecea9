import { JunoError } from '@junobench/core';
import type { CodeCell, IndexedCodeCell, Notebook } from './notebook-types.js';

export function cellSource(cell: { source: string | string[] }): string {
  return Array.isArray(cell.source) ? cell.source.join('') : cell.source;
}

/** The code cells in file order, numbered as `crash.cell` counts them. */
export function listCodeCells(nb: Notebook): IndexedCodeCell[] {
  const out: IndexedCodeCell[] = [];
  nb.cells.forEach((cell, cellIndex) => {
    if (cell.cell_type !== 'code') return;
    const code = cell as CodeCell;
    out.push({
      index: out.length,
      cellIndex,
      source: cellSource(code),
      executionCount: code.execution_count ?? null,
      cell: code,
    });
  });
  return out;
}

export type ExecutionOrder = 'file' | 'execution-count';

/**
 * The code-cell indices to execute, in order.
 * - `file`: every code cell top to bottom (a "Run all").
 * - `execution-count`: the cells that were run, sorted by their saved execution
 *   counts; never-run cells (count null) are skipped. This replays the session
 *   that produced an out-of-order crash. Equal counts keep file order.
 * An explicit list (instance `execution.cells`) wins over both; a repeated
 * index there is a re-execution, as when a user runs a cell twice.
 */
export function planExecution(nb: Notebook, order: ExecutionOrder, explicit?: readonly number[]): number[] {
  const cells = listCodeCells(nb);
  if (explicit && explicit.length > 0) {
    for (const i of explicit) {
      if (!Number.isInteger(i) || i < 0 || i >= cells.length) {
        throw new JunoError(
          'E_INSTANCE',
          `execution.cells names code cell ${i}, but the notebook has ${cells.length} code cells (0–${cells.length - 1})`,
          {
            location: { field: 'execution.cells' },
            hint: 'code cells are counted from 0, skipping markdown and raw cells',
          },
        );
      }
    }
    return [...explicit];
  }
  if (order === 'file') return cells.map((c) => c.index);
  return cells
    .filter((c) => c.executionCount !== null)
    .sort((a, b) => a.executionCount! - b.executionCount! || a.index - b.index)
    .map((c) => c.index);
}
