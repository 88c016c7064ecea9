import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { describe, expect, it } from 'vitest';
import { neutralizeCsvFormula } from './csv-cell.js';

describe('neutralizeCsvFormula (OWASP CSV injection)', () => {
  it.each([
    ['=HYPERLINK("http://evil.example","click")', `'=HYPERLINK("http://evil.example","click")`],
    ['+1+cmd|/C calc!A0', `'+1+cmd|/C calc!A0`],
    ['-2+3', `'-2+3`],
    ['@SUM(A1:A9)', `'@SUM(A1:A9)`],
    ['\t=1', `'\t=1`],
    ['\r=1', `'\r=1`],
    ["KeyError: 'price'", "KeyError: 'price'"],
    ['a=b', 'a=b'],
    ['', ''],
  ])('%j → %j', (cell, want) => expect(neutralizeCsvFormula(cell)).toBe(want));

  it('survives quoting: read back, the cell starts with the quote', () => {
    const csv = stringify([[neutralizeCsvFormula('=1+1, "x"\nnext')]]);
    expect(parse(csv)).toEqual([[`'=1+1, "x"\nnext`]]);
  });
});
