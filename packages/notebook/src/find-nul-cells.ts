import { JunoError } from '@junobench/core';
import { listCodeCells } from './code-cells.js';
import type { Notebook } from './notebook-types.js';

/**
 * Code cells (indices among the code cells, from 0) whose source holds a NUL
 * character: no Python kernel runs them (ipykernel never answers such an
 * execute request, so the cell would only end at its time limit).
 */
export function findNulCells(nb: Notebook): number[] {
  return listCodeCells(nb).flatMap((c, i) => (c.source.includes('\u0000') ? [i] : []));
}

/** `findNulCells` as bad input (E_NOTEBOOK, exit 2) naming the notebook and the cells, before anything runs. */
export function assertNoNulCells(nb: Notebook, file: string): void {
  const cells = findNulCells(nb);
  if (cells.length === 0) return;
  throw new JunoError(
    'E_NOTEBOOK',
    `code cell${cells.length > 1 ? 's' : ''} ${cells.join(', ')} (counting code cells from 0) hold${cells.length > 1 ? '' : 's'} a NUL byte (\\u0000), which no Python kernel can run`,
    {
      location: { file, field: `code cell ${cells[0]}` },
      hint: 'remove the NUL characters from the cell source (often a paste of binary data; in the .ipynb JSON they appear as \\u0000)',
    },
  );
}
