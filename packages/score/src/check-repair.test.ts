import { describe, expect, it } from 'vitest';
import type { RunResult } from '@junobench/core';
import { checkRepair, fillNotebookDefaults, judgeRepair } from './check-repair.js';
import { cellContainment, cellSimilarity, matchCells, normalizeCell } from '@junobench/notebook';
import { makeNotebook, type TestCell } from '../test-helpers/score.js';

// The crashing notebook: code cell 2 raises (KeyError on 'price').
const crashing = makeNotebook([
  { markdown: '# Prices' },
  "import pandas as pd\ndf = pd.DataFrame({'cost': [1, 2]})",
  'df.head()',
  "total = df['price'].sum()  # crashes: the column is 'cost'",
  'print(total)',
]);
const fileOrder = { order: 'file' as const };
const CRASH = 2;

const edit = (cells: TestCell[]) => makeNotebook(cells);
const base = ["import pandas as pd\ndf = pd.DataFrame({'cost': [1, 2]})", 'df.head()'];

describe('checkRepair: what is still there', () => {
  it.each([
    ['a real fix (the crash cell edited)', [...base, "total = df['cost'].sum()", 'print(total)'], undefined, []],
    [
      'a fix that adds a cell and re-indents nothing',
      [...base, "df['price'] = df['cost']", "total = df['price'].sum()", 'print(total)'],
      undefined,
      [],
    ],
    [
      'a fix that adds several lines to the crash cell',
      [
        ...base,
        "import numpy as np\ncols = list(df.columns)\nkey = 'price' if 'price' in cols else 'cost'\ntotal = df[key].sum()\nprint(np.round(total, 2))",
        'print(total)',
      ],
      undefined,
      [],
    ],
    [
      'a fix that adds comments',
      [...base, "# use the right column\ntotal = df['cost'].sum()  # was 'price'", 'print(total)'],
      undefined,
      [],
    ],
    // print(total) edited to print(1) is still that cell (similar enough); the crash cell is gone.
    [
      'the crash cell deleted, the last cell edited',
      [...base, 'print(1)'],
      'cells-missing',
      [{ cell: 2, how: 'deleted' }],
    ],
    [
      'the last two cells replaced by other code',
      [...base, 'x = 42'],
      'cells-missing',
      [
        { cell: 2, how: 'rewritten' },
        { cell: 3, how: 'rewritten' },
      ],
    ],
    [
      'the crash cell deleted, the rest kept',
      [...base, 'print(total)'],
      'cells-missing',
      [{ cell: 2, how: 'deleted' }],
    ],
    ['the crash cell emptied', [...base, '', 'print(total)'], 'cells-missing', [{ cell: 2, how: 'emptied' }]],
    [
      'the crash cell replaced by pass',
      [...base, 'pass', 'print(total)'],
      'cells-missing',
      [{ cell: 2, how: 'emptied' }],
    ],
    [
      'the crash cell commented out',
      [...base, "# total = df['price'].sum()", 'print(total)'],
      'cells-missing',
      [{ cell: 2, how: 'commented-out' }],
    ],
    [
      'the crash cell turned into a string',
      [...base, `"""total = df['price'].sum()"""`, 'print(total)'],
      'cells-missing',
      [{ cell: 2, how: 'rewritten' }],
    ],
    [
      'the crash cell made a %%script cell',
      [...base, "%%script false --no-raise-error\ntotal = df['price'].sum()", 'print(total)'],
      'cells-missing',
      [{ cell: 2, how: 'rewritten' }],
    ],
    [
      'another cell deleted',
      [base[0]!, "total = df['cost'].sum()", 'print(total)'],
      'cells-missing',
      [{ cell: 1, how: 'deleted' }],
    ],
  ] as const)('%s → %s', (_name, cells, outcome, missing) => {
    const check = checkRepair(crashing, edit([...cells]), fileOrder);
    expect(check.failure?.outcome).toBe(outcome);
    expect(check.missing).toEqual(missing);
  });

  it('matches moved cells (order is not required)', () => {
    const check = checkRepair(
      crashing,
      edit([base[1]!, base[0]!, "total = df['cost'].sum()", 'print(total)']),
      fileOrder,
    );
    expect(check.failure).toBeUndefined();
    expect(check.counterpart).toEqual([1, 0, 2, 3]);
  });
});

describe('checkRepair: hiding the crash is not repairing it', () => {
  const wrap = (body: string) => [...base, body, 'print(total)'];
  it.each([
    [
      'try/except: pass around the crash cell',
      wrap("try:\n    total = df['price'].sum()\nexcept:\n    pass"),
      'suppressed',
    ],
    ['except KeyError', wrap("try:\n    total = df['price'].sum()\nexcept KeyError:\n    total = 0"), 'suppressed'],
    [
      'contextlib.suppress',
      wrap("import contextlib\nwith contextlib.suppress(Exception):\n    total = df['price'].sum()"),
      'suppressed',
    ],
    [
      'a handler in a new cell',
      [
        ...base,
        "def f():\n    try:\n        return df['price'].sum()\n    except Exception:\n        return 0",
        "total = df['price'].sum() if False else f()",
        'print(total)',
      ],
      'suppressed',
    ],
    [
      'an IPython exception hook',
      [
        ...base,
        'get_ipython().set_custom_exc((Exception,), lambda *a, **k: None)',
        "total = df['price'].sum()",
        'print(total)',
      ],
      'suppressed',
    ],
    ['if False: around the crash', wrap("if False:\n    total = df['price'].sum()"), 'disabled'],
    ['while 0: around the crash', wrap("while 0:\n    total = df['price'].sum()"), 'disabled'],
  ] as const)('%s → %s', (_name, cells, outcome) => {
    const check = checkRepair(crashing, edit([...cells]), fileOrder);
    expect(check.failure?.outcome).toBe(outcome);
  });

  it('keeps handlers the crashing notebook already had', () => {
    const withTry = makeNotebook(['try:\n    import torch\nexcept ImportError:\n    torch = None', "x = {}['k']"]);
    const check = checkRepair(
      withTry,
      makeNotebook(['try:\n    import torch\nexcept ImportError:\n    torch = None', "x = {'k': 1}['k']"]),
      fileOrder,
    );
    expect(check.failure).toBeUndefined();
  });
});

describe('checkRepair: the notebook and its plan', () => {
  it.each([
    ['not a notebook', { cells: [] }],
    ['nbformat 3', { nbformat: 3, nbformat_minor: 0, metadata: {}, worksheets: [] }],
    ['a cell without source', { nbformat: 4, nbformat_minor: 4, metadata: {}, cells: [{ cell_type: 'code' }] }],
  ])('%s → invalid', (_name, value) => {
    expect(checkRepair(crashing, value, fileOrder).failure?.outcome).toBe('invalid');
  });

  it('a notebook answer without the cell fields nbformat gives defaults is completed, not refused', () => {
    // What a language model writes when asked for a notebook: cells with cell_type and source only. It was `invalid`.
    for (const minor of [4, 5]) {
      const minimal = {
        nbformat: 4,
        nbformat_minor: minor,
        metadata: {},
        cells: [
          { cell_type: 'markdown', source: '# t' },
          ...[...base, "total = df['cost'].sum()", 'print(total)'].map((source) => ({ cell_type: 'code', source })),
        ],
      };
      const check = checkRepair(crashing, minimal, fileOrder);
      expect(check.failure).toBeUndefined();
      expect(check.plan).toEqual([0, 1, 2, 3]);
      expect(minimal.cells[1]).toEqual({ cell_type: 'code', source: base[0] }); // the answer itself is left as it was
    }
    expect(
      fillNotebookDefaults({
        nbformat: 4,
        nbformat_minor: 5,
        metadata: {},
        cells: [
          { cell_type: 'code', source: 'x', id: 'cell-0' },
          { cell_type: 'raw', source: 'y' },
        ],
      }),
    ).toEqual({
      nbformat: 4,
      nbformat_minor: 5,
      metadata: {},
      cells: [
        { cell_type: 'code', source: 'x', id: 'cell-0', metadata: {}, outputs: [], execution_count: null },
        { cell_type: 'raw', source: 'y', id: 'cell-1', metadata: {} },
      ],
    });
  });

  it('a notebook answer wrong in a field that has no default is invalid with what a notebook answer needs, and the simpler form', () => {
    const wrong = {
      nbformat: 4,
      nbformat_minor: 4,
      metadata: {},
      cells: [{ cell_type: 'code', source: 'x = 1', outputs: 'none' }],
    };
    const failure = checkRepair(crashing, wrong, fileOrder).failure;
    expect(failure?.outcome).toBe('invalid');
    expect(failure?.reason).toMatch(
      /^not a valid nbformat 4\.4 notebook: .* — a "notebook" answer must be nbformat 4 JSON \(cells may leave out metadata, outputs, execution_count and id, which get nbformat's defaults; nothing else\); or answer \{"cells": \[\.\.\.\]\} with the code cells only$/,
    );
  });

  it('plans execution-count order from the repair’s own counts', () => {
    const nb = makeNotebook([
      { source: base[0]!, count: 1 },
      { source: base[1]!, count: 3 },
      { source: "total = df['cost'].sum()", count: 2 },
      { source: 'print(total)', count: null },
    ]);
    expect(checkRepair(crashing, nb, { order: 'execution-count' }).plan).toEqual([0, 2, 1]);
  });

  it('a repair far larger than the crashing notebook is invalid before any cell is compared (comparing costs the lengths multiplied)', () => {
    const filler = `\n${'a=1;'.repeat(200_000)}`;
    const check = checkRepair(
      crashing,
      edit([...base, `total = df['cost'].sum()${filler}`, 'print(total)']),
      fileOrder,
    );
    expect(check.failure).toEqual({
      outcome: 'invalid',
      reason: 'code cell 2 of the repair has 800025 characters, more than the 200000 a repaired cell may have',
    });
    const many = checkRepair(
      crashing,
      edit([...base, ...Array.from({ length: 12 }, () => `x = 1${'\n'.repeat(190_000)}`)]),
      fileOrder,
    );
    expect(many.failure?.reason).toMatch(
      /^the repair's code cells have \d+ characters, more than the 2000000 a repair may have$/,
    );
  });

  it('an explicit replay list that no longer fits the repair is invalid', () => {
    const check = checkRepair(crashing, makeNotebook(base), { order: 'file', cells: [0, 1, 2, 3] });
    expect(check.failure?.outcome).toBe('invalid');
    expect(check.failure?.reason).toMatch(/keep the number of code cells/);
  });
});

const run = (status: RunResult['status'], cells: RunResult['cells'], reason?: string): RunResult => ({
  id: 'r',
  status,
  cells,
  durationMs: 1,
  ...(reason ? { reason } : {}),
});
const ok = (...idx: number[]) => idx.map((index) => ({ index, status: 'ok' as const, durationMs: 1 }));

describe('judgeRepair', () => {
  const fixed = checkRepair(crashing, edit([...base, "total = df['cost'].sum()", 'print(total)']), fileOrder);

  it.each([
    ['every cell ran', run('completed', ok(0, 1, 2, 3)), true, 'resolved'],
    [
      'a cell raised',
      run('error', [
        ...ok(0, 1),
        { index: 2, status: 'error', ename: 'KeyError', evalue: "'cost'", durationMs: 1 },
        { index: 3, status: 'not-run', durationMs: 0 },
      ]),
      false,
      'crashed',
    ],
    [
      'it looped until the timeout',
      run('timeout', [...ok(0, 1), { index: 2, status: 'timeout', durationMs: 3000 }], 'cell 2 exceeded 3 s'),
      false,
      'timeout',
    ],
    [
      'its kernel died',
      run('kernel-died', [...ok(0, 1), { index: 2, status: 'kernel-died', durationMs: 5 }], 'the kernel died'),
      false,
      'kernel-died',
    ],
    ['the runner failed', run('failed', [], 'kernel would not start'), false, 'failed'],
    ['the crash cell was never run', run('completed', ok(0, 1, 3)), false, 'not-executed'],
  ] as const)('%s → %s', (_name, result, resolved, outcome) => {
    const v = judgeRepair(fixed, CRASH, result);
    expect(v.resolved).toBe(resolved);
    expect(v.outcome).toBe(outcome);
  });

  it('records the crash cell, the error and what did not run', () => {
    const v = judgeRepair(
      fixed,
      CRASH,
      run('error', [...ok(0, 1), { index: 2, status: 'error', ename: 'KeyError', evalue: "'cost'", durationMs: 1 }]),
    );
    expect(v.crashCell).toEqual({ counterpart: 2, ran: false });
    expect(v.error).toEqual({ cell: 2, ename: 'KeyError', evalue: "'cost'" });
    expect(v.notExecuted).toEqual([2, 3]);
    expect(v.reason).toBe("KeyError: 'cost' in code cell 2 of the repair (code cell 2 of the crashing notebook)");
  });

  it('names a failing cell in both numberings when the repair moved or added cells', () => {
    // The repair adds a cell first: its cell 3 is the crashing notebook's cell 2.
    const added = checkRepair(
      crashing,
      edit(['import os', ...base, "total = df['cost'].sum()", 'print(total)']),
      fileOrder,
    );
    const v = judgeRepair(
      added,
      CRASH,
      run('error', [...ok(0, 1, 2), { index: 3, status: 'error', ename: 'KeyError', evalue: "'cost'", durationMs: 1 }]),
    );
    expect(v.reason).toBe("KeyError: 'cost' in code cell 3 of the repair (code cell 2 of the crashing notebook)");
    expect(v.notExecuted).toEqual([2, 3]);
    const first = judgeRepair(
      added,
      CRASH,
      run('error', [{ index: 0, status: 'error', ename: 'OSError', evalue: 'x', durationMs: 1 }]),
    );
    expect(first.reason).toBe('OSError: x in code cell 0 of the repair (a cell the repair added)');
  });

  it('decides static failures without a run', () => {
    const deleted = checkRepair(crashing, edit([...base, 'print(total)']), fileOrder);
    expect(judgeRepair(deleted, CRASH)).toMatchObject({
      resolved: false,
      outcome: 'cells-missing',
      crashCell: { counterpart: null, ran: false },
    });
  });
});

describe('cell similarity', () => {
  it('ignores comments, blank lines and indentation, not code', () => {
    const a = normalizeCell('x = f(1)\n\n# note\ny = x + 2');
    expect(cellSimilarity(a, normalizeCell('x = f(1)  # call\ny = x + 2'))).toBe(1);
    expect(cellSimilarity(a, normalizeCell('x = f(2)\ny = x + 2'))).toBeCloseTo(10 / 11, 12);
    expect(cellSimilarity(a, normalizeCell('print("hello")'))).toBeLessThan(0.5);
    expect(cellSimilarity([], [])).toBe(1);
  });

  it('measures how much of the original cell a cell keeps, whatever it adds', () => {
    const a = normalizeCell("total = df['price'].sum()");
    expect(
      cellContainment(
        a,
        normalizeCell("import numpy as np\ntotal = df['cost'].sum()\nprint(np.sqrt(total), total * 2, total - 1)"),
      ),
    ).toBeCloseTo(9 / 10, 12);
    expect(cellContainment(a, normalizeCell(`"""total = df['price'].sum()"""`))).toBe(0);
    expect(cellContainment(a, normalizeCell('x = 42'))).toBeCloseTo(1 / 10, 12);
  });

  it('matches identical cells one to one, in order', () => {
    const t = (s: string) => normalizeCell(s);
    expect(matchCells([t('a()'), t('a()'), t('b()')], [t('b()'), t('a()')]).counterpart).toEqual([1, null, 0]);
  });
});
