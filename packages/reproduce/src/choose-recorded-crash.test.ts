import { describe, expect, it } from 'vitest';
import type { MinedCrash, Notebook } from '@junobench/notebook';
import { locateCrashCell, matchRecordedCrash } from './choose-recorded-crash.js';

const crash = (codeCell: number, ename: string, evalue: string): MinedCrash => ({
  codeCell,
  executionCount: codeCell + 1,
  ename,
  evalue,
  traceback: [],
});

describe('matchRecordedCrash: the saved error the record names, not the first one', () => {
  const crashes = [
    crash(1, 'NameError', "name 'x' is not defined"),
    crash(3, 'KeyError', "'price'"),
    crash(5, 'KeyError', "'area'"),
  ];
  it.each([
    [{ ename: 'KeyError', evalue: "'area'" }, 2],
    [{ ename: 'pandas.errors.KeyError', evalue: "'price'" }, 1],
    [{ ename: 'KeyError', evalue: "'are" }, 2],
    [{ ename: 'ValueError', evalue: 'x' }, null],
  ])('%j → %s', (rec, want) => {
    expect(matchRecordedCrash(crashes, { ...rec, traceback: [] })).toBe(want);
  });
});

describe('locateCrashCell: a notebook without outputs, the cell the traceback shows', () => {
  const nb: Notebook = {
    nbformat: 4,
    nbformat_minor: 5,
    metadata: {},
    cells: ['import pandas as pd', "df = pd.read_csv('a.csv')", "df.head()\ndf['price'].mean()", "df['price']"].map(
      (source, i) => ({
        cell_type: 'code' as const,
        id: `c${i}`,
        metadata: {},
        execution_count: null,
        source,
        outputs: [],
      }),
    ),
  };
  it('matches the arrow line and the frame around it', () => {
    const tb = [
      '\u001b[0;31mKeyError\u001b[0m   Traceback (most recent call last)',
      'Cell In[7], line 2\n      1 df.head()\n----> 2 df[\u001b[38;5;124m"price"\u001b[39m].mean()'.replace(
        '"price"',
        "'price'",
      ),
      "KeyError: 'price'",
    ];
    expect(locateCrashCell(nb, tb)).toBe(2);
  });
  it('gives null when no cell holds the line', () => {
    expect(locateCrashCell(nb, ['<ipython-input-3-abc> in <module>', '----> 1 model.fit(X)'])).toBeNull();
  });
});
