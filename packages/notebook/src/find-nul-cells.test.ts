import { describe, expect, it } from 'vitest';
import { JunoError } from '@junobench/core';
import { assertNoNulCells, findNulCells } from './find-nul-cells.js';
import type { Notebook } from './notebook-types.js';

const nb = (...sources: (string | string[])[]): Notebook =>
  ({
    nbformat: 4,
    nbformat_minor: 5,
    metadata: {},
    cells: [
      { cell_type: 'markdown', metadata: {}, source: 'a NUL \u0000 in prose runs nowhere' },
      ...sources.map((source) => ({ cell_type: 'code', metadata: {}, source, outputs: [], execution_count: null })),
    ],
  }) as unknown as Notebook;

describe('findNulCells', () => {
  it('names the code cells (from 0) whose source holds a NUL, in a string or a list of lines', () => {
    expect(findNulCells(nb('x = 1', 'y = "\u0000"', ['z = 1\n', '\u0000']))).toEqual([1, 2]);
    expect(findNulCells(nb('x = 1'))).toEqual([]);
  });

  it('assertNoNulCells is bad input (exit 2) naming the notebook and the cell', () => {
    expect(() => assertNoNulCells(nb('x = 1'), 'a.ipynb')).not.toThrow();
    const error = (() => {
      try {
        assertNoNulCells(nb('x = 1', '\u0000'), 'raw/instances/x/reproduced.ipynb');
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(JunoError);
    expect(error).toMatchObject({
      code: 'E_NOTEBOOK',
      exitCode: 2,
      message: expect.stringMatching(/^code cell 1 \(counting code cells from 0\) holds a NUL byte/),
      location: { file: 'raw/instances/x/reproduced.ipynb', field: 'code cell 1' },
    });
  });
});
