import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizeXlsxCell, readSheetRows, type SheetRow } from './read-sheet-rows.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'pool-sheet-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function collect(file: string, container: 'xlsx' | 'csv'): Promise<SheetRow[]> {
  const rows: SheetRow[] = [];
  for await (const r of readSheetRows(file, container)) rows.push(r);
  return rows;
}

describe('readSheetRows (csv)', () => {
  it('reads quoted multi-line fields and numbers rows as a spreadsheet does', async () => {
    const file = path.join(dir, 'a.csv');
    await writeFile(file, '\ufefffname,evalue,traceback\nnb1,"line 1\nline 2","[\'a\', ""b""]"\n\nnb2,,x\n');
    expect(await collect(file, 'csv')).toEqual([
      { row: 1, values: ['fname', 'evalue', 'traceback'] },
      { row: 2, values: ['nb1', 'line 1\nline 2', `['a', "b"]`] },
      { row: 3, values: ['nb2', null, 'x'] },
    ]);
  });

  it('sniffs tab and semicolon delimiters', async () => {
    const tsv = path.join(dir, 'a.tsv');
    await writeFile(tsv, 'a\tb\n1\t2\n');
    expect((await collect(tsv, 'csv'))[1]).toEqual({ row: 2, values: ['1', '2'] });
    const semi = path.join(dir, 'semi.csv');
    await writeFile(semi, 'a;b\n1;2\n');
    expect((await collect(semi, 'csv'))[1]).toEqual({ row: 2, values: ['1', '2'] });
  });

  it.each([
    ['an empty file', '', /E_INPUT_EMPTY|the file is empty/],
    ['a file of blank lines', '\n\n  \n', /has no content/],
    ['broken quoting', 'a,b\n"unclosed,2\n', /is not valid CSV/],
    ['a zip archive', 'PK\u0003\u0004rest', /is a zip archive/],
  ])('refuses %s', async (_name, content, message) => {
    const file = path.join(dir, `bad-${Math.random().toString(36).slice(2)}.csv`);
    await writeFile(file, content);
    await expect(collect(file, 'csv')).rejects.toThrow(message);
  });
});

describe('readSheetRows (xlsx)', () => {
  it('streams the first worksheet, normalising cell values', async () => {
    const file = path.join(dir, 'a.xlsx');
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('data');
    ws.addRow(['fname', 'nb_source', 'note']);
    ws.addRow(['nb1.ipynb', 1, { richText: [{ text: 'rich ' }, { text: 'text' }] }]);
    ws.addRow([]);
    ws.addRow(['nb2.ipynb', 2, { formula: '1+1', result: 2 }]);
    wb.addWorksheet('notes').addRow(['ignored']);
    await wb.xlsx.writeFile(file);
    expect(await collect(file, 'xlsx')).toEqual([
      { row: 1, values: ['fname', 'nb_source', 'note'] },
      { row: 2, values: ['nb1.ipynb', 1, 'rich text'] },
      { row: 4, values: ['nb2.ipynb', 2, 2] },
    ]);
  });

  it('refuses a text file named .xlsx, saying what to do', async () => {
    const file = path.join(dir, 'fake.xlsx');
    await writeFile(file, 'fname,ename\nnb,KeyError\n');
    await expect(collect(file, 'xlsx')).rejects.toThrow(/is not an Excel workbook/);
    await expect(collect(file, 'xlsx')).rejects.toMatchObject({ code: 'E_INPUT_FORMAT', hint: expect.stringMatching(/--format csv/) });
  });

  it('refuses a zip archive that is not a workbook', async () => {
    const file = path.join(dir, 'other.xlsx');
    // An empty zip: the end-of-central-directory record only.
    await writeFile(file, Buffer.concat([Buffer.from('PK\u0003\u0004'), Buffer.alloc(26), Buffer.from([0x50, 0x4b, 0x05, 0x06]), Buffer.alloc(18)]));
    await expect(collect(file, 'xlsx')).rejects.toMatchObject({ code: 'E_INPUT_FORMAT' });
  });

  it('refuses an empty file', async () => {
    const file = path.join(dir, 'empty.xlsx');
    await writeFile(file, '');
    await expect(collect(file, 'xlsx')).rejects.toMatchObject({ code: 'E_INPUT_EMPTY' });
  });
});

describe('normalizeXlsxCell', () => {
  it.each([
    [undefined, null],
    [null, null],
    ['', null],
    ['text', 'text'],
    [3, 3],
    [true, true],
    [new Date('2024-01-02T03:04:05Z'), '2024-01-02T03:04:05.000Z'],
    [{ richText: [{ text: 'a' }, { text: 'b' }] }, 'ab'],
    [{ text: 'link', hyperlink: 'https://x' }, 'link'],
    [{ formula: 'A1', result: 'r' }, 'r'],
    [{ formula: 'A1' }, null],
    [{ error: '#N/A' }, '#N/A'],
  ])('%j → %j', (input, expected) => {
    expect(normalizeXlsxCell(input)).toEqual(expected);
  });
});
