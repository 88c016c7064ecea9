import { stat } from 'node:fs/promises';
import { JunoError, compareCodePoints, createRng, noProgress, type ProgressListener, type Rng } from '@junobench/core';
import { CsvWriter, detectCsvFormat, readCsvRecords } from './csv-io.js';
import { detachString } from './csv-tokenizer.js';
import { isMissingValue } from './missing-values.js';

export type ColumnKind = 'int' | 'float' | 'bool' | 'date' | 'category' | 'text';

/** What is learnt about one column: enough to generate look-alike values, nothing that copies rows. */
export interface ColumnProfile {
  name: string;
  kind: ColumnKind;
  missing: number;
  present: number;
  /** The text used for missing values (most frequent), e.g. "" or "NA". */
  naText: string;
  min?: string;
  max?: string;
  /** Digits after the decimal point (floats), so "1.0" stays "1.0". */
  decimals?: number;
  /** Date layout: the source's text pattern, e.g. `YYYY-MM-DD HH:MM:SS`. */
  dateLayout?: string;
  /** Category values and their counts, sorted by value. */
  categories?: [string, number][];
  /** Every present value distinct (ids): generated values are distinct too. */
  unique: boolean;
  /** Numeric values strictly increasing down the file (row ids). */
  increasing?: boolean;
}

export interface TableProfile {
  header: string[];
  rows: number;
  columns: ColumnProfile[];
  /** Joint missing-value patterns (column indices) and their counts, when few; else columns are independent. */
  missingPatterns?: [string, number][];
}

const INT_RE = /^[+-]?\d+$/;
const FLOAT_RE = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$|^[+-]?(?:inf|Infinity)$/;
const BOOL_VALUES = new Set(['True', 'False', 'TRUE', 'FALSE', 'true', 'false']);
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})(?:([ T])(\d{2}):(\d{2})(?::(\d{2}))?)?$/;
const MAX_CATEGORIES = 1000;
const MAX_PATTERNS = 512;
const RESERVOIR = 4096;

interface ColumnState {
  int: boolean;
  float: boolean;
  bool: boolean;
  date: boolean;
  missing: number;
  present: number;
  naTexts: Map<string, number>;
  distinct: Map<string, number> | undefined;
  reservoir: string[];
  minNum: number;
  maxNum: number;
  minNumText?: string;
  maxNumText?: string;
  minText?: string;
  maxText?: string;
  decimals: Map<number, number>;
  dateLayout?: string;
  uniq: Set<string> | undefined;
  increasing: boolean;
  last: number;
}

/** Learn each column's kind, range, categories and missing values in one streaming pass. */
export async function profileTable(
  file: string,
  options: { delimiter?: string; seed?: string | number } = {},
): Promise<TableProfile> {
  const format = await detectCsvFormat(file, options.delimiter);
  const rng = createRng(`${String(options.seed ?? 0)}\u0000profile`);
  let header: string[] | undefined;
  let states: ColumnState[] = [];
  let rows = 0;
  let patterns: Map<string, number> | undefined = new Map();
  for await (const row of readCsvRecords(file, format)) {
    if (!header) {
      header = row;
      states = header.map(() => ({
        int: true,
        float: true,
        bool: true,
        date: true,
        missing: 0,
        present: 0,
        naTexts: new Map(),
        distinct: new Map(),
        reservoir: [],
        minNum: Infinity,
        maxNum: -Infinity,
        decimals: new Map(),
        uniq: new Set(),
        increasing: true,
        last: -Infinity,
      }));
      continue;
    }
    rows++;
    let mask = '';
    for (let c = 0; c < header.length; c++) {
      const raw = row[c] ?? '';
      const s = states[c]!;
      if (isMissingValue(raw)) {
        s.missing++;
        s.naTexts.set(raw, (s.naTexts.get(raw) ?? 0) + 1);
        mask += `${c},`;
        continue;
      }
      s.present++;
      // Values may be kept (categories, ids, samples): never as views into a chunk of the file.
      const v = detachString(raw);
      if (s.distinct) {
        s.distinct.set(v, (s.distinct.get(v) ?? 0) + 1);
        if (s.distinct.size > MAX_CATEGORIES) s.distinct = undefined;
      }
      if (s.uniq) {
        if (s.uniq.has(v) || s.uniq.size > 1_000_000) s.uniq = undefined;
        else s.uniq.add(v);
      }
      if (s.reservoir.length < RESERVOIR) s.reservoir.push(v);
      else {
        const j = rng.int(s.present);
        if (j < RESERVOIR) s.reservoir[j] = v;
      }
      if (s.int && !INT_RE.test(v)) s.int = false;
      if (s.float && !FLOAT_RE.test(v)) s.float = false;
      if (s.bool && !BOOL_VALUES.has(v)) s.bool = false;
      if (s.date) {
        const m = DATE_RE.exec(v);
        if (!m) s.date = false;
        else {
          const layout = `YYYY-MM-DD${m[4] ? `${m[4]}HH:MM${m[7] ? ':SS' : ''}` : ''}`;
          if (s.dateLayout && s.dateLayout !== layout) s.date = false;
          s.dateLayout = layout;
        }
      }
      if (s.float) {
        const n = Number(v.replace(/^([+-]?)inf$/, '$1Infinity'));
        if (!(n > s.last)) s.increasing = false;
        s.last = n;
        if (Number.isFinite(n)) {
          if (n < s.minNum) [s.minNum, s.minNumText] = [n, v];
          if (n > s.maxNum) [s.maxNum, s.maxNumText] = [n, v];
        }
        const dot = v.indexOf('.');
        const e = v.search(/[eE]/);
        const d = dot < 0 ? 0 : (e < 0 ? v.length : e) - dot - 1;
        s.decimals.set(d, (s.decimals.get(d) ?? 0) + 1);
      }
      if (s.minText === undefined || compareCodePoints(v, s.minText) < 0) s.minText = v;
      if (s.maxText === undefined || compareCodePoints(v, s.maxText) > 0) s.maxText = v;
    }
    if (patterns) {
      patterns.set(mask, (patterns.get(mask) ?? 0) + 1);
      if (patterns.size > MAX_PATTERNS) patterns = undefined;
    }
  }
  if (!header)
    throw new JunoError('E_INPUT_EMPTY', 'the table is empty; expected a header line and rows', { location: { file } });
  const columns = header.map((name, c): ColumnProfile => {
    const s = states[c]!;
    const naText = [...s.naTexts].sort((a, b) => b[1] - a[1] || compareCodePoints(a[0], b[0]))[0]?.[0] ?? '';
    const base = {
      name,
      missing: s.missing,
      present: s.present,
      naText,
      unique: s.uniq !== undefined && s.present > 1,
    };
    const cats = s.distinct ? [...s.distinct].sort((a, b) => compareCodePoints(a[0], b[0])) : undefined;
    const fewValues = cats !== undefined && (cats.length <= 20 || cats.length <= s.present * 0.05) && !base.unique;
    if (s.present === 0) return { ...base, kind: 'category', categories: [] };
    if (s.bool) return { ...base, kind: 'bool', categories: cats };
    if ((s.int || s.float) && fewValues) return { ...base, kind: 'category', categories: cats };
    if (s.int)
      return withReservoir({ ...base, kind: 'int', min: s.minNumText, max: s.maxNumText, increasing: s.increasing }, s);
    if (s.float) {
      // At least one decimal, so "3" never stands for a float column's "3.0" (pandas would read int64).
      const decimals = Math.max(1, [...s.decimals].sort((a, b) => b[1] - a[1] || b[0] - a[0])[0]?.[0] ?? 1);
      return withReservoir({ ...base, kind: 'float', min: s.minNumText, max: s.maxNumText, decimals }, s);
    }
    if (s.date) return { ...base, kind: 'date', min: s.minText, max: s.maxText, dateLayout: s.dateLayout };
    if (fewValues) return { ...base, kind: 'category', categories: cats };
    return withReservoir({ ...base, kind: 'text' }, s);
  });
  return {
    header,
    rows,
    columns,
    missingPatterns: patterns ? [...patterns].sort((a, b) => compareCodePoints(a[0], b[0])) : undefined,
  };
}

// A sample of real values shapes the generated distribution; it stays inside
// this module (never serialised with a profile).
const reservoirs = new WeakMap<ColumnProfile, string[]>();
function withReservoir(p: ColumnProfile, s: ColumnState): ColumnProfile {
  reservoirs.set(p, s.reservoir);
  return p;
}
function takeReservoir(p: ColumnProfile): string[] {
  return reservoirs.get(p) ?? [];
}

export interface SynthesizeTableOptions {
  rows?: number;
  delimiter?: string;
  seed: string | number;
  onProgress?: ProgressListener;
}

export interface SyntheticTableReport {
  rowsBefore: number;
  rowsAfter: number;
  bytesBefore: number;
  bytesAfter: number;
  columns: { name: string; kind: ColumnKind; missingBefore: number; missingAfter: number }[];
}

/**
 * Write a synthetic table with the same header, column order, dtypes (as
 * pandas infers them), value ranges, category sets and missing-value pattern
 * as `input`, with generated values, seeded. For data whose licence forbids
 * sharing it.
 */
export async function synthesizeTable(
  input: string,
  output: string,
  options: SynthesizeTableOptions,
): Promise<SyntheticTableReport> {
  const progress = options.onProgress ?? noProgress;
  const profile = await profileTable(input, { delimiter: options.delimiter, seed: options.seed });
  const format = await detectCsvFormat(input, options.delimiter);
  const n = options.rows ?? profile.rows;
  const rng = createRng(`${String(options.seed)}\u0000synthetic`);
  const table = generateRows(profile, n, rng);
  const writer = await CsvWriter.open(output, format, profile.header.length);
  const missingAfter = new Array<number>(profile.header.length).fill(0);
  try {
    await writer.write(profile.header);
    for (let r = 0; r < table.length; r++) {
      const row = table[r]!;
      row.forEach((v, c) => {
        if (isMissingValue(v)) missingAfter[c]!++;
      });
      await writer.write(row);
      if ((r + 1) % 100_000 === 0) progress({ task: 'synthesize table', done: r + 1, total: n, item: input });
    }
    await writer.commit();
  } catch (e) {
    await writer.abort();
    throw e;
  }
  return {
    rowsBefore: profile.rows,
    rowsAfter: n,
    bytesBefore: (await stat(input)).size,
    bytesAfter: writer.bytes,
    columns: profile.columns.map((c, i) => ({
      name: c.name,
      kind: c.kind,
      missingBefore: share(c.missing, profile.rows),
      missingAfter: share(missingAfter[i]!, n),
    })),
  };
}

function share(k: number, n: number): number {
  return n === 0 ? 0 : Math.round((k / n) * 1e6) / 1e6;
}

/** Generate `n` rows for a profile (pure given the rng). */
export function generateRows(profile: TableProfile, n: number, rng: Rng): string[][] {
  const cols = profile.columns;
  const rows: string[][] = Array.from({ length: n }, () => new Array<string>(cols.length).fill(''));
  // Missing values: joint patterns when the source has few, so columns missing together stay together.
  const missingAt: boolean[][] = Array.from({ length: n }, () => new Array<boolean>(cols.length).fill(false));
  if (profile.missingPatterns && profile.rows > 0) {
    const pick = weightedPicker(profile.missingPatterns, rng.fork('patterns'));
    for (let r = 0; r < n; r++) for (const c of pick().split(',').filter(Boolean)) missingAt[r]![Number(c)] = true;
  } else {
    cols.forEach((col, c) => {
      const p = profile.rows === 0 ? 0 : col.missing / profile.rows;
      const cr = rng.fork(`missing\u0000${c}`);
      for (let r = 0; r < n; r++) missingAt[r]![c] = cr.next() < p;
    });
  }
  // A column with any missing value must keep one: pandas would infer another dtype (int64 for float64 with NaN).
  cols.forEach((col, c) => {
    if (col.missing > 0 && n > 0 && !missingAt.some((m) => m[c]))
      missingAt[rng.fork(`one-missing\u0000${c}`).int(n)]![c] = true;
  });
  cols.forEach((col, c) => {
    const cr = rng.fork(`column\u0000${c}`);
    const gen = valueGenerator(col, cr);
    const present: number[] = [];
    for (let r = 0; r < n; r++) {
      if (missingAt[r]![c]) rows[r]![c] = col.naText;
      else {
        rows[r]![c] = gen();
        present.push(r);
      }
    }
    // Keep the exact category set and range: each category, and min/max, appear at least once when there is room.
    const must: string[] = col.categories
      ? col.categories.map(([v]) => v)
      : col.kind === 'int' || col.kind === 'float' || col.kind === 'date'
        ? [col.min!, col.max!]
        : [];
    const uniqMust = [...new Set(must)];
    if (uniqMust.length > 0 && uniqMust.length <= present.length) {
      const slots = cr.sample(present, uniqMust.length);
      slots.forEach((r, i) => (rows[r]![c] = uniqMust[i]!));
    }
    const lo = Number(col.min);
    const span = Number(col.max) - lo + 1;
    if (
      col.unique &&
      col.kind === 'int' &&
      Number.isSafeInteger(span) &&
      span >= present.length &&
      present.length >= 2
    ) {
      // Distinct ids from the same range, min and max included, in file order when the source's were.
      const picked = new Set<number>([0, span - 1]);
      for (let j = span - present.length + 2; picked.size < present.length; j++) {
        const t = cr.int(Math.min(j + 1, span));
        picked.add(picked.has(t) ? Math.min(j, span - 1) : t);
      }
      const values = [...picked].map((v) => lo + v);
      const ordered = col.increasing ? values.sort((a, b) => a - b) : cr.shuffle(values);
      present.forEach((r, i) => (rows[r]![c] = String(ordered[i])));
    } else if (col.unique) {
      const seen = new Set<string>();
      for (const r of present) {
        let v = rows[r]![c]!;
        for (let tries = 0; seen.has(v) && tries < 50; tries++) v = gen();
        if (seen.has(v)) v = `${v}_${r}`;
        seen.add(v);
        rows[r]![c] = v;
      }
    }
  });
  return rows;
}

function weightedPicker(items: readonly [string, number][], rng: Rng): () => string {
  const total = items.reduce((s, [, w]) => s + w, 0);
  const cum: number[] = [];
  let acc = 0;
  for (const [, w] of items) cum.push((acc += w));
  return () => {
    const x = rng.next() * total;
    let lo = 0;
    let hi = cum.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cum[mid]! > x) hi = mid;
      else lo = mid + 1;
    }
    return items[lo]![0];
  };
}

function valueGenerator(col: ColumnProfile, rng: Rng): () => string {
  switch (col.kind) {
    case 'bool':
    case 'category': {
      const cats = col.categories ?? [];
      if (cats.length === 0) return () => col.naText;
      return weightedPicker(cats, rng);
    }
    case 'int':
    case 'float': {
      const sorted = takeReservoir(col)
        .map(Number)
        .filter(Number.isFinite)
        .sort((a, b) => a - b);
      const lo = Number(col.min);
      const hi = Number(col.max);
      return () => {
        // Draw from the empirical distribution, between two neighbouring sample points: the shape is kept, the values
        // are new.
        let x: number;
        if (sorted.length < 2) x = lo + rng.next() * (hi - lo);
        else {
          const pos = rng.next() * (sorted.length - 1);
          const i = Math.floor(pos);
          x = sorted[i]! + (sorted[i + 1]! - sorted[i]!) * rng.next();
        }
        x = Math.min(hi, Math.max(lo, x));
        return col.kind === 'int' ? String(Math.round(x)) : x.toFixed(col.decimals ?? 1);
      };
    }
    case 'date': {
      const t0 = parseDate(col.min!);
      const t1 = parseDate(col.max!);
      return () => formatDate(t0 + Math.floor(rng.next() * (t1 - t0 + 1)), col.dateLayout!);
    }
    case 'text': {
      const templates = takeReservoir(col);
      if (templates.length === 0) return () => '';
      return () => scrambleText(templates[rng.int(templates.length)]!, rng);
    }
  }
}

/** Same shape, new characters: letters stay letters of the same case, digits stay digits. */
export function scrambleText(template: string, rng: Rng): string {
  let out = '';
  for (const ch of template) {
    if (ch >= 'a' && ch <= 'z') out += String.fromCharCode(97 + rng.int(26));
    else if (ch >= 'A' && ch <= 'Z') out += String.fromCharCode(65 + rng.int(26));
    else if (ch >= '0' && ch <= '9') out += String.fromCharCode(48 + rng.int(10));
    else out += ch;
  }
  return out;
}

function parseDate(text: string): number {
  const m = DATE_RE.exec(text)!;
  return (
    Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[5] ?? 0), Number(m[6] ?? 0), Number(m[7] ?? 0)) /
    1000
  );
}

function formatDate(seconds: number, layout: string): string {
  const d = new Date(seconds * 1000);
  const p = (n: number) => String(n).padStart(2, '0');
  let out = `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())}`;
  if (layout.length > 10) {
    out += `${layout[10]}${p(d.getUTCHours())}:${p(d.getUTCMinutes())}`;
    if (layout.endsWith(':SS')) out += `:${p(d.getUTCSeconds())}`;
  }
  return out;
}
