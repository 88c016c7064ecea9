import { createReadStream, type ReadStream } from 'node:fs';
import { mkdtemp, open, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse as parseCsv, CsvError } from 'csv-parse';
import { JunoError, assertReadableFile, formatBytes, isJunoError } from '@junobench/core';
import { writeCheckedZip, type ArchiveLimits } from '@junobench/archive';
import { createUtf8CheckStream, replacedBytesWarning } from './utf8-check-stream.js';

/** A cell as it appears in the `columns` of a CrashRecord. */
export type CellValue = string | number | boolean | null;

export interface SheetRow {
  /** 1-based row number as a spreadsheet shows it (the header is row 1 when it is the first line). */
  row: number;
  values: CellValue[];
  /** Problems with the row that do not reject it (e.g. bytes that were not UTF-8, replaced). */
  warnings?: string[];
}

export type SheetContainer = 'xlsx' | 'csv';

const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04];

/**
 * What a workbook may expand to before exceljs is let near it. An .xlsx is a
 * zip archive from the internet, and exceljs inflates and caches every shared
 * string: a 5 MB workbook whose sharedStrings.xml inflates to 2 GB held an
 * import for over ten minutes. Real crash sheets are far below these (the
 * 111-row benchmark description and a 746-row study sheet inflate to a few
 * MB); a sheet past them can be exported as .csv, which is streamed.
 */
export const XLSX_LIMITS: Required<ArchiveLimits> = {
  maxEntries: 10_000,
  maxBytes: 256 * 1024 ** 2,
  maxRatio: 100,
  ratioFloorBytes: 64 * 1024 ** 2,
};

/**
 * Stream the rows of a sheet, header first. Rows whose cells are all empty are
 * skipped. Whole-file problems (empty file, not a workbook, broken CSV
 * quoting) throw a JunoError naming the file and what to do.
 */
export async function* readSheetRows(file: string, container: SheetContainer): AsyncGenerator<SheetRow> {
  await assertReadableFile(file);
  const { size } = await stat(file);
  if (size === 0) {
    throw new JunoError(
      'E_INPUT_EMPTY',
      'the file is empty; expected a sheet with a header row and one crash per row',
      {
        location: { file },
        hint: 'check that the export finished, or remove the file from the inputs',
      },
    );
  }
  if (container === 'xlsx') yield* readXlsxRows(file);
  else yield* readCsvRows(file);
}

async function readHead(file: string, n: number): Promise<Buffer> {
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.alloc(n);
    const { bytesRead } = await fh.read(buf, 0, n, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

/** Whether a file starts like a zip archive (an .xlsx workbook is one). */
export async function looksLikeZip(file: string): Promise<boolean> {
  const head = await readHead(file, 4);
  return head.length === 4 && ZIP_MAGIC.every((b, i) => head[i] === b);
}

async function* readXlsxRows(file: string): AsyncGenerator<SheetRow> {
  if (!(await looksLikeZip(file))) {
    const head = (await readHead(file, 64)).toString('utf8');
    const looksText = [...head].every((c) => c === '\t' || c === '\n' || c === '\r' || (c >= ' ' && c !== '\u007f'));
    throw new JunoError(
      'E_INPUT_FORMAT',
      'is not an Excel workbook: an .xlsx file is a zip archive, and this one is not',
      {
        location: { file },
        hint: looksText
          ? 'it looks like text: if it is CSV, rename it to .csv or pass --format csv'
          : 'save the sheet again from Excel/LibreOffice as .xlsx (Office Open XML), or export it as .csv',
      },
    );
  }
  // exceljs is large: load it only when a workbook is read.
  const { default: ExcelJS } = await import('exceljs');
  const checked = await openCheckedWorkbook(file);
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(checked, {
    worksheets: 'emit',
    sharedStrings: 'cache',
    hyperlinks: 'ignore',
    styles: 'ignore',
    entries: 'emit',
  });
  let sawSheet = false;
  try {
    // Only the first worksheet is the data; further sheets (notes, configs) are not read.
    for await (const sheet of reader) {
      sawSheet = true;
      for await (const row of sheet) {
        const raw = (row.values as unknown[]).slice(1);
        const values = raw.map(normalizeXlsxCell);
        while (values.length > 0 && values[values.length - 1] === null) values.pop();
        if (values.length === 0) continue;
        yield { row: row.number, values };
      }
      break;
    }
  } catch (e) {
    if (e instanceof JunoError) throw e;
    throw new JunoError('E_INPUT_FORMAT', `could not read the workbook: ${(e as Error).message}`, {
      location: { file },
      hint: 'the zip archive is not a valid .xlsx workbook; open and save it again in a spreadsheet program, or export it as .csv',
      cause: e,
    });
  } finally {
    checked.destroy();
  }
  if (!sawSheet) {
    throw new JunoError('E_INPUT_FORMAT', 'the workbook has no worksheet', {
      location: { file },
      hint: 'save the sheet again from a spreadsheet program as .xlsx',
    });
  }
}

/**
 * Where a part goes in the checked copy: the workbook's own parts first,
 * worksheets last.
 *
 * exceljs 4.4's streaming reader parses a worksheet as soon as it meets it
 * when the shared strings and the workbook's relations came before, and
 * reads `xl/workbook.xml` for the sheet's name at that moment; a worksheet
 * met earlier is set aside in a temp file until the end. Excel, LibreOffice
 * and exceljs itself write worksheets before `xl/workbook.xml`, and the
 * set-aside path failed 5 times in 2,000 reads of one exceljs-written
 * workbook ("Cannot read properties of undefined (reading 'sheets')": the
 * workbook part never reached the reader); the same parts in this order
 * failed in none of 4,000, and no worksheet is written to a temp file.
 */
export function xlsxStreamRank(part: string): number {
  const first = XLSX_WORKBOOK_PARTS.indexOf(part);
  if (first >= 0) return first;
  return /^xl\/worksheets\/sheet\d+\.xml$/.test(part) ? XLSX_WORKBOOK_PARTS.length + 1 : XLSX_WORKBOOK_PARTS.length;
}

const XLSX_WORKBOOK_PARTS = [
  '[Content_Types].xml',
  '_rels/.rels',
  'xl/_rels/workbook.xml.rels',
  'xl/workbook.xml',
  'xl/sharedStrings.xml',
  'xl/styles.xml',
];

/**
 * A copy of the workbook holding exactly what was checked, open for reading.
 *
 * The checks read the zip's central directory (yauzl); exceljs reads the
 * local headers from the first byte (unzipper). A crafted zip can make the two
 * disagree (hidden local entries, a local header naming another file, a
 * second zip before the first), so exceljs never reads the file itself:
 * writeCheckedZip refuses entries past XLSX_LIMITS from the sizes the central
 * directory declares, then reads each entry once (yauzl stops at the first
 * byte past its declared size, so a header that lies costs no more than an
 * honest one) into a plain zip whose local headers say what its directory
 * says. The copy is unlinked as soon as it is open: nothing is left in the
 * temp folder, however the reading ends.
 */
async function openCheckedWorkbook(file: string): Promise<ReadStream> {
  const dir = await mkdtemp(path.join(tmpdir(), 'junobench-workbook-'));
  try {
    const copy = path.join(dir, 'checked.xlsx');
    try {
      await writeCheckedZip(file, copy, XLSX_LIMITS, { rank: xlsxStreamRank });
    } catch (e) {
      throw isJunoError(e) && e.code === 'E_UNSAFE_ARCHIVE' ? workbookBomb(file, e) : unreadableWorkbook(file, e);
    }
    const fh = await open(copy, 'r');
    return fh.createReadStream();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const WORKBOOK_BOMB_HINT = `nothing was imported; a crash sheet may inflate to at most ${formatBytes(XLSX_LIMITS.maxBytes)}, and past ${formatBytes(XLSX_LIMITS.ratioFloorBytes)} to at most ${XLSX_LIMITS.maxRatio} times its file size: if the workbook is genuine, open it in a spreadsheet program and export the sheet as .csv (CSV is read as a stream, without this limit)`;

function workbookBomb(file: string, e: JunoError): JunoError {
  const location = { file, ...(e.location?.field ? { field: e.location.field } : {}) };
  if (/^unsafe archive entry/.test(e.message)) {
    // A path, link or name twice: no size problem, so not called a bomb.
    return new JunoError('E_UNSAFE_ARCHIVE', `is not read: ${e.message}`, {
      location,
      hint: 'nothing was imported; the workbook is damaged or crafted: open it in a spreadsheet program and save it again, or export the sheet as .csv',
      cause: e,
    });
  }
  const what = e.message.replace(/^the archive /, 'the workbook ');
  return new JunoError(
    'E_UNSAFE_ARCHIVE',
    `is not read: ${what}${what.endsWith('a zip bomb?') ? '' : ': a zip bomb?'}`,
    {
      location,
      hint: WORKBOOK_BOMB_HINT,
      cause: e,
    },
  );
}

function unreadableWorkbook(file: string, e: unknown): JunoError {
  return new JunoError(
    'E_INPUT_FORMAT',
    `could not read the workbook: ${isJunoError(e) ? e.message : (e as Error).message}`,
    {
      location: { file },
      hint: 'the zip archive is not a valid .xlsx workbook; open and save it again in a spreadsheet program, or export it as .csv',
      cause: e,
    },
  );
}

/** exceljs cell values → the plain values kept under `columns`. */
export function normalizeXlsxCell(v: unknown): CellValue {
  if (v === undefined || v === null) return null;
  if (typeof v === 'string') return v === '' ? null : v;
  if (typeof v === 'number') return Number.isFinite(v) ? v : String(v);
  if (typeof v === 'boolean') return v;
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? null : v.toISOString();
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if (Array.isArray(o.richText)) return (o.richText as Array<{ text?: string }>).map((t) => t.text ?? '').join('');
    if ('result' in o) return normalizeXlsxCell(o.result);
    if ('formula' in o || 'sharedFormula' in o) return null;
    if (typeof o.text === 'string') return o.text;
    if (typeof o.error === 'string') return o.error;
  }
  return String(v);
}

function sniffDelimiter(firstLine: string): string {
  const count = (ch: string) => {
    let n = 0;
    let quoted = false;
    for (const c of firstLine) {
      if (c === '"') quoted = !quoted;
      else if (!quoted && c === ch) n++;
    }
    return n;
  };
  const candidates = [',', '\t', ';'];
  let best = ',';
  let bestN = 0;
  for (const c of candidates) {
    const n = count(c);
    if (n > bestN) {
      best = c;
      bestN = n;
    }
  }
  return best;
}

async function* readCsvRows(file: string): AsyncGenerator<SheetRow> {
  const head = (await readHead(file, 64 * 1024)).toString('utf8').replace(/^\ufeff/, '');
  if (head.trim() === '') {
    throw new JunoError('E_INPUT_EMPTY', 'the file has no content; expected a header row and one crash per row', {
      location: { file },
      hint: 'check that the export finished, or remove the file from the inputs',
    });
  }
  if (head.startsWith('PK\u0003\u0004')) {
    throw new JunoError('E_INPUT_FORMAT', 'is a zip archive (an .xlsx workbook?), not CSV text', {
      location: { file },
      hint: 'rename it to .xlsx or pass --format empirical/benchmark so it is read as a workbook',
    });
  }
  // `{"` cannot start a CSV header (a quote inside an unquoted field is a
  // parse error); it does start a line of JSONL.
  if (/^\s*\{\s*"/.test(head)) {
    throw new JunoError('E_INPUT_FORMAT', 'is JSON lines (a JSON object per line), not CSV text', {
      location: { file, line: 1 },
      hint: 'pass --format jsonl for CrashRecords (or name the file .jsonl and leave --format out)',
    });
  }
  const delimiter = sniffDelimiter(head.split(/\r?\n/, 1)[0] ?? '');
  const utf8 = createUtf8CheckStream();
  const parser = createReadStream(file)
    .pipe(utf8.stream)
    .pipe(
      parseCsv({
        bom: true,
        delimiter,
        relax_column_count: true,
        skip_empty_lines: true,
      }),
    );
  // Records as a spreadsheet numbers its rows (the header is row 1); counted
  // here rather than with csv-parse's `info`, which costs a copy per record.
  let record = 0;
  try {
    for await (const fields of parser as AsyncIterable<string[]>) {
      record++;
      const replaced = replacedBytesWarning(utf8.tracker, fields);
      const values: CellValue[] = fields.map((v) => (v === '' ? null : v));
      while (values.length > 0 && values[values.length - 1] === null) values.pop();
      if (values.length === 0) continue;
      yield replaced ? { row: record, values, warnings: [replaced] } : { row: record, values };
    }
  } catch (e) {
    if (e instanceof CsvError) {
      const line = (e as CsvError & { lines?: number }).lines;
      throw new JunoError('E_INPUT_FORMAT', `is not valid CSV: ${e.message}`, {
        location: { file, ...(line !== undefined ? { line } : { row: record + 1 }) },
        hint: 'fix the quoting at that line (a field with commas, quotes or line breaks must be in double quotes, with inner quotes doubled)',
        cause: e,
      });
    }
    throw e;
  }
}
