import { describe, expect, it } from 'vitest';
import { JunoError } from '@junobench/core';
import { listCodeCells, planExecution } from './code-cells.js';
import type { Notebook } from './notebook-types.js';

function nb(counts: (number | null | 'md')[]): Notebook {
  return {
    nbformat: 4,
    nbformat_minor: 4,
    metadata: {},
    cells: counts.map((c, i) =>
      c === 'md'
        ? { cell_type: 'markdown' as const, metadata: {}, source: `md ${i}` }
        : { cell_type: 'code' as const, metadata: {}, source: `cell ${i}`, execution_count: c, outputs: [] },
    ),
  };
}

describe('listCodeCells', () => {
  it('numbers code cells only, as crash.cell counts them', () => {
    const cells = listCodeCells(nb(['md', 1, 'md', 2, 3]));
    expect(cells.map((c) => [c.index, c.cellIndex, c.source])).toEqual([
      [0, 1, 'cell 1'],
      [1, 3, 'cell 3'],
      [2, 4, 'cell 4'],
    ]);
  });
});

describe('planExecution', () => {
  it.each([
    ['file order runs every code cell top to bottom', ['md', 3, null, 1, 2], 'file', undefined, [0, 1, 2, 3]],
    [
      'execution-count order sorts by saved counts and skips never-run cells',
      ['md', 3, null, 1, 2],
      'execution-count',
      undefined,
      [2, 3, 0],
    ],
    ['equal counts keep file order', [2, 1, 2], 'execution-count', undefined, [1, 0, 2]],
    [
      'an explicit replay list wins, repeats are re-executions',
      [1, 2, 3],
      'execution-count',
      [0, 1, 1, 2],
      [0, 1, 1, 2],
    ],
  ] as const)('%s', (_name, counts, order, explicit, expected) => {
    expect(planExecution(nb([...counts]), order, explicit)).toEqual(expected);
  });

  it('rejects an explicit list naming a cell that does not exist', () => {
    expect(() => planExecution(nb([1, 2]), 'file', [0, 5])).toThrow(JunoError);
    expect(() => planExecution(nb([1, 2]), 'file', [0, 5])).toThrow(/code cell 5.*2 code cells/);
  });
});
