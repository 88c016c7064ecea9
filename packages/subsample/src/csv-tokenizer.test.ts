import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { createRng } from '@junobench/core';
import { CsvTokenizer, detachString } from './csv-tokenizer.js';

function tokenize(text: string, chunkSizes: number[] = [text.length || 1], delimiter = ','): string[][] {
  const t = new CsvTokenizer(delimiter, 'x.csv');
  const out: string[][] = [];
  let at = 0;
  let k = 0;
  while (at < text.length) {
    const size = Math.max(1, chunkSizes[k++ % chunkSizes.length]!);
    t.push(text.slice(at, at + size), out);
    at += size;
  }
  t.end(out);
  return out;
}

describe('CsvTokenizer', () => {
  it.each([
    [
      'plain',
      'a,b\n1,2\n',
      [
        ['a', 'b'],
        ['1', '2'],
      ],
    ],
    [
      'no final newline',
      'a,b\n1,2',
      [
        ['a', 'b'],
        ['1', '2'],
      ],
    ],
    [
      'CRLF',
      'a,b\r\n1,2\r\n',
      [
        ['a', 'b'],
        ['1', '2'],
      ],
    ],
    [
      'bare CR',
      'a,b\r1,2\r',
      [
        ['a', 'b'],
        ['1', '2'],
      ],
    ],
    [
      'BOM',
      '\ufeffa,b\n1,2\n',
      [
        ['a', 'b'],
        ['1', '2'],
      ],
    ],
    [
      'blank lines skipped',
      'a,b\n\n1,2\n\r\n3,4\n',
      [
        ['a', 'b'],
        ['1', '2'],
        ['3', '4'],
      ],
    ],
    [
      'quoted delimiter and newline',
      'a,b\n"x,y","p\nq"\n',
      [
        ['a', 'b'],
        ['x,y', 'p\nq'],
      ],
    ],
    ['escaped quotes', 'a\n"say ""hi"""\n', [['a'], ['say "hi"']]],
    ['quoted empty keeps the row', 'a\n""\n1\n', [['a'], [''], ['1']]],
    [
      'empty fields',
      'a,b,c\n,,\n',
      [
        ['a', 'b', 'c'],
        ['', '', ''],
      ],
    ],
    [
      'values keep their exact text',
      'x,y\n1.0, 2 \nNaN,NA\n',
      [
        ['x', 'y'],
        ['1.0', ' 2 '],
        ['NaN', 'NA'],
      ],
    ],
    ['text after a closing quote is kept (as pandas does)', 'a\n"ab"cd\n', [['a'], ['abcd']]],
    ['short rows are allowed', 'a,b,c\n1\n', [['a', 'b', 'c'], ['1']]],
  ])('%s', (_name, text, want) => {
    expect(tokenize(text)).toEqual(want);
    // Any chunking gives the same records.
    for (const sizes of [[1], [2, 3], [7]]) expect(tokenize(text, sizes)).toEqual(want);
  });

  it('uses another delimiter', () =>
    expect(tokenize('a\tb\n"x\ty"\t2\n', undefined, '\t')).toEqual([
      ['a', 'b'],
      ['x\ty', '2'],
    ]));

  it('names the line of a row with too many fields', () => {
    expect(() => tokenize('a,b\n1,2\n"multi\nline",2\n1,2,3\n')).toThrow(
      expect.objectContaining({ code: 'E_INPUT_ROW', location: { file: 'x.csv', line: 5 } }),
    );
  });

  it('names the line of a quote that never closes', () => {
    expect(() => tokenize('a,b\n1,2\n3,"open\n4,5\n')).toThrow(
      expect.objectContaining({ code: 'E_INPUT_ROW', location: { file: 'x.csv', line: 3 } }),
    );
  });

  it('agrees with csv-parse on random files and random chunking', () => {
    const rng = createRng('tokenizer');
    const alphabet = ['a', 'b', '1', '.', ' ', ',', '"', '\n', '\r\n', 'é', '€', '😀'];
    for (let doc = 0; doc < 300; doc++) {
      const cols = 2 + rng.int(4);
      const eol = ['\n', '\r\n'][rng.int(2)]!;
      const rows: string[][] = [];
      for (let r = 0; r < 1 + rng.int(20); r++) {
        rows.push(
          Array.from({ length: cols }, () =>
            Array.from({ length: rng.int(6) }, () => alphabet[rng.int(alphabet.length)]!).join(''),
          ),
        );
      }
      const text =
        rows
          .map((row) =>
            row
              .map((v) => (/[",\r\n]/.test(v) || (v === '' && rng.next() < 0.3) ? `"${v.replace(/"/g, '""')}"` : v))
              .join(','),
          )
          .join(eol) + (rng.next() < 0.5 ? eol : '');
      const want = parse(text, {
        bom: true,
        skip_empty_lines: true,
        relax_column_count: true,
        record_delimiter: eol,
      }) as string[][];
      const sizes = Array.from({ length: 5 }, () => 1 + rng.int(17));
      expect(tokenize(text, sizes)).toEqual(want);
    }
  });

  it('detaches long values from their chunk', () => {
    const s = 'x'.repeat(100).slice(10, 40);
    expect(detachString(s)).toBe(s);
    expect(detachString('short')).toBe('short');
  });
});

describe('formatCsvRecord', () => {
  it('quotes exactly as csv-stringify does, and round-trips through the tokenizer', async () => {
    const { stringify } = await import('csv-stringify/sync');
    const { formatCsvRecord } = await import('./csv-io.js');
    const rng = createRng('format');
    const alphabet = ['a', '1', '.', ' ', ',', '"', '\n', '\r', '\t', 'é', ''];
    for (let k = 0; k < 500; k++) {
      const cols = 1 + rng.int(4);
      const record = Array.from({ length: cols }, () =>
        Array.from({ length: rng.int(5) }, () => alphabet[rng.int(alphabet.length)]!).join(''),
      );
      for (const format of [
        { delimiter: ',', eol: '\n' as const, bom: false },
        { delimiter: '\t', eol: '\r\n' as const, bom: false },
      ]) {
        const want = stringify([record], {
          delimiter: format.delimiter,
          record_delimiter: format.eol,
          quoted_match: /[\r\n]/,
          quoted_empty: cols === 1,
        });
        const got = formatCsvRecord(record, format, cols === 1);
        expect(got).toBe(want);
        expect(tokenize(got, undefined, format.delimiter)).toEqual([record]);
      }
    }
  });
});
