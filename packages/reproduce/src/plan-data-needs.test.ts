import { describe, expect, it } from 'vitest';
import { cellFacts } from '../test-helpers/facts.js';
import type { NotebookFacts } from './analyze-cells.js';
import { pathsTheCrashLacks, planDataNeeds } from './plan-data-needs.js';
import { finishDraftInputs, type DraftInputsPlan } from './plan-draft-inputs.js';

const NO_SHELL = { drop: [], edits: [], downloads: [], kaggle: [], extracts: [] };

describe('pathsTheCrashLacks: the files a saved crash says are not there', () => {
  it.each<[string, string, string[]]>([
    [
      'FileNotFoundError',
      "[Errno 2] No such file or directory: '/kaggle/input/house/trian.csv'",
      ['/kaggle/input/house/trian.csv'],
    ],
    ['FileNotFoundError', "File b'../input/train.csv' does not exist", ['../input/train.csv']],
    ['OSError', "[Errno 2] No such file or directory: 'C:\\\\Users\\\\bob\\\\x.csv'", ['C:\\Users\\bob\\x.csv']],
    ['KeyError', "'No such file or directory: x'", []],
  ])('%s: %s', (ename, evalue, paths) => {
    expect(pathsTheCrashLacks({ ename, evalue })).toEqual(paths);
  });
});

describe('a crash that is the missing input file itself', () => {
  const facts: NotebookFacts = {
    checker: 'pyflakes',
    cells: [
      cellFacts(0, {
        reads: [{ id: '0:2:5', path: 'trian.csv', call: 'pd.read_csv', kind: 'csv', line: 2 }],
        literals: ['trian.csv'],
      }),
    ],
    tables: {},
  };
  const crash = { ename: 'FileNotFoundError', evalue: "[Errno 2] No such file or directory: 'trian.csv'" };

  it('is neither derived nor looked for by its name: it stays missing', () => {
    const needs = planDataNeeds(facts, 0, ['data/other/trian.csv'], NO_SHELL, crash);
    expect(needs).toEqual([
      expect.objectContaining({ read: 'trian.csv', file: 'data/trian.csv', present: false, absentInCrash: true }),
    ]);
    expect(needs[0]!.derive).toBeUndefined();
  });

  it('goes into data/ like any input, and the expected message names the path the replay opens, exactly', () => {
    const needs = planDataNeeds(facts, 0, [], NO_SHELL, crash);
    const plan: DraftInputsPlan = {
      facts,
      packages: { drop: [], missing: [], edits: [] },
      shell: NO_SHELL,
      needs,
      notebook: {
        nbformat: 4,
        nbformat_minor: 5,
        metadata: {},
        cells: [
          {
            cell_type: 'code',
            source: "import pandas as pd\ndf = pd.read_csv('trian.csv')",
            metadata: {},
            outputs: [],
            execution_count: null,
          },
        ],
      },
      crashCell: 0,
      edits: [],
    };
    const done = finishDraftInputs(
      plan,
      needs.map((need) => ({ need, status: 'missing' as const, reason: need.underivable! })),
      { ...crash, match: 'exact', cell: 0 },
    );
    expect(done.expected).toEqual({
      ename: 'FileNotFoundError',
      evalue: "[Errno 2] No such file or directory: 'data/trian.csv'",
      match: 'exact',
      cell: 0,
    });
    expect(done.synthetic).toBeUndefined();
  });

  it('a read of another file in the crashing cell is still an input', () => {
    const other = { ename: 'FileNotFoundError', evalue: "[Errno 2] No such file or directory: 'labels.csv'" };
    const needs = planDataNeeds(facts, 0, [], NO_SHELL, other);
    expect(needs.map((n) => [n.file, n.absentInCrash ?? false, n.derive?.type])).toEqual([
      ['data/trian.csv', false, 'table'],
    ]);
  });
});

describe('a header kept in its own text file', () => {
  it('the text file lists the derived table columns, one a line', () => {
    const facts: NotebookFacts = {
      checker: 'pyflakes',
      cells: [
        cellFacts(0, { reads: [{ id: '0:1:5', path: 'data/names.txt', call: 'open', kind: 'file', line: 1 }] }),
        cellFacts(1, {
          reads: [
            {
              id: '1:1:5',
              path: 'data/x.data',
              call: 'pd.read_csv',
              kind: 'csv',
              line: 1,
              options: { names: '?', namesFrom: 'data/names.txt' },
            },
          ],
        }),
      ],
      tables: {
        '1:1:5': { columns: { a: { hints: [], values: [], cells: [1] } }, order: ['a'], minRows: 0, columnCount: 0 },
      },
    };
    const needs = planDataNeeds(facts, 1, [], NO_SHELL, { ename: 'KeyError', evalue: "'b'" });
    expect(needs.find((n) => n.file === 'data/names.txt')!.derive).toEqual({
      type: 'text',
      lines: 1,
      words: ['a'],
    });
    expect(needs.find((n) => n.file === 'data/x.data')!.derive).toMatchObject({
      type: 'table',
      table: { header: false },
    });
  });
});

describe('one file read twice, the second time as a time series', () => {
  it('derives it as the read that took more: the index and the labels the code looks up in it', () => {
    const frame = (cell: number) => [
      {
        output_type: 'execute_result' as const,
        execution_count: cell,
        metadata: {},
        data: {
          'text/html': `<table class="dataframe"><thead><tr><th></th><th>Date</th><th>Close</th></tr></thead><tbody><tr><th>0</th><td>2023-04-03</td><td>1.5</td></tr><tr><th>1</th><td>2023-04-04</td><td>2.5</td></tr></tbody></table>`,
        },
      },
    ];
    const read = (cell: number, options?: Record<string, unknown>) =>
      cellFacts(cell, {
        reads: [
          {
            id: `${cell}:1:5`,
            path: 'AAPL.csv',
            call: 'pd.read_csv',
            kind: 'csv',
            line: 1,
            ...(options ? { options } : {}),
          },
        ],
        literals: ['AAPL.csv'],
      });
    const facts: NotebookFacts = {
      checker: 'pyflakes',
      cells: [read(0), read(1, { index_col: 'Date', parse_dates: ['Date'] }), cellFacts(2, {})],
      tables: {
        '0:1:5': {
          columns: {},
          minRows: 0,
          columnCount: 0,
          displays: [{ cell: 0, kind: 'frame', output: 'result', nth: 0 }],
        },
        '1:1:5': {
          columns: { Close: { hints: ['number'], values: [], cells: [2] } },
          order: ['Close'],
          indexValues: ['2024-03-28'],
          minRows: 0,
          columnCount: 0,
        },
      },
    };
    const needs = planDataNeeds(facts, 2, [], NO_SHELL, { ename: 'ValueError', evalue: 'x' }, [], (c) =>
      c === 0 ? frame(0) : undefined,
    );
    const t = needs[0]!.derive?.type === 'table' ? needs[0]!.derive.table : undefined;
    expect(t?.index).toBe('Date');
    expect(t?.columns.map((c) => c.name).sort()).toEqual(['Close', 'Date']);
    expect(t?.columns.find((c) => c.name === 'Date')!.categories?.map(([v]) => v)).toContain('2024-03-28');
  });
});
