import { mkdtemp, open, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isJunoError, JunoError } from '@junobench/core';
import { writeCheckedZip, type ArchiveLimits } from '@junobench/archive';
import { SHEET_COLUMNS, SHEET_NAMES, type SheetColumnKey } from './plan-label-sheet.js';

/** A label sheet is small: far below these (a workbook past them is not one `labels sheet` wrote). */
const SHEET_LIMITS: Required<ArchiveLimits> = {
  maxEntries: 1_000,
  maxBytes: 64 * 1024 ** 2,
  maxRatio: 100,
  ratioFloorBytes: 16 * 1024 ** 2,
};

/** The columns `labels import` needs (found by their header in row 1). */
const REQUIRED: readonly SheetColumnKey[] = [
  'instance',
  'library',
  'crashType',
  'rootCause',
  'pipelineStage',
  'reviewed',
];

export interface LabelSheetContent {
  file: string;
  /** The annotator the "about" sheet names, when it has one. */
  annotator?: string;
  /** Each column's letter, by key (those found). */
  columns: Partial<Record<SheetColumnKey, string>>;
  /** The data rows with any text, as the spreadsheet numbers them (the header is row 1). */
  rows: { row: number; cells: Partial<Record<SheetColumnKey, string>> }[];
}

/**
 * Read a label sheet. The workbook is checked entry by entry first (it comes
 * back from someone's computer: a zip bomb or a crafted archive is refused
 * before exceljs reads it), then its "labels" sheet is read by header, so
 * columns moved or added by the annotator do not matter.
 */
export async function readLabelSheet(file: string): Promise<LabelSheetContent> {
  const { default: ExcelJS } = await import('exceljs');
  const st = await stat(file).catch((e: unknown) => {
    throw new JunoError('E_INPUT_NOT_FOUND', 'no such label sheet', {
      location: { file },
      hint: 'give the .xlsx file `junobench labels sheet` wrote (and the annotator filled in)',
      cause: e,
    });
  });
  if (!st.isFile() || !(await startsLikeZip(file))) {
    throw new JunoError('E_INPUT_FORMAT', 'is not an Excel workbook (.xlsx)', {
      location: { file },
      hint: 'save the sheet from Excel or LibreOffice as .xlsx (Office Open XML)',
    });
  }
  const wb = new ExcelJS.Workbook();
  try {
    const bytes = await readChecked(file);
    await wb.xlsx.load(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
  } catch (e) {
    if (isJunoError(e)) throw e;
    throw new JunoError('E_INPUT_FORMAT', `could not read the workbook: ${(e as Error).message}`, {
      location: { file },
      hint: 'open it in a spreadsheet program and save it again as .xlsx',
      cause: e,
    });
  }
  const ws = wb.getWorksheet(SHEET_NAMES.labels);
  if (!ws) {
    throw new JunoError('E_INPUT_FORMAT', `the workbook has no sheet named "${SHEET_NAMES.labels}"`, {
      location: { file },
      hint: 'import the workbook `junobench labels sheet` wrote, without renaming its sheets',
    });
  }
  const columns: Partial<Record<SheetColumnKey, string>> = {};
  const byNumber = new Map<number, SheetColumnKey>();
  ws.getRow(1).eachCell((cell, n) => {
    const text = cellText(cell.value)?.toLowerCase();
    const column = SHEET_COLUMNS.find((c) => c.header === text);
    if (column && columns[column.key] === undefined) {
      columns[column.key] = letterOf(n);
      byNumber.set(n, column.key);
    }
  });
  const missing = REQUIRED.filter((k) => columns[k] === undefined);
  if (missing.length > 0) {
    throw new JunoError(
      'E_INPUT_FORMAT',
      `sheet "${SHEET_NAMES.labels}", row 1: no column headed ${missing.map((k) => `"${SHEET_COLUMNS.find((c) => c.key === k)!.header}"`).join(', ')}`,
      {
        location: { file, line: 1 },
        hint: `keep the header row \`junobench labels sheet\` wrote (${SHEET_COLUMNS.map((c) => c.header).join(', ')})`,
      },
    );
  }
  const rows: LabelSheetContent['rows'] = [];
  ws.eachRow((row, n) => {
    if (n === 1) return;
    const cells: Partial<Record<SheetColumnKey, string>> = {};
    row.eachCell((cell, c) => {
      const key = byNumber.get(c);
      const text = key ? cellText(cell.value) : undefined;
      if (key && text !== undefined) cells[key] = text;
    });
    if (Object.keys(cells).length > 0) rows.push({ row: n, cells });
  });
  let annotator: string | undefined;
  wb.getWorksheet(SHEET_NAMES.about)?.eachRow((row) => {
    if (cellText(row.getCell(1).value)?.toLowerCase() === 'annotator') annotator = cellText(row.getCell(2).value);
  });
  return { file, ...(annotator ? { annotator } : {}), columns, rows };
}

/** A cell's text as the annotator sees it; undefined when empty. */
function cellText(value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'string') return value.trim() === '' ? undefined : value.trim();
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') {
    const o = value as Record<string, unknown>;
    if (Array.isArray(o.richText))
      return cellText((o.richText as { text?: string }[]).map((t) => t.text ?? '').join(''));
    if ('result' in o) return cellText(o.result);
    if (typeof o.text === 'string') return cellText(o.text);
    if (typeof o.error === 'string') return o.error;
  }
  return undefined;
}

function letterOf(n: number): string {
  let s = '';
  for (let x = n; x > 0; x = Math.floor((x - 1) / 26)) s = String.fromCharCode(65 + ((x - 1) % 26)) + s;
  return s;
}

async function startsLikeZip(file: string): Promise<boolean> {
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.alloc(4);
    const { bytesRead } = await fh.read(buf, 0, 4, 0);
    return bytesRead === 4 && buf.equals(Buffer.from([0x50, 0x4b, 0x03, 0x04]));
  } finally {
    await fh.close();
  }
}

/** The workbook as checked: a plain copy of exactly the entries its central directory declares, within the limits. */
async function readChecked(file: string): Promise<Buffer> {
  const dir = await mkdtemp(path.join(tmpdir(), 'junobench-label-sheet-'));
  try {
    const copy = path.join(dir, 'checked.xlsx');
    try {
      await writeCheckedZip(file, copy, SHEET_LIMITS);
    } catch (e) {
      throw new JunoError('E_UNSAFE_ARCHIVE', `is not read: ${isJunoError(e) ? e.message : (e as Error).message}`, {
        location: { file },
        hint: 'nothing was imported; open the workbook in a spreadsheet program and save it again as .xlsx',
        cause: e,
      });
    }
    return await readFile(copy);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
