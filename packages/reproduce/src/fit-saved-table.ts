import { compareCodePoints } from '@junobench/core';
import type { TableUsage } from './analyze-cells.js';
import type { DerivedColumn } from './derive-table.js';
import { looseName, type SavedColumn, type SavedTable } from './saved-frames.js';

/** Rows a derived table gets at most when the saved outputs give the file's size: enough for its shape, quick to run. */
export const MAX_SAVED_ROWS = 2000;

const PAIRS = [
  ['Yes', 'No'],
  ['yes', 'no'],
  ['YES', 'NO'],
  ['Y', 'N'],
  ['y', 'n'],
  ['Male', 'Female'],
  ['male', 'female'],
  ['M', 'F'],
  ['Positive', 'Negative'],
  ['positive', 'negative'],
] as const;
const OPPOSITES = new Map<string, string>(
  PAIRS.flatMap(([a, b]) => [[a, b] as [string, string], [b, a] as [string, string]]),
);
const MISSING = new Set(['NaN', 'nan', 'None', 'NaT', '<NA>', '']);
const INT = /^[+-]?\d+$/;
const FLOAT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(?::\d{2})?$/;

/**
 * Pure: the derived table's columns in the file's order as the saved outputs show it, then those only the code
 * names. A frame shown with a named index read by position (`index_col=0`) names that column. `leftOut`: columns the
 * code makes itself (a display after they were made is not read), and those whose absence is the crash (the replay
 * lacks them as the crashing frame did, though the file had them when it was shown). Without saved outputs, the
 * code's names as they are.
 */
export function mergeSavedNames(
  saved: SavedTable | undefined,
  codeNames: readonly string[],
  opts: Record<string, unknown>,
  leftOut: ReadonlySet<string>,
  derived: string[],
): string[] {
  const shown = (saved?.columns ?? []).map((c) => c.name).filter((n) => !leftOut.has(n));
  if (!saved || shown.length === 0) return [...codeNames];
  const names = [...shown];
  if (opts.index_col === 0 && saved.index?.name && !names.includes(saved.index.name)) {
    names.unshift(saved.index.name);
    opts.index_col = saved.index.name;
  }
  const onlyCode = codeNames.filter((n) => !names.includes(n));
  // A listing of every column (info(), df.columns, a frame shown whole) says the file has no other: a name only the
  // code uses came from elsewhere (an attribute of a model, a frame made later), and a file column would mislead.
  if (!saved.complete) names.push(...onlyCode);
  derived.push(
    `columns as the saved outputs show the file (${saved.from.join('; ')}): ${shown.length}${onlyCode.length === 0 ? '' : saved.complete ? `; not the file's (it has no other): ${onlyCode.join(', ')}` : `; named only by the code: ${onlyCode.join(', ')}`}`,
  );
  return names;
}

/**
 * Pure: the saved table with each name an output trimmed spelled as the code spells it, when the two differ only by
 * spaces and the code has one spelling of it (names left out are not taken).
 */
export function respellSavedNames(
  saved: SavedTable,
  codeNames: readonly string[],
  leftOut: ReadonlySet<string>,
  derived: string[],
): SavedTable {
  const byKey = new Map<string, string | null>();
  for (const n of codeNames) {
    if (leftOut.has(n)) continue;
    const k = looseName(n);
    // Two spellings in the code: which one the file has is not known.
    byKey.set(k, byKey.has(k) && byKey.get(k) !== n ? null : n);
  }
  const respelled: string[] = [];
  const columns = saved.columns.map((c) => {
    const spelled = c.exact ? undefined : byKey.get(looseName(c.name));
    if (!spelled || spelled === c.name) return c;
    respelled.push(JSON.stringify(spelled));
    return { ...c, name: spelled, exact: true };
  });
  if (respelled.length === 0) return saved;
  derived.push(`spelled as the code spells them (the outputs trim a name's spaces): ${respelled.join(', ')}`);
  return { ...saved, columns };
}

/** Pure: the rows to generate — the file's own count when an output gives it (at most MAX_SAVED_ROWS), else `fallback`. */
export function savedRows(saved: SavedTable, fallback: number, derived: string[]): number {
  if (saved.rows === undefined || saved.rows < 1) return fallback;
  const rows = Math.min(saved.rows, MAX_SAVED_ROWS);
  derived.push(
    rows === saved.rows
      ? `${rows} rows, as the saved outputs count the file's`
      : `${rows} rows (the saved outputs count ${saved.rows}; capped)`,
  );
  return rows;
}

/** Pure: fit each derived column the saved outputs show (the index by its shown labels) to them, noting which. */
export function fitSavedColumns(
  columns: DerivedColumn[],
  saved: SavedTable,
  indexCol: unknown,
  rows: number,
  used: TableUsage['columns'],
  derived: string[],
): void {
  const byName = new Map(saved.columns.map((c) => [c.name, c]));
  const fitted: string[] = [];
  const retyped: string[] = [];
  for (const c of columns) {
    const shown =
      c.name === indexCol && saved.index
        ? { name: c.name, samples: saved.index.samples, ...(saved.index.dates ? { dtype: 'datetime64[ns]' } : {}) }
        : byName.get(c.name);
    if (!shown) continue;
    fitted.push(c.name);
    if (fitSavedColumn(c, shown, rows, saved.rows, used[c.name]?.values ?? [])) retyped.push(c.name);
  }
  if (fitted.length === 0) return;
  const more = retyped.length > 8 ? ` and ${retyped.length - 8} more` : '';
  derived.push(
    `kinds, values and missing shares of ${fitted.length} columns as saved${retyped.length > 0 ? ` (not as the code alone implied: ${retyped.slice(0, 8).join(', ')}${more})` : ''}`,
  );
}

/**
 * Pure: fit a column derived from the code to what the saved outputs show of it — its kind from pandas' dtype or
 * its shown values, its values (shown ones, value_counts, describe's range) and its share of missing values. What
 * the code mentions stays among the values (its filters and maps must find them). Changes `column` in place.
 */
export function fitSavedColumn(
  column: DerivedColumn,
  saved: SavedColumn,
  rows: number,
  savedRowCount: number | undefined,
  codeValues: readonly (string | number | boolean)[],
): boolean {
  const present = saved.samples.filter((v) => !MISSING.has(v));
  const values = [...present, ...(saved.counts ?? []).map(([v]) => v)];
  const kind = savedKind(saved.dtype, values);
  if (kind === undefined && saved.nonNull === undefined && saved.missing === undefined) return false;
  const before = column.kind;
  if (saved.dtype && (kind === 'int' || kind === 'float')) column.numericAsSaved = true;
  if (kind !== undefined) {
    for (const k of ['min', 'max', 'decimals', 'categories', 'dateLayout', 'ordered'] as const) delete column[k];
    column.kind = kind;
    if (kind === 'int' || kind === 'float') fitNumbers(column, saved, values);
    else if (kind === 'date') fitDates(column, values);
    else if (kind === 'bool') {
      const half = Math.max(1, Math.floor(rows / 2));
      column.categories = [
        ['False', half],
        ['True', half],
      ];
    } else {
      const counts = saved.counts && saved.counts.length > 0 ? saved.counts : undefined;
      const mentioned = codeValues.map(String).filter((v) => !(counts ?? []).some(([c]) => c === v));
      const base: [string, number][] = counts
        ? counts.map(([v, n]) => [v, n])
        : [...new Set(present)].map((v) => [v, present.filter((x) => x === v).length]);
      for (const v of mentioned) if (!base.some(([b]) => b === v)) base.push([v, 1]);
      // One value in a few rows shown is rarely the column's only one: a yes/no pair gets its other half.
      const other = base.length === 1 && !counts ? OPPOSITES.get(base[0]![0]) : undefined;
      if (other) base.push([other, base[0]![1]]);
      if (base.length === 0) base.push(['alpha', 1], ['bravo', 1]);
      column.categories = scale(base, rows);
    }
  }
  // The share of values missing: info()'s non-null count, isnull().sum(), or the shown rows' NaN.
  let share: number | undefined;
  if (saved.nonNull !== undefined && savedRowCount) share = 1 - saved.nonNull / savedRowCount;
  else if (saved.missing !== undefined && savedRowCount) share = saved.missing / savedRowCount;
  else if (saved.missing !== undefined) share = saved.missing > 0 ? 0.1 : 0;
  else if (saved.samples.length > 0) {
    const shownMissing = saved.samples.length - present.length;
    share = shownMissing > 0 ? shownMissing / saved.samples.length : undefined;
  }
  if (share !== undefined) {
    column.missing = share > 0 ? Math.max(1, Math.round(rows * Math.min(share, 0.95))) : 0;
    column.present = rows - column.missing;
    if (column.categories) column.categories = scale(column.categories, column.present);
  }
  return before !== column.kind;
}

function savedKind(dtype: string | undefined, values: readonly string[]): DerivedColumn['kind'] | undefined {
  if (dtype === 'number') return values.length > 0 && values.every((v) => INT.test(v)) ? 'int' : 'float';
  if (dtype) {
    if (/^u?int\d*$|^U?Int\d+$/.test(dtype)) return 'int';
    if (/^float\d*$|^Float\d+$/.test(dtype)) return 'float';
    if (/^bool(ean)?$/.test(dtype)) return 'bool';
    if (/^datetime64/.test(dtype)) return 'date';
    if (!/^(object|category|string)$/.test(dtype)) return undefined;
    return values.length > 0 && values.every((v) => DAY.test(v) || DATE_TIME.test(v)) ? 'date' : 'category';
  }
  if (values.length === 0) return undefined;
  if (values.every((v) => INT.test(v))) return 'int';
  if (values.every((v) => FLOAT.test(v))) return 'float';
  if (values.every((v) => v === 'True' || v === 'False')) return 'bool';
  if (values.every((v) => DAY.test(v) || DATE_TIME.test(v))) return 'date';
  return 'category';
}

function fitNumbers(column: DerivedColumn, saved: SavedColumn, values: readonly string[]): void {
  const nums = values.map(Number).filter(Number.isFinite);
  let lo = saved.min ?? (nums.length > 0 ? Math.min(...nums) : 1);
  let hi = saved.max ?? (nums.length > 0 ? Math.max(...nums) : 100);
  if (column.kind === 'int') {
    lo = Math.floor(lo);
    hi = Math.ceil(hi);
    // Row ids: consecutive from the first shown, one per row.
    const consecutive = nums.length >= 3 && nums.every((n, i) => i === 0 || n === nums[i - 1]! + 1);
    if (consecutive && saved.min === undefined) {
      column.unique = true;
      column.increasing = true;
      hi = lo + Math.max(column.present, 1) - 1;
    }
  } else {
    column.decimals = Math.max(1, ...values.map((v) => /\.(\d+)$/.exec(v)?.[1]?.length ?? 0));
  }
  column.min = formatNumber(lo, column);
  column.max = formatNumber(hi, column);
}

function formatNumber(n: number, column: DerivedColumn): string {
  return column.kind === 'int' ? String(n) : n.toFixed(column.decimals ?? 2);
}

function fitDates(column: DerivedColumn, shown: readonly string[]): void {
  const values = shown.filter((v) => DAY.test(v) || DATE_TIME.test(v));
  const sorted = [...values].sort(compareCodePoints);
  if (sorted.length === 0) {
    Object.assign(column, { min: '2020-01-01', max: '2023-12-31', dateLayout: 'YYYY-MM-DD' });
    return;
  }
  const long = DATE_TIME.exec(sorted[0]!);
  column.dateLayout = long ? `YYYY-MM-DD${sorted[0]![10]}HH:MM${sorted[0]!.length > 16 ? ':SS' : ''}` : 'YYYY-MM-DD';
  column.min = sorted[0]!;
  column.max = sorted[sorted.length - 1]!;
  if (column.min === column.max) column.max = `${String(Number(column.min.slice(0, 4)) + 1)}${column.min.slice(4)}`;
  const step = regularStep(values);
  if (step) {
    column.every = step;
    column.ordered = true;
  }
}

/** The step of dates shown in order at a regular interval (months on the same day, or days), if they are. */
export function regularStep(values: readonly string[]): { months: number } | { days: number } | undefined {
  const days = values.map((v) => DAY.exec(v));
  if (days.length < 3 || days.some((m) => !m)) return undefined;
  const ym = days.map((m) => Number(m![1]) * 12 + Number(m![2]) - 1);
  const dd = days.map((m) => Number(m![3]));
  const monthStep = ym[1]! - ym[0]!;
  if (monthStep > 0 && dd.every((d) => d === dd[0]) && ym.every((v, i) => i === 0 || v - ym[i - 1]! === monthStep))
    return { months: monthStep };
  const t = values.map((v) => Date.parse(`${v}T00:00:00Z`) / 86_400_000);
  const dayStep = t[1]! - t[0]!;
  if (dayStep > 0 && t.every((v, i) => i === 0 || v - t[i - 1]! === dayStep)) return { days: dayStep };
  return undefined;
}

// Category counts scaled to `n` values, each kept at least once.
function scale(counts: readonly [string, number][], n: number): [string, number][] {
  const total = counts.reduce((s, [, c]) => s + c, 0) || 1;
  return [...counts]
    .map(([v, c]) => [v, Math.max(1, Math.round((c / total) * n))] as [string, number])
    .sort((a, b) => compareCodePoints(a[0], b[0]));
}
