import { describe, expect, it } from 'vitest';
import { quoteShort, readLinesCapped, type CappedLine } from './lines.js';

async function* chunks(...parts: Array<string | Buffer>): AsyncGenerator<string | Buffer> {
  for (const p of parts) yield p;
}

async function all(input: AsyncIterable<string | Buffer>, max?: number): Promise<CappedLine[]> {
  const out: CappedLine[] = [];
  for await (const l of readLinesCapped(input, max)) out.push(l);
  return out;
}

describe('readLinesCapped', () => {
  it('splits LF and CRLF lines across chunks; a last line without a newline counts, a trailing newline adds none', async () => {
    expect(await all(chunks('a\r\nb', 'c\n\n', 'd'))).toEqual([
      { line: 1, text: 'a' },
      { line: 2, text: 'bc' },
      { line: 3, text: '' },
      { line: 4, text: 'd' },
    ]);
    expect(await all(chunks('x\n'))).toEqual([{ line: 1, text: 'x' }]);
    expect(await all(chunks(''))).toEqual([]);
  });

  it('reports a line longer than the cap by its length and first characters, and reads the lines after it', async () => {
    const lines = await all(chunks('ok\n', 'y'.repeat(6), 'y'.repeat(6), 'y\nnext\n'), 10);
    expect(lines).toEqual([
      { line: 1, text: 'ok' },
      { line: 2, tooLong: { chars: 13, head: 'y'.repeat(12) } },
      { line: 3, text: 'next' },
    ]);
  });

  it('holds a line of exactly the cap', async () => {
    expect(await all(chunks('1234567890\n'), 10)).toEqual([{ line: 1, text: '1234567890' }]);
  });

  it('a too-long last line without a newline is still reported', async () => {
    expect(await all(chunks('z'.repeat(30)), 10)).toEqual([{ line: 1, tooLong: { chars: 30, head: 'z'.repeat(30) } }]);
  });

  it('decodes a character split between two byte chunks whole', async () => {
    const bytes = Buffer.from('café\n', 'utf8');
    const cut = bytes.indexOf(0xc3) + 1;
    expect(await all(chunks(bytes.subarray(0, cut), bytes.subarray(cut)))).toEqual([{ line: 1, text: 'café' }]);
  });
});

describe('quoteShort', () => {
  it('quotes a short value whole and cuts a long one, saying how long it was', () => {
    expect(quoteShort('abc')).toBe('"abc"');
    expect(quoteShort('a'.repeat(500), 10)).toBe(`"${'a'.repeat(10)}…" (500 characters)`);
    expect(quoteShort('new\nline')).toBe('"new\\nline"');
  });
});
