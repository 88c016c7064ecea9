import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import path from 'node:path';
import {
  JunoError,
  MAX_LINE_CHARS,
  OutputSet,
  assertReadableFile,
  checkSchema,
  formatIssue,
  isJunoError,
  noProgress,
  readLinesCapped,
  suggestClosest,
  type CrashRecord,
  type ProgressListener,
} from '@junobench/core';
import { BufferedJsonlWriter } from './buffered-jsonl-writer.js';
import { checkRejectedRow, type RejectedRow } from './check-rejected-row.js';
import { createUtf8CheckStream, replacedBytesWarning } from './utf8-check-stream.js';
import { readNotebookLean } from '@junobench/notebook';
import { capTraceback } from './cap-traceback.js';
import { listNotebookFiles, notebookCrashRecords, readListedNotebook } from './notebook-records.js';
import { readSheetRows, type CellValue, type SheetContainer } from './read-sheet-rows.js';
import {
  EMPIRICAL_COLUMNS,
  BENCHMARK_COLUMNS,
  REQUIRED_COLUMNS,
  detectSheetKind,
  missingColumns,
  parseSheetHeader,
  rowColumns,
  sheetRowToRecord,
  type SheetHeader,
  type SheetKind,
} from './sheet-formats.js';

/** `auto` picks by extension and, for sheets, by columns; `csv` forces CSV parsing with the layout found by columns. */
export type ImportFormat = 'auto' | 'empirical' | 'benchmark' | 'jsonl' | 'csv' | 'notebooks';

export const IMPORT_FORMATS: readonly ImportFormat[] = ['auto', 'empirical', 'benchmark', 'jsonl', 'csv', 'notebooks'];

export type { RejectedRow };

export interface ImportWarning {
  file: string;
  row: number;
  message: string;
}

export interface ImportCounts {
  read: number;
  imported: number;
  rejected: number;
}

export interface ImportInputReport extends ImportCounts {
  input: string;
  /** The layout read: a sheet kind, JSONL CrashRecords, or notebooks. */
  format: SheetKind | 'jsonl' | 'notebooks';
  container: SheetContainer | 'jsonl' | 'ipynb' | 'folder';
  warnings: ImportWarning[];
}

export interface ImportReport {
  inputs: ImportInputReport[];
  total: ImportCounts & { warnings: number };
  output: string;
  rejects: string;
}

export interface ImportOptions {
  format?: ImportFormat;
  output: string;
  /** Default: `<output without .jsonl>.rejects.jsonl`. */
  rejects?: string;
  onProgress?: ProgressListener;
}

type ImportItem =
  | {
      kind: 'record';
      record: CrashRecord;
      file: string;
      row: number;
      /** The JSONL line, kept for a reject. */ line?: string;
    }
  | { kind: 'layout'; format: SheetKind }
  | { kind: 'reject'; rejected: RejectedRow }
  | { kind: 'warning'; warning: ImportWarning };

interface ResolvedInput {
  input: string;
  format: ImportInputReport['format'] | 'sheet';
  container: ImportInputReport['container'];
  forcedKind?: SheetKind;
  /** Why the input is read this way: named by --format, or guessed from its extension or first bytes. */
  chosenBy: 'flag' | 'extension' | 'content';
}

export function defaultRejectsPath(output: string): string {
  return `${output.replace(/\.jsonl$/i, '')}.rejects.jsonl`;
}

async function sniff(file: string): Promise<string> {
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.alloc(512);
    const { bytesRead } = await fh.read(buf, 0, 512, 0);
    return buf.subarray(0, bytesRead).toString('latin1');
  } finally {
    await fh.close();
  }
}

async function resolveInput(input: string, format: ImportFormat): Promise<ResolvedInput> {
  let isDir = false;
  try {
    isDir = (await stat(input)).isDirectory();
  } catch (e) {
    throw new JunoError('E_INPUT_NOT_FOUND', 'no such file or folder', {
      location: { file: input },
      hint: 'check the path (relative paths are resolved from the current folder)',
      cause: e,
    });
  }
  if (isDir) {
    if (format !== 'auto' && format !== 'notebooks') {
      throw new JunoError('E_USAGE', `is a folder, but --format ${format} reads a file`, {
        location: { file: input },
        hint: 'give the file itself, or use --format notebooks to import every .ipynb in the folder',
      });
    }
    return { input, format: 'notebooks', container: 'folder', chosenBy: format === 'auto' ? 'content' : 'flag' };
  }
  const ext = path.extname(input).toLowerCase();
  const xlsxExt = ['.xlsx', '.xlsm', '.xltx'].includes(ext);
  const chosenBy = 'flag';
  switch (format) {
    case 'notebooks':
      return { input, format: 'notebooks', container: 'ipynb', chosenBy };
    case 'jsonl':
      return { input, format: 'jsonl', container: 'jsonl', chosenBy };
    case 'csv':
      return { input, format: 'sheet', container: 'csv', chosenBy };
    case 'empirical':
    case 'benchmark':
      return { input, format: 'sheet', container: xlsxExt ? 'xlsx' : 'csv', forcedKind: format, chosenBy };
    case 'auto':
      break;
  }
  if (ext === '.ipynb') return { input, format: 'notebooks', container: 'ipynb', chosenBy: 'extension' };
  if (ext === '.jsonl' || ext === '.ndjson')
    return { input, format: 'jsonl', container: 'jsonl', chosenBy: 'extension' };
  if (xlsxExt) return { input, format: 'sheet', container: 'xlsx', chosenBy: 'extension' };
  if (['.csv', '.tsv', '.txt'].includes(ext))
    return { input, format: 'sheet', container: 'csv', chosenBy: 'extension' };
  await assertReadableFile(input);
  const head = await sniff(input);
  if (head.startsWith('PK\u0003\u0004')) return { input, format: 'sheet', container: 'xlsx', chosenBy: 'content' };
  if (/^\s*\{/.test(head)) return { input, format: 'jsonl', container: 'jsonl', chosenBy: 'content' };
  if (head.trim() === '') {
    throw new JunoError('E_INPUT_EMPTY', 'the file is empty', {
      location: { file: input },
      hint: 'remove it from the inputs or check the export',
    });
  }
  return { input, format: 'sheet', container: 'csv', chosenBy: 'content' };
}

function columnsHint(kind: SheetKind): string {
  const all = kind === 'empirical' ? EMPIRICAL_COLUMNS : BENCHMARK_COLUMNS;
  return `${kind === 'empirical' ? 'an empirical-study' : 'a benchmark-description'} sheet has the columns ${all.join(', ')} (required: ${REQUIRED_COLUMNS[kind].join(', ')})`;
}

async function* sheetItems(resolved: ResolvedInput): AsyncGenerator<ImportItem> {
  const file = resolved.input;
  const rows = readSheetRows(file, resolved.container as SheetContainer);
  const first = await rows.next();
  if (first.done) {
    throw new JunoError('E_INPUT_EMPTY', 'the sheet has no rows; expected a header row and one crash per row', {
      location: { file },
      hint: 'check that the export finished, or remove the file from the inputs',
    });
  }
  const header = parseSheetHeader(first.value.values);
  if ('message' in header) {
    throw new JunoError('E_INPUT_COLUMNS', header.message, {
      location: { file, row: first.value.row },
      hint: header.hint,
    });
  }
  const kind = resolved.forcedKind ?? detectSheetKind(header);
  if (!kind) {
    throw new JunoError(
      'E_INPUT_COLUMNS',
      `cannot tell the sheet's layout from its columns (${header.names.slice(0, 12).join(', ')}${header.names.length > 12 ? ', …' : ''})`,
      {
        location: { file, row: first.value.row },
        hint: `${columnsHint('empirical')}; ${columnsHint('benchmark')}. Fix the header row or pass --format jsonl for CrashRecords`,
      },
    );
  }
  yield { kind: 'layout', format: kind };
  const missing = missingColumns(header, kind);
  if (missing.length > 0) {
    const guesses = missing
      .map((m) => [m, suggestClosest(m, header.names)] as const)
      .filter(([, g]) => g !== undefined)
      .map(([m, g]) => `"${g}" for "${m}"?`);
    throw new JunoError(
      'E_INPUT_COLUMNS',
      `missing required column${missing.length > 1 ? 's' : ''} ${missing.map((m) => `"${m}"`).join(', ')} for ${kind === 'empirical' ? 'an empirical-study' : 'a benchmark-description'} sheet`,
      {
        location: { file, row: first.value.row },
        hint: `${guesses.length > 0 ? `rename ${guesses.join(' ')} ` : 'add the column to the header row; '}${columnsHint(kind)}`,
      },
    );
  }
  for await (const { row, values, warnings } of rows) {
    for (const message of warnings ?? []) yield { kind: 'warning', warning: { file, row, message } };
    const result = sheetRowToRecord(kind, header, values);
    if ('problem' in result) {
      yield {
        kind: 'reject',
        rejected: {
          file,
          row,
          reason: result.problem.reason,
          ...(result.problem.field ? { field: result.problem.field } : {}),
          columns: rowColumns(header, values),
        },
      };
      continue;
    }
    for (const message of result.warnings) yield { kind: 'warning', warning: { file, row, message } };
    yield { kind: 'record', record: result.record, file, row };
  }
}

async function* jsonlItems(resolved: ResolvedInput): AsyncGenerator<ImportItem> {
  const file = resolved.input;
  await assertReadableFile(file);
  if ((await stat(file)).size === 0) {
    throw new JunoError('E_INPUT_EMPTY', 'the file is empty; expected one CrashRecord (JSON) per line', {
      location: { file },
      hint: 'check that the export finished, or remove the file from the inputs',
    });
  }
  const utf8 = createUtf8CheckStream();
  let nonBlank = 0;
  let parsed = 0;
  let firstInvalid: { line: number; message: string } | undefined;
  let sheetLayout: SheetKind | undefined;
  for await (const read of readLinesCapped(createReadStream(file).pipe(utf8.stream).setEncoding('utf8'))) {
    const { line } = read;
    if ('tooLong' in read) {
      // Rejected by its length and first characters only: holding it whole would exhaust memory.
      nonBlank++;
      yield {
        kind: 'reject',
        rejected: {
          file,
          row: line,
          reason: `a line of ${read.tooLong.chars} characters, longer than the ${MAX_LINE_CHARS} a JSONL line may be`,
          columns: { line: `${read.tooLong.head}…` },
        },
      };
      continue;
    }
    const text = read.text;
    const replaced = replacedBytesWarning(utf8.tracker, [text]);
    if (replaced) yield { kind: 'warning', warning: { file, row: line, message: replaced } };
    if (text.trim() === '') continue;
    nonBlank++;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      firstInvalid ??= { line, message: (e as Error).message };
      yield {
        kind: 'reject',
        rejected: { file, row: line, reason: `invalid JSON: ${(e as Error).message}`, columns: { line: text } },
      };
      continue;
    }
    parsed++;
    const sheetRow = sheetRowOfJson(value);
    if (sheetRow) {
      // A sheet exported as JSON lines (benchmark_desc.jsonl beside benchmark_desc.xlsx): each
      // line is a row by its column names, read as the sheet would be, never rejected as a
      // CrashRecord without an id.
      if (!sheetLayout) {
        sheetLayout = sheetRow.kind;
        yield { kind: 'layout', format: sheetRow.kind };
      }
      const result = sheetRowToRecord(sheetRow.kind, sheetRow.header, sheetRow.values);
      if ('problem' in result) {
        yield {
          kind: 'reject',
          rejected: {
            file,
            row: line,
            reason: result.problem.reason,
            ...(result.problem.field ? { field: result.problem.field } : {}),
            columns: { line: text },
          },
        };
        continue;
      }
      for (const message of result.warnings) yield { kind: 'warning', warning: { file, row: line, message } };
      yield { kind: 'record', record: result.record, file, row: line, line: text };
      continue;
    }
    yield { kind: 'record', record: value as CrashRecord, file, row: line, line: text };
  }
  if (nonBlank === 0) {
    throw new JunoError('E_INPUT_EMPTY', 'the file has only blank lines; expected one CrashRecord (JSON) per line', {
      location: { file },
    });
  }
  if (parsed === 0 && firstInvalid) throw notJsonl(resolved, firstInvalid, await sniff(file));
}

/**
 * A JSON line that is a sheet's row rather than a CrashRecord: an object with no
 * `id`, only text/number/boolean/null values, and the columns of an empirical-study
 * or benchmark-description sheet (fname/nb_source…, nb_name/NotebookUrl).
 */
function sheetRowOfJson(value: unknown): { kind: SheetKind; header: SheetHeader; values: CellValue[] } | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value) || Object.hasOwn(value, 'id')) return undefined;
  if (!isPlainColumns(value)) return undefined;
  const header = parseSheetHeader(Object.keys(value));
  if ('message' in header) return undefined;
  const kind = detectSheetKind(header);
  if (!kind || missingColumns(header, kind).length > 0) return undefined;
  return { kind, header, values: Object.values(value) };
}

const CHOSEN_BY: Record<ResolvedInput['chosenBy'], (r: ResolvedInput) => string> = {
  flag: (r) => `--format ${r.forcedKind ?? (r.format === 'sheet' ? 'csv' : r.format)}`,
  extension: (r) => `its ${path.extname(r.input).toLowerCase()} extension`,
  content: () => 'its first bytes',
};

/**
 * Not one line of the file is JSON: the file is not JSONL, and importing it
 * would reject every row (exit 0, an empty pool). Whole-input errors abort the
 * import before either output is written.
 */
function notJsonl(resolved: ResolvedInput, first: { line: number; message: string }, head: string): JunoError {
  const file = resolved.input;
  const firstLine = head.replace(/^\ufeff/, '').split(/\r?\n/, 1)[0] ?? '';
  const fix =
    resolved.chosenBy === 'flag'
      ? 'leave --format out to choose by extension'
      : 'name the file for its format (.csv, .xlsx, .jsonl, .ipynb)';
  let hint: string;
  if (head.startsWith('PK\u0003\u0004')) {
    hint = `it is a zip archive (an .xlsx workbook?): pass --format empirical or --format benchmark, or ${fix}`;
  } else if (/[,\t;]/.test(firstLine)) {
    hint = `it looks like a CSV sheet (its first line has ${firstLine.includes('\t') ? 'tabs' : firstLine.includes(';') ? 'semicolons' : 'commas'}): pass --format csv, or ${fix}`;
  } else {
    hint = `a JSONL file holds one CrashRecord as JSON per line (docs/formats.md); for a sheet pass --format csv, for notebooks --format notebooks`;
  }
  return new JunoError(
    'E_INPUT_FORMAT',
    `no line is JSON, so it is not JSONL (read as JSONL because of ${CHOSEN_BY[resolved.chosenBy](resolved)}): ${first.message}`,
    { location: { file, line: first.line }, hint: `${hint}; nothing was written` },
  );
}

async function* notebookItems(resolved: ResolvedInput): AsyncGenerator<ImportItem> {
  if (resolved.container === 'ipynb') {
    // A notebook named on the command line that cannot be read is a whole-input error.
    // Read lean: only code, counts and saved errors are kept (outputs are not held in memory).
    const nb = await readNotebookLean(resolved.input).catch((e: unknown) => {
      throw notANotebook(resolved, e);
    });
    // The path as the user named it (relative to the current folder): several
    // instances' `original.ipynb` stay apart, and ids do not depend on where the clone lives.
    const named = path.isAbsolute(resolved.input) ? path.relative(process.cwd(), resolved.input) : resolved.input;
    for (const record of notebookCrashRecords(nb, named.split(path.sep).join('/')))
      yield* boundedRecord(record, resolved.input);
    return;
  }
  // A folder is untrusted: links leaving it, dangling links, loops and special files come back refused, never read.
  for (const listed of await listNotebookFiles(resolved.input)) {
    const abs = path.join(resolved.input, listed.rel);
    const read = await readListedNotebook(listed);
    if ('reason' in read) {
      yield { kind: 'reject', rejected: { file: abs, row: 0, reason: read.reason, columns: { notebook: listed.rel } } };
      continue;
    }
    for (const record of notebookCrashRecords(read.notebook, listed.rel)) yield* boundedRecord(record, abs);
  }
}

/**
 * A file named with --format notebooks that is no notebook: say which format it may be rather than how to repair a
 * notebook.
 */
function notANotebook(resolved: ResolvedInput, e: unknown): unknown {
  if (
    !isJunoError(e) ||
    e.code !== 'E_NOTEBOOK' ||
    resolved.chosenBy !== 'flag' ||
    path.extname(resolved.input).toLowerCase() === '.ipynb'
  )
    return e;
  return new JunoError('E_NOTEBOOK', `${e.message} (read as a notebook because of --format notebooks)`, {
    location: e.location ?? { file: resolved.input },
    hint: 'for a sheet pass --format csv (or leave --format out to choose by extension), for CrashRecords --format jsonl; nothing was written',
    cause: e,
  });
}

/** A notebook's crash record with its traceback within TRACEBACK_LIMITS (and a warning when it was cut). */
function* boundedRecord(record: CrashRecord, file: string): Generator<ImportItem> {
  const row = Number(record.columns.cell ?? 0);
  const capped = capTraceback(record.traceback);
  if (capped.omitted) {
    yield {
      kind: 'warning',
      warning: {
        file,
        row,
        message: `traceback too long (${record.traceback.length.toLocaleString('en')} lines): kept ${(capped.lines.length - 1).toLocaleString('en')} lines from its start and end, a marker line says what was left out`,
      },
    };
    record = { ...record, traceback: capped.lines };
  }
  yield { kind: 'record', record, file, row };
}

function itemsOf(resolved: ResolvedInput): AsyncGenerator<ImportItem> {
  if (resolved.format === 'jsonl') return jsonlItems(resolved);
  if (resolved.format === 'notebooks') return notebookItems(resolved);
  return sheetItems(resolved);
}

/**
 * Validates each record and keeps ids unique across all inputs of one
 * import; what fails becomes a reject instead of a record.
 */
class RecordChecker {
  // id → where it was first seen, packed as row × 65536 + file index: a
  // number per id instead of a string keeps a million-record import small.
  private readonly seen = new Map<string, number>();
  private readonly files: string[] = [];
  private readonly fileIndex = new Map<string, number>();

  private locate(file: string, row: number): number {
    let i = this.fileIndex.get(file);
    if (i === undefined) {
      i = this.files.length;
      this.files.push(file);
      this.fileIndex.set(file, i);
    }
    return i < 65536 ? row * 65536 + i : -1;
  }

  private describe(packed: number): string {
    if (packed < 0) return 'an earlier input';
    return `${path.basename(this.files[packed % 65536]!)} row ${Math.floor(packed / 65536)}`;
  }

  check(item: Extract<ImportItem, { kind: 'record' }>): RejectedRow | undefined {
    const { record, file, row } = item;
    const issues = checkSchema('crash-record', record);
    if (issues.length > 0) {
      const first = issues[0]!;
      const columns =
        record &&
        typeof record === 'object' &&
        !Array.isArray(record) &&
        isPlainColumns((record as { columns?: unknown }).columns)
          ? (record as { columns: Record<string, CellValue> }).columns
          : {};
      return {
        file,
        row,
        reason: `not a valid CrashRecord: ${issues.slice(0, 3).map(formatIssue).join('; ')}`,
        ...(first.path ? { field: first.path.split('/').slice(1).join('.') } : {}),
        columns: item.line !== undefined ? { line: item.line } : columns,
      };
    }
    const previous = this.seen.get(record.id);
    if (previous !== undefined) {
      return {
        file,
        row,
        reason: `duplicate id "${record.id}": already imported from ${this.describe(previous)}`,
        field: 'id',
        columns: item.line !== undefined ? { line: item.line } : record.columns,
      };
    }
    this.seen.set(record.id, this.locate(file, row));
    return undefined;
  }
}

function isPlainColumns(v: unknown): v is Record<string, CellValue> {
  return (
    !!v &&
    typeof v === 'object' &&
    !Array.isArray(v) &&
    Object.values(v).every((x) => x === null || ['string', 'number', 'boolean'].includes(typeof x))
  );
}

/**
 * Import crash sources (sheets, JSONL, notebooks) into one pool JSONL,
 * streaming file to file. Rows that cannot become valid records go to the
 * rejects file with their row and reason; both outputs appear together and
 * only when the whole import succeeded.
 */
export async function importPool(inputs: string[], options: ImportOptions): Promise<ImportReport> {
  if (inputs.length === 0) {
    throw new JunoError('E_USAGE', 'no input given', {
      hint: 'name at least one sheet (.xlsx/.csv), .jsonl file, notebook or folder of notebooks',
    });
  }
  const format = options.format ?? 'auto';
  const output = options.output;
  const rejects = options.rejects ?? defaultRejectsPath(output);
  const onProgress = options.onProgress ?? noProgress;
  const outAbs = path.resolve(output);
  for (const input of inputs) {
    if (path.resolve(input) === outAbs || path.resolve(input) === path.resolve(rejects)) {
      throw new JunoError('E_USAGE', 'an input is also an output of this import', {
        location: { file: input },
        hint: 'write the pool to another file with -o',
      });
    }
  }
  const resolved: ResolvedInput[] = [];
  for (const input of inputs) resolved.push(await resolveInput(input, format));

  return OutputSet.run(async (set) => {
    const out = new BufferedJsonlWriter<CrashRecord>(await set.open(output));
    const rej = new BufferedJsonlWriter<RejectedRow>(await set.open(rejects));
    const checker = new RecordChecker();
    const reports: ImportInputReport[] = [];
    let done = 0;
    let rejectLines = 0;
    for (const r of resolved) {
      const report = newInputReport(r);
      for await (const item of itemsOf(r)) {
        if (item.kind === 'layout') {
          report.format = item.format;
          continue;
        }
        if (item.kind === 'warning') {
          report.warnings.push(item.warning);
          continue;
        }
        report.read++;
        done++;
        const rejected = item.kind === 'reject' ? item.rejected : checker.check(item);
        if (rejected) {
          await rej.write(checkRejectedRow(rejected, { file: rejects, line: ++rejectLines }));
          report.rejected++;
        } else if (item.kind === 'record') {
          report.imported++;
          await out.write(item.record);
        }
        if (done % 1000 === 0) onProgress({ task: 'pool import', done, item: path.basename(r.input) });
      }
      reports.push(report);
    }
    await out.flush();
    await rej.flush();
    return summarize(reports, output, rejects);
  });
}

function newInputReport(r: ResolvedInput): ImportInputReport {
  return {
    input: r.input,
    format: r.format === 'sheet' ? (r.forcedKind ?? 'empirical') : r.format,
    container: r.container,
    read: 0,
    imported: 0,
    rejected: 0,
    warnings: [],
  };
}

function summarize(inputs: ImportInputReport[], output: string, rejects: string): ImportReport {
  const total = { read: 0, imported: 0, rejected: 0, warnings: 0 };
  for (const r of inputs) {
    total.read += r.read;
    total.imported += r.imported;
    total.rejected += r.rejected;
    total.warnings += r.warnings.length;
  }
  return { inputs, total, output, rejects };
}

/**
 * Read one small input into memory (for `stats --input sheet.xlsx` and
 * tests): the records and the rows that could not become records.
 */
export async function readPoolRecords(
  input: string,
  options: { format?: ImportFormat } = {},
): Promise<{ records: CrashRecord[]; rejects: RejectedRow[]; warnings: ImportWarning[] }> {
  const resolved = await resolveInput(input, options.format ?? 'auto');
  const checker = new RecordChecker();
  const records: CrashRecord[] = [];
  const rejects: RejectedRow[] = [];
  const warnings: ImportWarning[] = [];
  for await (const item of itemsOf(resolved)) {
    if (item.kind === 'layout') continue;
    if (item.kind === 'warning') warnings.push(item.warning);
    else if (item.kind === 'reject') rejects.push(item.rejected);
    else {
      const rejected = checker.check(item);
      if (rejected) rejects.push(rejected);
      else records.push(item.record);
    }
  }
  return { records, rejects, warnings };
}
