import { describe, expect, it } from 'vitest';
import { listCodeCells, type Notebook } from '@junobench/notebook';
import { MUTANT_FAMILIES, planMutants, type MutantSource } from './plan-mutants.js';
import { findStatement, findTopLevelStatement, listBoundNames } from './python-statements.js';

function notebook(cells: (string | { source: string; count: number | null })[]): Notebook {
  return {
    nbformat: 4,
    nbformat_minor: 4,
    metadata: {},
    cells: cells.map((c) => {
      const cell = typeof c === 'string' ? { source: c, count: null } : c;
      return { cell_type: 'code', metadata: {}, source: cell.source, execution_count: cell.count, outputs: [] };
    }),
  };
}

const crashCell = [
  'n = len(y_test)',
  'cm = np.zeros((3, 3), dtype=int)',
  'for true, pred in zip(y_test,',
  '                      y_pred):',
  '    cm[true, pred] += 1',
  'cm',
].join('\n');
const source: MutantSource = {
  notebook: notebook(['import numpy as np', 'y_test = [1, 2, 3]\ny_pred = [1, 2, 3]', crashCell, 'print(cm.sum())']),
  order: 'file',
  crashCell: 2,
  crashLine: 5,
  libraryCall: { module: 'pandas.core.generic', qualname: 'NDFrame.astype' },
  fakeOutput: '3\n',
};
const cellOf = (nb: Notebook, i: number) => listCodeCells(nb)[i]?.source;

describe('statements of a cell', () => {
  it('finds the logical line of a traceback line, a bracketed continuation included, and its block', () => {
    expect(findStatement(crashCell, 5)).toMatchObject({ first: 4, last: 4, indent: '    ' });
    expect(findStatement(crashCell, 4)).toMatchObject({ first: 2, last: 4, indent: '' });
    expect(findTopLevelStatement(crashCell, 5)).toMatchObject({ first: 2, last: 4 });
    expect(findStatement(crashCell, 99)).toBeUndefined();
  });

  it.each([
    ['a, b = f()', ['a', 'b']],
    ['a = b = 1', ['a', 'b']],
    ['df["x"] = 1', []],
    ['obj.attr = 1', []],
    ['total += x', ['total']],
    ['x == 1', []],
    ['import numpy as np, os', ['np', 'os']],
    ['from a.b import c, d as e', ['c', 'e']],
    ['for i, j in pairs:', ['i', 'j']],
    ['with open(p) as f:', ['f']],
  ])('%j binds %j', (code, names) => {
    expect(listBoundNames(findStatement(code, 1)!).sort()).toEqual([...names].sort());
  });
});

describe('planMutants', () => {
  const mutants = planMutants(source);
  const byId = new Map(mutants.map((m) => [m.id, m]));

  it('applies every family once to the crashing statement or cell, and two to the enclosing top-level statement', () => {
    expect(new Set(mutants.map((m) => m.family))).toEqual(new Set(MUTANT_FAMILIES));
    expect(mutants.map((m) => m.id)).toContain('statement-pass@2:5');
    expect(mutants.map((m) => m.id)).toContain('statement-pass@2:3');
    expect(mutants.map((m) => m.id)).toContain('guard-if-len@2:3');
    expect(new Set(mutants.map((m) => m.id)).size).toBe(mutants.length);
  });

  it.each([
    ['statement-deleted@2:5', '    pass'],
    ['statement-none@2:5', '    _ = None'],
    ['statement-print@2:5', '    print("cm[true, pred] += 1")'],
    ['statement-commented@2:5', '    # cm[true, pred] += 1\n    pass'],
    ['guard-if-len@2:5', '    if len([]) > 0:\n        cm[true, pred] += 1'],
    ['guard-for-empty@2:5', '    for _ in []:\n        cm[true, pred] += 1'],
    ['swallow-exec@2:5', '    exec("try:\\n    cm[true, pred] += 1\\nexcept Exception:\\n    pass")'],
  ])('%s replaces the statement in place, keeping its indentation', (id, replacement) => {
    const lines = crashCell.split('\n');
    const expected = [...lines.slice(0, 4), replacement, lines[5]].join('\n');
    expect(cellOf(byId.get(id)!.notebook, 2)).toBe(expected);
  });

  it('guards the whole top-level statement, continuation lines included', () => {
    expect(cellOf(byId.get('guard-if-len@2:3')!.notebook, 2)).toBe(
      [
        'n = len(y_test)',
        'cm = np.zeros((3, 3), dtype=int)',
        'if len([]) > 0:',
        '    for true, pred in zip(y_test,',
        '                          y_pred):',
        '        cm[true, pred] += 1',
        'cm',
      ].join('\n'),
    );
  });

  it('wraps, comments out, guards, deletes and fakes the crash cell', () => {
    expect(cellOf(byId.get('cell-never-called@2')!.notebook, 2)).toMatch(/^def _jb_never_called\(\):\n {4}n = len/);
    expect(
      cellOf(byId.get('cell-commented@2')!.notebook, 2)!
        .split('\n')
        .every((l) => l.startsWith('# ')),
    ).toBe(true);
    expect(listCodeCells(byId.get('cell-deleted@2')!.notebook)).toHaveLength(3);
    expect(cellOf(byId.get('output-faked@2')!.notebook, 2)).toBe('print("3\\n", end=\'\')');
  });

  it('declares the names a statement binds global when it moves into a decorated function', () => {
    const m = planMutants({ ...source, crashLine: 1 }).find((x) => x.family === 'swallow-decorator')!;
    expect(cellOf(m.notebook, 2)).toContain('def _jb_attempt():\n    global n\n    n = len(y_test)\n_jb_attempt()');
  });

  it('patches the library call in the cell that runs before the crash cell', () => {
    const m = byId.get('library-patched@1')!;
    expect(cellOf(m.notebook, 1)).toBe(
      [
        'y_test = [1, 2, 3]\ny_pred = [1, 2, 3]',
        'import importlib as _jb_importlib',
        '_jb_module = _jb_importlib.import_module("pandas.core.generic")',
        'setattr(getattr(_jb_module, "NDFrame"), "astype", lambda *a, **k: a[0] if a else None)',
      ].join('\n'),
    );
  });

  it('keeps the other cells and their execution counts, and removes no cell when the replay list is explicit', () => {
    const counted = planMutants({
      ...source,
      notebook: notebook([
        { source: 'import numpy as np', count: 1 },
        { source: 'y_test = y_pred = [1]', count: 3 },
        { source: crashCell, count: 2 },
      ]),
      order: 'execution-count',
      cells: [0, 2, 1],
    });
    expect(counted.some((m) => m.family === 'cell-deleted')).toBe(false);
    const patched = counted.find((m) => m.family === 'library-patched')!;
    expect(patched.id).toBe('library-patched@0');
    for (const m of counted) expect(listCodeCells(m.notebook).map((c) => c.executionCount)).toEqual([1, 3, 2]);
  });

  it('places statement mutants at the cell’s last statement when the line is unknown, and is pure', () => {
    const unknown = planMutants({ ...source, crashLine: undefined });
    expect(unknown.find((m) => m.family === 'statement-pass')!.id).toBe('statement-pass@2:6');
    expect(planMutants(source)).toEqual(mutants);
  });

  it('refuses a library call that is not a plain dotted name', () => {
    const bad = planMutants({ ...source, libraryCall: { module: 'x; import os', qualname: 'f' } });
    expect(bad.some((m) => m.family === 'library-patched')).toBe(false);
  });
});
