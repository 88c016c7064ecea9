import { describe, expect, it } from 'vitest';
import { dateSpan, deriveTable, namesTheCrashLacks } from './derive-table.js';

const crash = { ename: 'KeyError', evalue: "'x'" };

describe('deriveTable', () => {
  it('gives a table the code names no column of (its index aside) a few numeric columns', () => {
    const t = deriveTable({ columns: {}, minRows: 0, columnCount: 0 }, { index_col: 'Id' }, crash);
    expect(t.columns.map((c) => c.name)).toEqual(['Id', 'col_1', 'col_2', 'col_3']);
  });

  it('puts the labels the code looks up in the index, and the value a conversion crash quotes in a free column', () => {
    const t = deriveTable(
      {
        columns: {
          Key: { hints: [], values: [], cells: [1] },
          Amount: { hints: ['number'], values: [], cells: [2] },
          Kind: { hints: ['category'], values: [], cells: [3] },
        },
        order: ['Key', 'Amount', 'Kind'],
        indexValues: ['row_a'],
        minRows: 0,
        columnCount: 0,
      },
      { index_col: 'Key' },
      { ename: 'ValueError', evalue: "could not convert string to float: 'Semiurban'", cell: 3 },
    );
    const cats = (n: string) => t.columns.find((c) => c.name === n)?.categories?.map(([v]) => v);
    expect(cats('Key')).toContain('row_a');
    expect(cats('Kind')).toContain('Semiurban');
    expect(cats('extra_text')).toContain('Semiurban');
    expect(t.columns.find((c) => c.name === 'Amount')!.kind).toBe('float');
  });

  it.each([
    [{ ename: 'KeyError', evalue: "'price'" }, ['price']],
    [{ ename: 'KeyError', evalue: "\"['a', 'b'] not in index\"" }, ['a', 'b']],
    [{ ename: 'AttributeError', evalue: "'DataFrame' object has no attribute 'Embarked'" }, ['Embarked']],
    [{ ename: 'ValueError', evalue: 'bad' }, []],
  ])('namesTheCrashLacks %j', (c, names) => {
    expect(namesTheCrashLacks(c)).toEqual(names);
  });
});

describe('deriveTable: what the read options and the code say of dates, levels and gaps', () => {
  it('names= with positional index_col and parse_dates: the first named column is a date index, in order, spanning the dates the code names', () => {
    const t = deriveTable(
      { columns: {}, minRows: 0, columnCount: 0 },
      { names: ['Month', 'Passengers'], index_col: 0, parse_dates: [0], header: 0 },
      crash,
      { dates: ['1949-01-05', '1951'] },
    );
    expect(t.columns.map((c) => [c.name, c.kind, c.ordered ?? false, c.min, c.max])).toEqual([
      ['Month', 'date', true, '1949-01-05', '1951-12-31'],
      ['Passengers', 'float', false, '1.0', '100.0'],
    ]);
  });

  it("a date index whose every date the code names is a month's first day is monthly; any other day is not", () => {
    const opts = () => ({ names: ['Month', 'Passengers'], index_col: 0, parse_dates: [0], header: 0 });
    const t = deriveTable({ columns: {}, minRows: 0, columnCount: 0 }, opts(), crash, {
      dates: ['1949-01-01', '1957-12-01', '1958-01'],
    });
    expect(t.columns[0]).toMatchObject({ name: 'Month', every: { months: 1 }, min: '1949-01-01' });
    expect(t.derived.join('\n')).toMatch(/one a month/);
    for (const dates of [['1949-01-01', '1957-12-15'], ['1949-01-01'], ['1949-01-01', '1951']])
      expect(
        deriveTable({ columns: {}, minRows: 0, columnCount: 0 }, opts(), crash, { dates }).columns[0]!.every,
      ).toBeUndefined();
  });

  it('parse_dates=True parses the index column', () => {
    const t = deriveTable(
      { columns: {}, minRows: 0, columnCount: 0 },
      { index_col: 'Month', parse_dates: true },
      crash,
    );
    expect(t.columns.find((c) => c.name === 'Month')).toMatchObject({ kind: 'date', ordered: true });
  });

  it('a split violin hue has two levels; a NaN crash gives the columns its cell names missing values', () => {
    const t = deriveTable(
      {
        columns: {
          sex: { hints: ['category', 'two-levels'], values: [], cells: [1] },
          Age: { hints: ['number'], values: [], cells: [2] },
          Fare: { hints: ['number'], values: [], cells: [2] },
        },
        order: ['sex', 'Age', 'Fare'],
        minRows: 0,
        columnCount: 0,
      },
      {},
      { ename: 'ValueError', evalue: 'Input X contains NaN.', cell: 3 },
      { crashSource: "km.fit_predict(scaled[['Age']])" },
    );
    expect(t.columns.find((c) => c.name === 'sex')!.categories!.map(([v]) => v)).toEqual(['1', '2']);
    expect(t.columns.map((c) => [c.name, c.missing > 0])).toEqual([
      ['sex', false],
      ['Age', true],
      ['Fare', false],
    ]);
  });

  it('a value a conversion crash quotes goes into the column the crashing cell converts, and nothing else fails first', () => {
    const t = deriveTable(
      {
        columns: {
          TotalCharges: {
            hints: ['category', 'number'],
            values: [],
            cells: [2, 5],
            hintCells: { category: 2, number: 5 },
          },
        },
        order: ['TotalCharges'],
        minRows: 0,
        columnCount: 0,
      },
      {},
      { ename: 'ValueError', evalue: "could not convert string to float: ' '", cell: 5 },
    );
    expect(t.columns.find((c) => c.name === 'TotalCharges')!.categories!.map(([v]) => v)).toEqual([
      ' ',
      '1.5',
      '2.5',
      '3.5',
    ]);
    expect(t.columns.find((c) => c.name === 'extra_text')!.categories!.map(([v]) => v)).toEqual([' ', '1.5', '2.5']);
  });

  it.each<[string[], [string, string] | undefined]>([
    [
      ['1949-01-05', '1951'],
      ['1949-01-05', '1951-12-31'],
    ],
    [['2020-3'], ['2020-03-01', '2020-03-28']],
    [[], undefined],
  ])('dateSpan(%j) = %j', (dates, span) => {
    expect(dateSpan(dates)).toEqual(span);
  });
});

describe('deriveTable: a column the crash names that no code does', () => {
  const usage = { columns: { a: { hints: [], values: [], cells: [1] } }, order: ['a'], minRows: 0, columnCount: 0 };
  const lacks = { ename: 'AttributeError', evalue: "'Series' object has no attribute 'astyle'", cell: 5 };
  it("is the data's, unless the saved outputs list every column or the crashing code calls it as a method", () => {
    const names = (context: Parameters<typeof deriveTable>[3]) =>
      deriveTable(usage, undefined, lacks, { extraColumns: ['astyle'], ...context }).columns.map((c) => c.name);
    expect(names({})).toContain('astyle');
    expect(names({ crashSource: "df['a'].astyle(int)" })).not.toContain('astyle');
    const saved = { columns: [{ name: 'a', samples: [] }], complete: true, from: ['info()'] };
    expect(names({ saved })).not.toContain('astyle');
  });
});

describe('deriveTable: names and absences', () => {
  it('names= without header=: the file has no header line; a column earlier cells used is in the file even if the crash lacks it', () => {
    const t = deriveTable(
      {
        columns: {
          diagnosis: { hints: ['category'], values: ['M'], cells: [8, 11] },
          ID: { hints: [], values: [], cells: [7] },
        },
        order: ['ID', 'diagnosis'],
        minRows: 0,
        columnCount: 0,
      },
      { names: '?', namesFrom: 'data/field_names.txt' },
      { ename: 'KeyError', evalue: "'diagnosis'", cell: 11 },
    );
    expect(t.header).toBe(false);
    expect(t.columns.map((c) => c.name)).toEqual(['ID', 'diagnosis']);
    expect(t.derived).toContain('no header line: the names come from data/field_names.txt');
  });
});
