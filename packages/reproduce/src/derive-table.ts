import { compareCodePoints } from '@junobench/core';
import type { TableUsage } from './analyze-cells.js';
import { fitSavedColumns, mergeSavedNames, respellSavedNames, savedRows } from './fit-saved-table.js';
import type { SavedTable } from './saved-frames.js';

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
  /** Values in increasing order down the file (a time series' date index). */
  ordered?: boolean;
  /** Numbers strictly increasing down the file (row ids the saved outputs show). */
  increasing?: boolean;
  /** Dates at a regular step from min (a time series' index the saved outputs show): what infers a frequency. */
  every?: { months?: number; days?: number };
  /** The saved outputs give pandas' dtype for it, a number type: it held no text then. */
  numericAsSaved?: boolean;
}

/** How a derived table is written: the file type the code reads. */
export type TableFormat = 'csv' | 'excel' | 'json';

export interface DerivedTable {
  format?: TableFormat;
  /** JSON: one record a line (`lines=True`). */
  lines?: boolean;
  /** Rows to generate. */
  rows: number;
  delimiter: string;
  /** Whether the first line names the columns (false for header=None). */
  header: boolean;
  /** The column the read takes as the frame's index (index_col), by name. */
  index?: string;
  columns: DerivedColumn[];
  /** What was taken from the code, for the draft's record. */
  derived: string[];
}

const ROWS = 200;
const ID_NAME = /(?:^|[_\s.])(?:id|Id|ID)$|[a-z](?:Id|ID)$/;
const DATE_NAME = /(?:^|[_ ])(?:date|time|timestamp|datetime|dt)(?:$|[_ ])|_at$|^(?:date|time)/i;
const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet'];

/**
 * Pure: a table derived from what the code does with it — the columns it
 * names, the dtypes its operations imply, the values its filters, maps and
 * replaces mention, the read options it passes and the rows later cells need.
 * Columns whose absence is the crash (a KeyError's key) are left out, and
 * values the crash message quotes are put in a column that can hold them.
 */
export interface DeriveContext {
  dateLayout?: string;
  extraColumns?: readonly string[];
  /** Dates the code names (slices of a date index, years): a date column spans them. */
  dates?: readonly string[];
  /** The crashing cell's source: columns it names get what the crash message says the data had (NaN). */
  crashSource?: string;
  format?: TableFormat;
  /** What the notebook's saved outputs show of the file (readSavedTable): its columns, dtypes, values and size. */
  saved?: SavedTable;
}

export function deriveTable(
  usage: TableUsage | undefined,
  options: Record<string, unknown> | undefined,
  crash: { ename: string; evalue: string; cell?: number },
  context: DeriveContext = {},
): DerivedTable {
  const opts: Record<string, unknown> = { ...(options ?? {}) };
  const derived: string[] = [];
  const delimiter = typeof opts.sep === 'string' ? opts.sep : typeof opts.delimiter === 'string' ? opts.delimiter : ',';
  // names= (written out, or read from a file) with no header= means the file has no header line.
  const named = Array.isArray(opts.names) || typeof opts.namesFrom === 'string';
  const header = !(opts.header === null || opts.header === 'None' || (named && opts.header === undefined));
  const made = new Set(usage?.made ?? []);
  const used = usage?.columns ?? {};
  // A column cells before the crash used without failing was in the file: what the crash lacks is a frame made from it.
  const usedBefore = (n: string) => crash.cell !== undefined && (used[n]?.cells ?? []).some((c) => c < crash.cell!);
  const absent = new Set(namesTheCrashLacks(crash).filter((n) => !usedBefore(n)));
  const saved =
    context.saved &&
    respellSavedNames(context.saved, usage?.order ?? Object.keys(used), new Set([...made, ...absent]), derived);
  let names = chooseNames(usage, opts, absent, made, saved, derived);
  const oneHot = oneHotValues(used, made);
  if (oneHot) {
    names = names.filter((n) => !oneHot.values.includes(n));
    derived.push(
      `${oneHot.column} holds the values its one-hot columns are named by in the code: ${oneHot.values.join(', ')}`,
    );
  }
  const skipped = Object.keys(used).filter((n) => absent.has(n));
  if (skipped.length > 0) derived.push(`left out (the crash is their absence): ${skipped.join(', ')}`);
  const need = usage?.columnCount ?? 0;
  for (const x of context.extraColumns ?? []) {
    // Not when the saved outputs list every column of the file, nor a name the crashing code calls (`.astyle(`): a
    // misspelt method, not a column.
    if (saved?.complete || (context.crashSource ?? '').includes(`.${x}(`)) continue;
    if (!names.includes(x)) {
      names.push(x);
      derived.push(`${x} (which the crash names and the code does not) is in this table only: it came from the data`);
    }
  }
  // A table the code names no column of (or only its index) still gets a few numeric ones.
  const plain = names.filter((n) => n !== opts.index_col).length;
  const width = Math.max(need, plain === 0 ? names.length + 3 : 0);
  for (let i = names.length; i < width; i++) names.push(`col_${i}`);
  const rows = Math.max(saved ? savedRows(saved, ROWS, derived) : ROWS, (usage?.minRows ?? 0) + 1);
  const dates = new Set(Array.isArray(opts.parse_dates) ? (opts.parse_dates as unknown[]).map(String) : []);
  // parse_dates=True parses the index.
  if ((opts.parse_dates === true || opts.parse_dates === 'True') && typeof opts.index_col === 'string')
    dates.add(opts.index_col);
  const layout = context.dateLayout ?? 'YYYY-MM-DD';
  const span = dateSpan(context.dates ?? []);
  const columns = names.map((name) =>
    deriveColumn(
      name,
      used[name]?.hints ?? [],
      [...(used[name]?.values ?? []), ...(name === oneHot?.column ? oneHot.values : [])],
      rows,
      dates,
      layout,
      span,
    ),
  );
  if (saved) fitSavedColumns(columns, saved, opts.index_col, rows, used, derived);
  const ix = columns.find((c) => c.name === opts.index_col);
  if (ix?.kind === 'date') {
    // A date index is a time series: in order, so that slicing it by dates works.
    ix.ordered = true;
    derived.push(
      `index ${ix.name}: dates in order${span ? ` from ${span[0]} to ${span[1]} (the dates the code names)` : ''}`,
    );
    // Every date the code names is a month's first day: a monthly series (pandas then infers its frequency).
    if (!ix.every && monthly(context.dates ?? []) && /^\d{4}-\d{2}-\d{2}$/.test(ix.min ?? '')) {
      ix.every = { months: 1 };
      derived.push(`index ${ix.name}: one a month (every date the code names is a month's first day)`);
    }
  }
  markMissingTheCrashSaw(columns, crash, context.crashSource, derived, rows);
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
  if (!header)
    derived.push(
      typeof opts.namesFrom === 'string'
        ? `no header line: the names come from ${opts.namesFrom}`
        : named
          ? 'no header line (names= given)'
          : 'no header line (header=None)',
    );
  if (context.format && context.format !== 'csv')
    derived.push(
      `written as ${context.format === 'excel' ? 'an Excel workbook' : opts.lines === true ? 'JSON lines' : 'JSON records'}`,
    );
  return {
    rows,
    delimiter,
    header,
    columns,
    derived,
    ...(opts.lines === true ? { lines: true } : {}),
    ...(typeof opts.index_col === 'string' ? { index: opts.index_col } : {}),
  };
}

// The file's columns: as the code renames them, as the read names them, or as the saved outputs and the code name
// them (those the crash lacks and those the code makes left out). Positions in `opts` become names.
function chooseNames(
  usage: TableUsage | undefined,
  opts: Record<string, unknown>,
  absent: ReadonlySet<string>,
  made: ReadonlySet<string>,
  saved: SavedTable | undefined,
  derived: string[],
): string[] {
  let names: string[];
  if (usage?.renamed && usage.renamed.length > 0) {
    names = [...usage.renamed];
    derived.push(`columns renamed by the code (df.columns = [...]): ${names.length}`);
  } else if (Array.isArray(opts.names) && opts.names.every((n) => typeof n === 'string')) {
    names = [...(opts.names as string[])];
    derived.push(`columns named by the read (names=): ${names.join(', ')}`);
    // Positions then name those columns: index_col=0 is the first named one, not one more.
    if (typeof opts.index_col === 'number') opts.index_col = names[opts.index_col] ?? opts.index_col;
    if (Array.isArray(opts.parse_dates))
      opts.parse_dates = (opts.parse_dates as unknown[]).map((d) => (typeof d === 'number' ? (names[d] ?? d) : d));
  } else {
    const fromOpts = [opts.usecols, opts.parse_dates].flatMap((v) =>
      Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [],
    );
    const named = usage?.order ?? Object.keys(usage?.columns ?? {});
    names = mergeSavedNames(
      saved,
      [...new Set([...named, ...fromOpts])].filter((n) => !absent.has(n) && !made.has(n)),
      opts,
      new Set([...made, ...absent]),
      derived,
    );
    if (typeof opts.index_col === 'string' && !names.includes(opts.index_col)) names.unshift(opts.index_col);
  }
  return names;
}

function deriveColumn(
  name: string,
  hints: readonly string[],
  values: readonly (string | number | boolean)[],
  rows: number,
  dates: ReadonlySet<string>,
  dateLayout: string,
  span?: [string, string],
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
    const [from, to] = span ?? ['2020-01-01', '2023-12-31'];
    return {
      ...base,
      kind: 'date',
      min: long ? `${from}${dateLayout[10]}00:00${dateLayout.endsWith(':SS') ? ':00' : ''}` : from,
      max: long ? `${to}${dateLayout[10]}23:59${dateLayout.endsWith(':SS') ? ':59' : ''}` : to,
      dateLayout,
    };
  }
  if (hints.includes('bool')) return { ...base, kind: 'bool', categories: spread(['False', 'True'], rows - missing) };
  if (hints.includes('two-levels')) {
    const two = [...new Set([...strings, ...numbers.map(String)])].slice(0, 2);
    for (const w of ['1', '2']) if (two.length < 2 && !two.includes(w)) two.push(w);
    return { ...base, kind: 'category', categories: spread(two, rows - missing) };
  }
  // One-hot encoded alone (pd.get_dummies(df.col)): its values name columns, which pandas and sklearn want as text.
  if (hints.includes('dummies') && !hints.some((h) => h === 'number' || h === 'int')) {
    const cats = strings.length > 0 ? [...new Set(strings)] : WORDS.slice(0, 3);
    return { ...base, kind: 'category', categories: spread(cats, rows - missing) };
  }
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

// Names the code uses only on frames made with the one-hot columns of one column (`pd.concat([df, pd.get_dummies(
// df.town)])`), never on the read's own frames: they are that column's values, not columns of the file.
function oneHotValues(
  used: TableUsage['columns'],
  made: ReadonlySet<string>,
): { column: string; values: string[] } | undefined {
  const encoded = Object.keys(used).filter((n) => used[n]!.hints.includes('dummies'));
  if (encoded.length !== 1) return undefined;
  const values = Object.keys(used).filter((n) => {
    const via = used[n]!.via ?? [];
    return n !== encoded[0] && !made.has(n) && via.includes('dummies') && !via.includes('plain');
  });
  return values.length > 0 ? { column: encoded[0]!, values } : undefined;
}

/** Pure: whether the dates the code names are two or more distinct months' first days (`1958-01-01`, `1958-02`). */
export function monthly(dates: readonly string[]): boolean {
  const months = new Set<string>();
  for (const d of dates) {
    const m = /^(\d{4}-\d{2})(?:-(\d{2}))?$/.exec(d.trim());
    if (!m || (m[2] !== undefined && m[2] !== '01')) return false;
    months.add(m[1]!);
  }
  return months.size >= 2;
}

/** Pure: the first and last day of the dates the code names (a year names its whole year), or undefined. */
export function dateSpan(dates: readonly string[]): [string, string] | undefined {
  const days = dates
    .map((d) => /^(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?/.exec(d))
    .filter((m): m is RegExpExecArray => m !== null)
    .flatMap((m) => {
      const y = m[1]!;
      const mo = m[2]?.padStart(2, '0');
      const d = m[3]?.padStart(2, '0');
      if (d) return [`${y}-${mo}-${d}`];
      if (mo) return [`${y}-${mo}-01`, `${y}-${mo}-28`];
      return [`${y}-01-01`, `${y}-12-31`];
    })
    .sort(compareCodePoints);
  return days.length > 0 ? [days[0]!, days[days.length - 1]!] : undefined;
}

const NAN_MESSAGE =
  /contains? NaN|Input contains NaN|must not contain infs or NaNs|cannot convert float NaN|NaN values|not allowed to have NaN|non-finite values/i;

// "Input X contains NaN": the columns the crashing cell names had gaps in the real data.
function markMissingTheCrashSaw(
  columns: DerivedColumn[],
  crash: { ename: string; evalue: string },
  source: string | undefined,
  derived: string[],
  rows: number,
): void {
  if (!NAN_MESSAGE.test(crash.evalue) || source === undefined) return;
  const named = columns.filter(
    (c) =>
      c.missing === 0 &&
      (c.kind === 'float' || c.kind === 'int') &&
      new RegExp(`['"]${escapeName(c.name)}['"]`).test(source),
  );
  const target = named.length > 0 ? named : columns.filter((c) => c.missing === 0 && c.kind === 'float');
  for (const c of target) {
    c.missing = Math.max(1, Math.round(rows * 0.1));
    c.present = rows - c.missing;
  }
  if (target.length > 0)
    derived.push(
      `missing values in ${target.map((c) => c.name).join(', ')}: the crash's message says the data had NaN`,
    );
}

function escapeName(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
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
  // A hint the crashing cell itself gives (its own astype(float)) is the conversion that fails: not an earlier one.
  const before = (c: DerivedColumn, h: string) => {
    const at = usage?.columns[c.name]?.hintCells?.[h];
    return crash.cell === undefined || at === undefined || at < crash.cell;
  };
  // Nor a column whose dtype the saved outputs give as numbers (shown values alone do not tell: ' ' hides among numbers
  // in an object column), nor an id (a quoted label is not a row's key).
  const free = (c: DerivedColumn) =>
    c.kind !== 'date' &&
    c.kind !== 'bool' &&
    !c.numericAsSaved &&
    !ID_NAME.test(c.name) &&
    !(usage?.columns[c.name]?.hints ?? []).some(
      (h) => h.startsWith('target') || ((h === 'number' || h === 'int' || h === 'date') && before(c, h)),
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
  // Numbers as text beside it: a conversion of the column fails on the crash's value and on no other.
  extra.categories = spread(['1.5', '2.5', value], rows);
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
