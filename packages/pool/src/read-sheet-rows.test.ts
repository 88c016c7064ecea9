import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { crc32, deflateRawSync } from 'node:zlib';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openZip, readZipEntries, readZipEntryBuffer } from '@junobench/archive';
import { XLSX_LIMITS, normalizeXlsxCell, readSheetRows, xlsxStreamRank, type SheetRow } from './read-sheet-rows.js';

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
    await expect(collect(file, 'xlsx')).rejects.toMatchObject({
      code: 'E_INPUT_FORMAT',
      hint: expect.stringMatching(/--format csv/),
    });
  });

  it('refuses a zip archive that is not a workbook', async () => {
    const file = path.join(dir, 'other.xlsx');
    // An empty zip: the end-of-central-directory record only.
    await writeFile(
      file,
      Buffer.concat([
        Buffer.from('PK\u0003\u0004'),
        Buffer.alloc(26),
        Buffer.from([0x50, 0x4b, 0x05, 0x06]),
        Buffer.alloc(18),
      ]),
    );
    await expect(collect(file, 'xlsx')).rejects.toMatchObject({ code: 'E_INPUT_FORMAT' });
  });

  it('refuses an empty file', async () => {
    const file = path.join(dir, 'empty.xlsx');
    await writeFile(file, '');
    await expect(collect(file, 'xlsx')).rejects.toMatchObject({ code: 'E_INPUT_EMPTY' });
  });
});

/** The entries of a zip, inflated, in their order. */
async function unzipEntries(file: string): Promise<{ name: string; data: Buffer }[]> {
  const zip = await openZip(file);
  try {
    const out: { name: string; data: Buffer }[] = [];
    for (const { entry, raw } of await readZipEntries(file, zip)) {
      if (entry.type === 'file') out.push({ name: entry.path, data: await readZipEntryBuffer(zip, raw) });
    }
    return out;
  } finally {
    zip.close();
  }
}

interface ZipPart {
  name: string;
  data: Buffer;
  /** Another uncompressed size than the real one, in both headers (a header that lies). */
  declaredSize?: number;
  /** The name the local header gives, when it should disagree with the central directory. */
  localName?: string;
  /** A local entry the central directory does not list. */
  hidden?: boolean;
}

/**
 * A deflated zip of these entries; `prepend` goes before the first entry (the
 * central directory's offsets count it, as in two zips concatenated).
 */
function zipOf(entries: ZipPart[], options: { prepend?: Buffer } = {}): Buffer {
  const locals: Buffer[] = options.prepend ? [options.prepend] : [];
  const centrals: Buffer[] = [];
  let offset = options.prepend?.length ?? 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const localName = Buffer.from(e.localName ?? e.name, 'utf8');
    const packed = deflateRawSync(e.data, { level: 9 });
    const fields = (h: Buffer, at: number, nameLength: number) => {
      h.writeUInt16LE(20, at); // version needed
      h.writeUInt16LE(0x800, at + 2); // UTF-8 names
      h.writeUInt16LE(8, at + 4); // deflate
      h.writeUInt32LE(0, at + 6); // time, date
      h.writeUInt32LE(crc32(e.data), at + 10);
      h.writeUInt32LE(packed.length, at + 14);
      h.writeUInt32LE(e.declaredSize ?? e.data.length, at + 18);
      h.writeUInt16LE(nameLength, at + 22);
      h.writeUInt16LE(0, at + 24); // extra
    };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    fields(local, 4, localName.length);
    locals.push(local, localName, packed);
    if (!e.hidden) {
      const central = Buffer.alloc(46);
      central.writeUInt32LE(0x02014b50, 0);
      central.writeUInt16LE(20, 4); // version made by
      fields(central, 6, name.length);
      central.writeUInt32LE(offset, 42);
      centrals.push(central, name);
    }
    offset += local.length + localName.length + packed.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(centrals.length / 2, 8);
  end.writeUInt16LE(centrals.length / 2, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

describe('readSheetRows (xlsx decompression limits)', () => {
  let genuine: { name: string; data: Buffer }[];
  let padded: Buffer;
  const header = ['fname', 'eid', 'ename', 'evalue'];
  const row = ['nb1.ipynb', 'e1', 'KeyError', "'price'"];

  beforeAll(async () => {
    const file = path.join(dir, 'genuine.xlsx');
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('data');
    ws.addRow(header);
    ws.addRow(row);
    await wb.xlsx.writeFile(file);
    genuine = await unzipEntries(file);
    const strings = genuine.find((e) => e.name === 'xl/sharedStrings.xml');
    expect(strings, 'exceljs writes shared strings').toBeDefined();
    // As the reviewer's bomb: shared strings no cell refers to, enough to pass
    // the ratio floor; deflate packs them about 400:1 (80 MiB in ~200 KB).
    const pad = Buffer.alloc(XLSX_LIMITS.ratioFloorBytes + 16 * 1024 ** 2, '<si><t>xy</t></si>');
    const text = strings!.data.toString('utf8');
    const cut = text.lastIndexOf('</sst>');
    padded = Buffer.concat([Buffer.from(text.slice(0, cut)), pad, Buffer.from(text.slice(cut))]);
  });

  const withStrings = (data: Buffer, declaredSize?: number) =>
    genuine.map((e) =>
      e.name === 'xl/sharedStrings.xml' ? { ...e, data, ...(declaredSize !== undefined ? { declaredSize } : {}) } : e,
    );

  it('reads a workbook well within the limits (the same zip layout as the bombs below)', async () => {
    const file = path.join(dir, 'rezipped.xlsx');
    await writeFile(file, zipOf(genuine));
    expect(await collect(file, 'xlsx')).toEqual([
      { row: 1, values: header },
      { row: 2, values: row },
    ]);
  });

  it('refuses a workbook whose entries declare more than the ratio allows, naming the entry, before exceljs reads it', async () => {
    const file = path.join(dir, 'bomb.xlsx');
    const bytes = zipOf(withStrings(padded));
    expect(bytes.length).toBeLessThan(1024 ** 2);
    await writeFile(file, bytes);
    const failure = collect(file, 'xlsx');
    await expect(failure).rejects.toMatchObject({
      code: 'E_UNSAFE_ARCHIVE',
      exitCode: 2,
      location: { file, field: 'xl/sharedStrings.xml' },
      message: expect.stringMatching(
        /the workbook \(.*KiB\) expands to more than 64 MiB, over \d+ times its size \(at entry "xl\/sharedStrings\.xml"\): a zip bomb\?/,
      ),
      hint: expect.stringMatching(/export the sheet as \.csv/),
    });
  });

  it('refuses an entry that inflates past the size its header declares', async () => {
    const file = path.join(dir, 'liar.xlsx');
    const strings = genuine.find((e) => e.name === 'xl/sharedStrings.xml')!;
    await writeFile(file, zipOf(withStrings(padded, strings.data.length)));
    await expect(collect(file, 'xlsx')).rejects.toMatchObject({
      code: 'E_UNSAFE_ARCHIVE',
      location: { file, field: 'xl/sharedStrings.xml' },
      message: expect.stringMatching(
        /entry "xl\/sharedStrings\.xml" inflates to more than the \d+ bytes its header declares: a zip bomb\?/,
      ),
    });
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

// A zip has two descriptions of its entries: the central directory (what the
// checks read, through yauzl) and the local headers (what exceljs's unzipper
// reads, from the first byte). Each workbook below lists the genuine entries
// in its directory, while its local headers lead to a sheet nobody checked.
describe('readSheetRows (xlsx whose local headers disagree with its central directory)', () => {
  let genuine: ZipPart[];
  let unchecked: Buffer;
  const header = ['fname', 'eid', 'ename', 'evalue'];
  const row = ['nb1.ipynb', 'e1', 'KeyError', "'price'"];
  const SHEET = 'xl/worksheets/sheet1.xml';

  beforeAll(async () => {
    const file = path.join(dir, 'genuine-local.xlsx');
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('data');
    ws.addRow(header);
    ws.addRow(row);
    await wb.xlsx.writeFile(file);
    genuine = await unzipEntries(file);
    const sheet = genuine.find((e) => e.name === SHEET)!.data.toString('utf8');
    // The same sheet with one number in place of its rows: what an attacker wants imported.
    unchecked = Buffer.from(
      sheet.replace(
        /<sheetData>[\s\S]*<\/sheetData>/,
        '<sheetData><row r="1"><c r="A1"><v>666</v></c></row></sheetData>',
      ),
    );
    expect(unchecked.toString('utf8')).toContain('666');
  });

  /** The genuine entries, with `parts` inserted just before the genuine sheet. */
  const beforeSheet = (...parts: ZipPart[]) => genuine.flatMap((e) => (e.name === SHEET ? [...parts, e] : [e]));

  const cases: [string, () => Buffer][] = [
    [
      'a hidden local entry the directory does not list',
      () => zipOf(beforeSheet({ name: SHEET, data: unchecked, hidden: true })),
    ],
    [
      'a local header that names another file than the directory',
      () => zipOf(beforeSheet({ name: 'xl/media/notes.xml', data: unchecked, localName: SHEET })),
    ],
    [
      'another whole workbook before the first entry (two central directories)',
      () => zipOf(genuine, { prepend: zipOf(genuine.map((e) => (e.name === SHEET ? { ...e, data: unchecked } : e))) }),
    ],
  ];

  it.each(cases)('%s: reads exactly the entries the directory lists, which were checked', async (name, build) => {
    const file = path.join(dir, `ambiguous-${name.split(' ').slice(0, 3).join('-')}.xlsx`);
    await writeFile(file, build());
    expect(await collect(file, 'xlsx')).toEqual([
      { row: 1, values: header },
      { row: 2, values: row },
    ]);
  });

  it('the checked entries alone are a valid workbook (the cases above differ from it only in what is unchecked)', async () => {
    const file = path.join(dir, 'directory-only.xlsx');
    await writeFile(file, zipOf(genuine));
    expect(await collect(file, 'xlsx')).toEqual([
      { row: 1, values: header },
      { row: 2, values: row },
    ]);
  });

  it('gives the reader the workbook parts before the worksheets, which exceljs writes the other way round', () => {
    const names = genuine.map((e) => e.name);
    expect(names.indexOf(SHEET)).toBeLessThan(names.indexOf('xl/workbook.xml'));
    const ordered = [...names].sort((a, b) => xlsxStreamRank(a) - xlsxStreamRank(b));
    expect(ordered.slice(0, 4)).toEqual([
      '[Content_Types].xml',
      '_rels/.rels',
      'xl/_rels/workbook.xml.rels',
      'xl/workbook.xml',
    ]);
    expect(ordered.at(-1)).toBe(SHEET);
  });

  it('leaves no copy of the workbook in the temp folder, also when the reading stops early', async () => {
    const file = path.join(dir, 'early.xlsx');
    await writeFile(file, cases[0]![1]());
    const before = (await readdir(tmpdir())).filter((n) => n.startsWith('junobench-workbook-'));
    for await (const r of readSheetRows(file, 'xlsx')) {
      expect(r.row).toBe(1);
      break;
    }
    const after = (await readdir(tmpdir())).filter((n) => n.startsWith('junobench-workbook-'));
    expect(after.filter((n) => !before.includes(n))).toEqual([]);
  });
});
