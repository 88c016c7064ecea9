import { compareCodePoints } from '@junobench/core';
import type { TableUsage } from './analyze-cells.js';

/**
 * One column of a derived table, in the shape of the synthetic-table
 * machinery's column profile (packages/subsample `ColumnProfile`), so the
 * add flow hands it to that generator as it is.
 */
export interface DerivedColumn {
  name: string;
  kind: 'int' | 'float' | 'bool' | 'date' | 'category' | 'text';
  missing: number;
  present: number;
  naText: string;
  min?: string;
  max?: string;
  decimals?: number;
  dateLayout?: string;
  categories?: [string, number][];
  unique: boolean;
}

export interface DerivedTable {
  /** Rows to generate. */
  rows: number;
  delimiter: string;
  /** Whether the first line names the columns (false for header=None). */
  header: boolean;
  columns: DerivedColumn[];
  /** What was taken from the code, for the draft's record. */
  derived: string[];
}

const ROWS = 200;
const DATE_NAME = /(?:^|[_ ])(?:date|time|timestamp|datetime|dt)(?:$|[_ ])|_at$|^(?:date|time)/i;
const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet'];

/**
 * Pure: a table derived from what the code does with it — the columns it
 * names, the dtypes its operations imply, the values its filters, maps and
 * replaces mention, the read options it passes and the rows later cells need.
 * Columns whose absence is the crash (a KeyError's key) are left out, and
 * values the crash message quotes are put in a column that can hold them.
 */
export function deriveTable(
  usage: TableUsage | undefined,
  options: Record<string, unknown> | undefined,
  crash: { ename: string; evalue: string; cell?: number },
  context: { dateLayout?: string; extraColumns?: readonly string[] } = {},
): DerivedTable {
  const opts = options ?? {};
  const derived: string[] = [];
  const delimiter = typeof opts.sep === 'string' ? opts.sep : typeof opts.delimiter === 'string' ? opts.delimiter : ',';
  const header = !(opts.header === null || opts.header === 'None');
  const absent = new Set(namesTheCrashLacks(crash));
  const made = new Set(usage?.made ?? []);
  const used = usage?.columns ?? {};
  let names: string[];
  if (usage?.renamed && usage.renamed.length > 0) {
    names = [...usage.renamed];
    derived.push(`columns renamed by the code (df.columns = [...]): ${names.length}`);
  } else if (Array.isArray(opts.names) && opts.names.every((n) => typeof n === 'string')) {
    names = [...(opts.names as string[])];
    derived.push(`columns named by the read (names=): ${names.join(', ')}`);
  } else {
    const fromOpts = [opts.usecols, opts.parse_dates].flatMap((v) =>
      Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [],
    );
    const named = usage?.order ?? Object.keys(used);
    names = [...new Set([...named, ...fromOpts])].filter((n) => !absent.has(n) && !made.has(n));
    if (typeof opts.index_col === 'string' && !names.includes(opts.index_col)) names.unshift(opts.index_col);
  }
  const skipped = Object.keys(used).filter((n) => absent.has(n));
  if (skipped.length > 0) derived.push(`left out (the crash is their absence): ${skipped.join(', ')}`);
  const need = usage?.columnCount ?? 0;
  for (const x of context.extraColumns ?? []) {
    if (!names.includes(x)) {
      names.push(x);
      derived.push(`${x} (which the crash names and the code does not) is in this table only: it came from the data`);
    }
  }
  // A table the code names no column of (or only its index) still gets a few numeric ones.
  const plain = names.filter((n) => n !== opts.index_col).length;
  const width = Math.max(need, plain === 0 ? names.length + 3 : 0);
  for (let i = names.length; i < width; i++) names.push(`col_${i}`);
  const rows = Math.max(ROWS, (usage?.minRows ?? 0) + 1);
  const dates = new Set(Array.isArray(opts.parse_dates) ? (opts.parse_dates as unknown[]).map(String) : []);
  const layout = context.dateLayout ?? 'YYYY-MM-DD';
  const columns = names.map((name) =>
    deriveColumn(name, used[name]?.hints ?? [], used[name]?.values ?? [], rows, dates, layout),
  );
  const labels = usage?.indexValues ?? [];
  if (typeof opts.index_col === 'string' && labels.length > 0) {
    const ix = columns.find((c) => c.name === opts.index_col);
    if (ix) {
      Object.assign(ix, { kind: 'category', categories: spread([...labels, ...WORDS.slice(0, 2)], rows - ix.missing) });
      delete ix.min;
      delete ix.max;
      delete ix.decimals;
      derived.push(`index ${ix.name} holds the labels the code looks up: ${labels.join(', ')}`);
    }
  }
  placeQuotedValues(columns, crash, usage, derived, rows);
  if (typeof opts.index_col === 'number' && opts.index_col === 0 && !names.includes('id')) {
    columns.unshift({
      name: 'id',
      kind: 'int',
      missing: 0,
      present: rows,
      naText: '',
      min: '1',
      max: String(rows),
      unique: true,
    });
  }
  derived.push(
    `${rows} rows; columns ${columns.map((c) => `${c.name} (${c.kind}${c.categories ? `: ${c.categories.map(([v]) => v).join('|')}` : ''})`).join(', ')}`,
  );
  if (delimiter !== ',') derived.push(`separator ${JSON.stringify(delimiter)}`);
  if (!header) derived.push('no header line (header=None)');
  return { rows, delimiter, header, columns, derived };
}

function deriveColumn(
  name: string,
  hints: readonly string[],
  values: readonly (string | number | boolean)[],
  rows: number,
  dates: ReadonlySet<string>,
  dateLayout: string,
): DerivedColumn {
  const missing = hints.includes('missing') ? Math.max(1, Math.round(rows * 0.1)) : 0;
  const base = { name, missing, present: rows - missing, naText: '', unique: false };
  const strings = values.filter((v): v is string => typeof v === 'string');
  const numbers = values.filter((v): v is number => typeof v === 'number');
  // Named like a date and never computed on as a number or compared with text: a date, as the code parses them.
  const dateNamed =
    DATE_NAME.test(name) && !hints.some((h) => h === 'number' || h === 'int' || h === 'text') && strings.length === 0;
  if (hints.includes('date') || dates.has(name) || dateNamed) {
    const long = dateLayout.length > 10;
    return {
      ...base,
      kind: 'date',
      min: long ? `2020-01-01${dateLayout[10]}00:00${dateLayout.endsWith(':SS') ? ':00' : ''}` : '2020-01-01',
      max: long ? `2023-12-31${dateLayout[10]}23:59${dateLayout.endsWith(':SS') ? ':59' : ''}` : '2023-12-31',
      dateLayout,
    };
  }
  if (hints.includes('bool')) return { ...base, kind: 'bool', categories: spread(['False', 'True'], rows - missing) };
  if (hints.includes('target-class') && strings.length === 0) {
    const classes = numbers.length >= 2 ? numbers.map(String) : ['0', '1'];
    return { ...base, kind: 'category', categories: spread(classes, rows - missing) };
  }
  if (strings.length > 0 || hints.includes('category') || hints.includes('text')) {
    // Counted, grouped or encoded but never compared with text: small integers suit numeric code and categorical code alike.
    if (strings.length === 0 && !hints.includes('text')) {
      const classes = numbers.length > 0 ? [...new Set(numbers.map(String))] : ['1', '2', '3'];
      return {
        ...base,
        kind: 'category',
        categories: spread(classes.length > 1 ? classes : [...classes, '0'], rows - missing),
      };
    }
    // Values the code mentions, and a few of its own so a filter leaves rows on both sides.
    const cats = [...new Set([...strings, ...numbers.map(String)])];
    const extra = hints.includes('text') ? WORDS.map((w) => `${w} ${name.toLowerCase()}`) : WORDS.slice(0, 3);
    for (const w of extra) if (cats.length < Math.max(3, strings.length + 2) || hints.includes('text')) cats.push(w);
    return { ...base, kind: 'category', categories: spread([...new Set(cats)], rows - missing) };
  }
  // Positive: logs, square roots and divisions of a derived column stay finite.
  if (hints.includes('int')) return { ...base, kind: 'int', min: '1', max: '100' };
  return { ...base, kind: 'float', min: '1.0', max: '100.0', decimals: 2 };
}

function spread(values: readonly string[], n: number): [string, number][] {
  const sorted = [...values].sort(compareCodePoints);
  const each = Math.max(1, Math.floor(n / Math.max(1, sorted.length)));
  return sorted.map((v) => [v, each]);
}

/** Column names whose absence the crash reports (KeyError 'x', "['x'] not in index", no attribute 'x'). */
export function namesTheCrashLacks(crash: { ename: string; evalue: string }): string[] {
  const ename = crash.ename.split('.').pop();
  const v = crash.evalue;
  const out: string[] = [];
  const listed = /not in index|not found in axis|are in the \[columns\]|not contained in the columns/.test(v);
  if (ename === 'KeyError' && !listed) {
    const m = /^'([^']*)'$|^"([^"]*)"$/.exec(v.trim());
    if (m) out.push(m[1] ?? m[2]!);
  }
  if (listed) {
    for (const q of v.matchAll(/'([^']+)'/g)) out.push(q[1]!);
  }
  const attr = /object has no attribute '([^']+)'/.exec(v);
  if (attr && /DataFrame|Series/.test(v)) out.push(attr[1]!);
  return [...new Set(out)];
}

// "could not convert string to float: 'male'": a column the crashing cell computes on holds that text.
function placeQuotedValues(
  columns: DerivedColumn[],
  crash: { ename: string; evalue: string; cell?: number },
  usage: TableUsage | undefined,
  derived: string[],
  rows: number,
): void {
  const ename = crash.ename.split('.').pop();
  if (ename !== 'ValueError' && ename !== 'TypeError') return;
  const m =
    /(?:could not convert string to float|invalid literal for int\(\) with base 10|Unable to parse string|could not convert string to int)[:\s]+(?:'([^']*)'|"([^"]*)")/.exec(
      crash.evalue,
    );
  if (!m) return;
  const value = m[1] ?? m[2] ?? '';
  if (columns.some((c) => c.categories?.some(([v]) => v === value))) return;
  const inCrashCell = (c: DerivedColumn) =>
    crash.cell !== undefined && (usage?.columns[c.name]?.cells ?? []).includes(crash.cell);
  // Not a column the code computes on as numbers (that would crash earlier), a date, a flag or a target.
  const free = (c: DerivedColumn) =>
    c.kind !== 'date' &&
    c.kind !== 'bool' &&
    !(usage?.columns[c.name]?.hints ?? []).some(
      (h) => h.startsWith('target') || h === 'number' || h === 'int' || h === 'date',
    );
  const ordered = [...columns.filter(inCrashCell), ...columns.filter((c) => !inCrashCell(c))].filter(free);
  // One more column holds it too: features selected by dropping others take it along, as they would a column the code never names.
  const extra: DerivedColumn = {
    name: 'extra_text',
    kind: 'category',
    missing: 0,
    present: rows,
    naText: '',
    unique: false,
  };
  extra.categories = spread(['alpha', 'bravo', value], rows);
  columns.push(extra);
  derived.push(`the crash's value ${JSON.stringify(value)} put in a column of its own, extra_text`);
  const target = ordered[0];
  if (!target) return;
  const texts = target.categories?.filter(([v]) => Number.isNaN(Number(v))) ?? [];
  const others = texts.length > 0 ? texts.map(([v]) => v) : ['1.5', '2.5', '3.5'];
  Object.assign(target, { kind: 'category', categories: spread([...others, value], rows - target.missing) });
  delete target.min;
  delete target.max;
  delete target.decimals;
  derived.push(`the crash's value ${JSON.stringify(value)} put in column ${target.name}`);
}
