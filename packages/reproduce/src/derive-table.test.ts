import { describe, expect, it } from 'vitest';
import { deriveTable, namesTheCrashLacks } from './derive-table.js';

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
