import { canonicalLibrary, sha256, type CrashRecord, type SourceLabels } from '@junobench/core';
import { parseTracebackCell } from './parse-traceback-cell.js';
import { TRACEBACK_LIMITS, capCellText, capTraceback } from './cap-traceback.js';
import { PythonLiteralError } from './parse-python-string-list.js';
import type { CellValue } from './read-sheet-rows.js';

/** The two sheet layouts pool import reads (docs/formats.md). */
export type SheetKind = 'empirical' | 'benchmark';

/** Columns of the prior empirical study's published sheets. */
export const EMPIRICAL_COLUMNS = [
  'fname',
  'eid',
  'ename',
  'evalue',
  'traceback',
  'nb_source',
  'cluster_id',
  'Libs-cause',
  'label_refined_exp_type',
  'label_root_cause',
  'label_if_ML_bug',
  'label_ML_pipeline',
  'ename_mapped',
  'evalue_processed',
  'pregroup_cluster',
  'nb_url_kaggle',
] as const;

/** Columns of the benchmark description sheet (benchmark_desc.xlsx). */
export const BENCHMARK_COLUMNS = [
  'nb_name',
  'eid',
  'ename',
  'evalue',
  'traceback',
  'label_root_cause',
  'label_refined_exp_type',
  'label_ML_pipeline',
  'label_if_ML_bug',
  'DatasetTitle_1',
  'DatasetTitle_2',
  'DatasetLicenseName_1',
  'DatasetLicenseName_2',
  'DatasetUrl_1',
  'DatasetUrl_2',
  'NotebookUrl',
] as const;

/** Without these a row cannot become a CrashRecord; the other columns are optional. */
export const REQUIRED_COLUMNS: Record<SheetKind, readonly string[]> = {
  empirical: ['fname', 'ename', 'evalue', 'traceback', 'nb_source'],
  benchmark: ['nb_name', 'ename', 'evalue', 'traceback'],
};

/** A header, resolved: original names (kept verbatim in `columns`) and where each known column is. */
export interface SheetHeader {
  names: string[];
  /** Known column name (lower case) → index. */
  index: Map<string, number>;
}

export interface HeaderProblem {
  message: string;
  hint: string;
}

/**
 * Name the columns of a header row. Empty header cells get `column_<n>`;
 * duplicate names are a problem (a value would be lost in `columns`).
 */
export function parseSheetHeader(values: readonly CellValue[]): SheetHeader | HeaderProblem {
  const names: string[] = [];
  const seen = new Map<string, number>();
  const index = new Map<string, number>();
  values.forEach((v, i) => {
    const name = v === null ? `column_${i + 1}` : String(v).trim() || `column_${i + 1}`;
    names.push(name);
  });
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    if (seen.has(name)) {
      return {
        message: `the header has the column "${name}" twice (columns ${seen.get(name)! + 1} and ${i + 1})`,
        hint: 'rename or remove one of them so that every column has its own name',
      };
    }
    seen.set(name, i);
    const key = name.toLowerCase();
    if (!index.has(key)) index.set(key, i);
  }
  return { names, index };
}

/** Which layout a header is, by its columns; undefined when it is neither. */
export function detectSheetKind(header: SheetHeader): SheetKind | undefined {
  const has = (c: string) => header.index.has(c.toLowerCase());
  if (has('fname') || has('nb_source') || has('Libs-cause')) return 'empirical';
  if (has('nb_name') || has('NotebookUrl')) return 'benchmark';
  return undefined;
}

export function missingColumns(header: SheetHeader, kind: SheetKind): string[] {
  return REQUIRED_COLUMNS[kind].filter((c) => !header.index.has(c.toLowerCase()));
}

/** Why a row could not become a record. */
export interface RowProblem {
  reason: string;
  field?: string;
}

export type RowResult = { record: CrashRecord; warnings: string[] } | { problem: RowProblem };

/** Stable id for rows without an eid (docs/formats.md): a hash of notebook, ename and evalue. */
export function hashCrashId(notebook: string, ename: string, evalue: string, extra?: string): string {
  const parts = [notebook, ename, evalue];
  if (extra !== undefined) parts.push(extra);
  return sha256(parts.join('\u0000')).slice(0, 32);
}

/** Map a row's values to `columns` by header name (every column, verbatim). */
/**
 * The row's cells by column name, verbatim — except a cell longer than
 * TRACEBACK_LIMITS.maxChars (1 M characters; Excel itself stops at 32,767),
 * kept as its head and tail with a marker so that one absurd cell cannot cost
 * the import hundreds of MB. `capped` names such columns.
 */
export function rowColumns(
  header: SheetHeader,
  values: readonly CellValue[],
  capped?: string[],
): Record<string, CellValue> {
  const columns: Record<string, CellValue> = {};
  // defineProperty, not assignment: a column named __proto__ is kept as a column (nothing is lost) and cannot touch the
  // prototype.
  const set = (name: string, v: CellValue) => {
    if (name === '__proto__')
      Object.defineProperty(columns, name, { value: v, enumerable: true, writable: true, configurable: true });
    else columns[name] = v;
  };
  header.names.forEach((name, i) => {
    const v = values[i] ?? null;
    if (typeof v === 'string' && v.length > TRACEBACK_LIMITS.maxChars) {
      set(name, capCellText(v));
      capped?.push(`${name} (${v.length.toLocaleString('en')} characters)`);
    } else {
      set(name, v);
    }
  });
  return columns;
}

function cell(header: SheetHeader, values: readonly CellValue[], name: string): CellValue {
  const i = header.index.get(name.toLowerCase());
  return i === undefined ? null : (values[i] ?? null);
}

class RowError extends Error {
  constructor(
    readonly reason: string,
    readonly field?: string,
  ) {
    super(reason);
  }
}

function describeValue(v: CellValue): string {
  return typeof v === 'string'
    ? JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)
    : `the ${typeof v} ${String(v)}`;
}

function requiredText(header: SheetHeader, values: readonly CellValue[], name: string, what: string): string {
  const v = cell(header, values, name);
  if (v === null || (typeof v === 'string' && v.trim() === ''))
    throw new RowError(`missing value: ${name} (${what}) is empty`, name);
  if (typeof v === 'boolean') throw new RowError(`wrong type: ${name} must be ${what}, got ${describeValue(v)}`, name);
  return String(v);
}

function optionalText(header: SheetHeader, values: readonly CellValue[], name: string): string | undefined {
  const v = cell(header, values, name);
  if (v === null) return undefined;
  const s = String(v).trim();
  return s === '' ? undefined : s;
}

function exceptionName(header: SheetHeader, values: readonly CellValue[]): string {
  const v = cell(header, values, 'ename');
  if (v === null || (typeof v === 'string' && v.trim() === ''))
    throw new RowError('missing value: ename (the exception class) is empty', 'ename');
  if (typeof v !== 'string')
    throw new RowError(`wrong type: ename must be an exception class name, got ${describeValue(v)}`, 'ename');
  const name = v.trim();
  if (!/^[A-Za-z_][\w.]*$/.test(name)) {
    throw new RowError(
      `wrong type: ename must be an exception class name such as ValueError, got ${describeValue(v)}`,
      'ename',
    );
  }
  return name;
}

function traceback(
  header: SheetHeader,
  values: readonly CellValue[],
  ename: string,
): { lines: string[]; warnings: string[] } {
  const v = cell(header, values, 'traceback');
  if (v === null || (typeof v === 'string' && v.trim() === ''))
    throw new RowError('missing value: traceback is empty', 'traceback');
  if (typeof v !== 'string')
    throw new RowError(
      `wrong type: traceback must be text (a Python list of strings), got ${describeValue(v)}`,
      'traceback',
    );
  try {
    const parsed = parseTracebackCell(v, { ename });
    const warnings = parsed.truncated
      ? [
          `traceback list literal ends before its closing "]" (cut short at ${v.length} characters); the ${parsed.traceback.length} items read were kept`,
        ]
      : [];
    const capped = capTraceback(parsed.traceback);
    if (capped.omitted) {
      warnings.push(
        `traceback too long (${parsed.traceback.length.toLocaleString('en')} lines, ${v.length.toLocaleString('en')} characters): kept ${(capped.lines.length - 1).toLocaleString('en')} lines from its start and end, a marker line says what was left out`,
      );
    }
    return { lines: capped.lines, warnings };
  } catch (e) {
    if (e instanceof PythonLiteralError) {
      throw new RowError(`unparseable traceback: ${e.message} (at character ${e.offset + 1})`, 'traceback');
    }
    throw e;
  }
}

/** `nb_source`: 1 = Kaggle, 2 = GitHub (the empirical study's coding). */
function notebookSource(header: SheetHeader, values: readonly CellValue[]): CrashRecord['source'] {
  const v = cell(header, values, 'nb_source');
  if (v === null || (typeof v === 'string' && v.trim() === ''))
    throw new RowError('missing value: nb_source is empty (1 = Kaggle, 2 = GitHub)', 'nb_source');
  const text = String(v).trim().toLowerCase();
  const n = typeof v === 'number' ? v : /^\d+(\.0+)?$/.test(text) ? Number(text) : Number.NaN;
  if (n === 1 || text === 'kaggle') return 'kaggle';
  if (n === 2 || text === 'github') return 'github';
  throw new RowError(`wrong type: nb_source must be 1 (Kaggle) or 2 (GitHub), got ${describeValue(v)}`, 'nb_source');
}

/**
 * label_if_ML_bug → isMlBug: the study writes "ML/data science library
 * related (…)" or "general code error"; the benchmark "ML bug" or "python bug".
 */
export function parseIsMlBug(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  const v = value.trim().toLowerCase();
  if (v.startsWith('ml')) return true;
  if (v.startsWith('general code') || v.startsWith('python') || v === 'no' || v === 'false') return false;
  return undefined;
}

/** A library label as sources write it → canonical name, or the trimmed text when unknown. */
export function parseLibraryLabel(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const parts = value
    .split(/[,;/|]|\band\b/)
    .map((p) => p.trim())
    .filter(Boolean);
  if (parts.length === 0) return undefined;
  // "tensorflow/keras" and "keras, tensorflow" are one class; a list naming
  // different libraries keeps its first (the study's main cause).
  const whole = canonicalLibrary(value);
  if (whole) return whole;
  const first = canonicalLibrary(parts[0]!);
  return first ?? value.trim();
}

/**
 * Library of a benchmark row: the `nb_name` prefix (`pandas_3` → pandas,
 * `NBspecific_1` → None). A sheet may name the file (`pandas_3.ipynb`): the
 * extension is not part of the name.
 */
export function libraryFromNotebookName(nbName: string): string | undefined {
  const m = /^(.+?)_\d+$/.exec(nbName.trim().replace(/\.ipynb$/i, ''));
  if (!m) return undefined;
  return canonicalLibrary(m[1]!) ?? undefined;
}

function sourceFromUrl(url: string | undefined): CrashRecord['source'] {
  if (!url) return 'unknown';
  try {
    const host = new URL(url).hostname.toLowerCase();
    if (host === 'kaggle.com' || host.endsWith('.kaggle.com')) return 'kaggle';
    if (host === 'github.com' || host.endsWith('.github.com') || host === 'raw.githubusercontent.com') return 'github';
  } catch {
    return 'unknown';
  }
  return 'unknown';
}

function compactLabels(labels: SourceLabels): SourceLabels | undefined {
  const out: SourceLabels = {};
  for (const [k, v] of Object.entries(labels) as Array<[keyof SourceLabels, SourceLabels[keyof SourceLabels]]>) {
    if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * One sheet row → a CrashRecord, or the reason it cannot be one. Pure: the
 * caller streams rows and writes records and rejects.
 */
export function sheetRowToRecord(kind: SheetKind, header: SheetHeader, values: readonly CellValue[]): RowResult {
  try {
    if (values.length > header.names.length) {
      const extra = values.slice(header.names.length).filter((v) => v !== null).length;
      if (extra > 0) {
        throw new RowError(
          `the row has ${values.length} cells but the header names only ${header.names.length} columns`,
        );
      }
    }
    const notebookColumn = kind === 'empirical' ? 'fname' : 'nb_name';
    const notebook = requiredText(header, values, notebookColumn, 'the notebook file name').trim();
    const ename = exceptionName(header, values);
    const ev = cell(header, values, 'evalue');
    const evalue = ev === null ? '' : String(ev);
    const tb = traceback(header, values, ename);
    const cappedColumns: string[] = [];
    const eid = optionalText(header, values, 'eid');
    const id = eid ?? hashCrashId(notebook, ename, evalue);

    let source: CrashRecord['source'];
    let url: string | undefined;
    let library: string | undefined;
    if (kind === 'empirical') {
      source = notebookSource(header, values);
      url = optionalText(header, values, 'nb_url_kaggle');
      library = parseLibraryLabel(optionalText(header, values, 'Libs-cause'));
    } else {
      url = optionalText(header, values, 'NotebookUrl');
      source = sourceFromUrl(url);
      library = libraryFromNotebookName(notebook);
    }
    const labels = compactLabels({
      library,
      crashType: optionalText(header, values, 'label_refined_exp_type'),
      rootCause: optionalText(header, values, 'label_root_cause'),
      pipelineStage: optionalText(header, values, 'label_ML_pipeline'),
      isMlBug: parseIsMlBug(optionalText(header, values, 'label_if_ML_bug')),
    });
    const record: CrashRecord = {
      id,
      notebook,
      source,
      ...(url !== undefined ? { url } : {}),
      ename,
      evalue,
      traceback: tb.lines,
      ...(labels ? { labels } : {}),
      columns: rowColumns(header, values, cappedColumns),
    };
    const cellWarnings =
      cappedColumns.length > 0
        ? [
            `cell${cappedColumns.length > 1 ? 's' : ''} ${cappedColumns.join(', ')} too long: kept its start and end under columns, with a marker`,
          ]
        : [];
    return { record, warnings: [...tb.warnings, ...cellWarnings] };
  } catch (e) {
    if (e instanceof RowError) return { problem: { reason: e.reason, ...(e.field ? { field: e.field } : {}) } };
    throw e;
  }
}
