import type { CellOutput } from '@junobench/notebook';

/**
 * A saved output that shows a read's own frame before the code changed it (the analyser's `displays` of a table
 * read): what the cell showed, and how Jupyter saved it — its last expression (`result`), a `display(x)` call
 * (`display`, the nth of the cell), or printed text (`stream`: `df.info()`).
 */
export interface SavedDisplay {
  cell: number;
  /** `frame` the frame itself; `rows` some of its rows (head, tail, sample). */
  kind: 'frame' | 'rows' | 'info' | 'describe' | 'shape' | 'columns' | 'dtypes' | 'values' | 'missing';
  output: 'result' | 'display' | 'stream';
  nth: number;
  /** `df['x'].value_counts()`: the column shown. */
  column?: string;
  /** `df.select_dtypes(include=…).columns`: the columns of that kind only, not every column. */
  select?: 'number' | 'object';
  /** Shown after rows were dropped or masked (`df = df.dropna()`): the file's columns and values, not its size or gaps. */
  subset?: boolean;
}

/** What the saved outputs say of one column of the file. */
export interface SavedColumn {
  name: string;
  /** pandas' dtype as shown (`int64`, `float64`, `object`, `bool`, `datetime64[ns]`), or `number` (select_dtypes). */
  dtype?: string;
  /** Present values of `rows` (df.info()). */
  nonNull?: number;
  /** Missing values (df.isnull().sum()). */
  missing?: number;
  /** Values shown in the frame's rows (head, tail, sample), as text; `NaN` for a missing one. */
  samples: string[];
  /** Values and their counts (value_counts), in the order shown. */
  counts?: [string, number][];
  /** describe()'s min and max. */
  min?: number;
  max?: number;
  /**
   * The name is spelled as the file spells it: an output quoted it (`df.columns`) or the code named it. Frames,
   * info() and printed series lose a name's outer spaces, which real files have ('Life expectancy ').
   */
  exact?: boolean;
}

export interface SavedTable {
  columns: SavedColumn[];
  /** Every column of the file is listed (info, columns, a frame shown whole): no others. */
  complete: boolean;
  /** Rows of the file, when an output says (info, shape, "[N rows x M columns]"). */
  rows?: number;
  /** The frame's index as shown: its name and values, and whether info() calls it a DatetimeIndex. */
  index?: { name?: string; samples: string[]; dates?: boolean };
  /** What was read, for the draft's record (`code cell 3: df.info()`). */
  from: string[];
}

const MAX_TEXT = 2_000_000;

/**
 * Pure: what a notebook's saved outputs show of a table it reads — the file's columns in order, their dtypes, how
 * many values each has, the values of its first rows, its row count — from the displays the analyser found
 * (`outputsOf(cell)` gives a code cell's saved outputs). Undefined when no output could be read.
 * Outputs are someone else's text: each is bounded, and a part that does not parse is skipped.
 */
export function readSavedTable(
  displays: readonly SavedDisplay[],
  outputsOf: (cell: number) => readonly CellOutput[] | undefined,
): SavedTable | undefined {
  const table: SavedTable = { columns: [], complete: false, from: [] };
  // One column per name up to spaces: the outputs that trim a name and those that quote it meet.
  const byName = new Map<string, SavedColumn>();
  const column = (name: string, exact = false): SavedColumn => {
    const key = looseName(name);
    let c = byName.get(key);
    if (!c) {
      c = { name, samples: [] };
      byName.set(key, c);
      table.columns.push(c);
    }
    if (exact && !c.exact) Object.assign(c, { name, exact: true });
    return c;
  };
  for (const d of displays) {
    const outputs = outputsOf(d.cell);
    if (!outputs) continue;
    const text = outputText(outputs, d);
    if (text === undefined) continue;
    const got = readDisplay(d, text, table, column);
    if (got) table.from.push(`code cell ${d.cell}: ${got}`);
  }
  if (table.from.length === 0) return undefined;
  return table;
}

/** A column name up to its outer spaces and runs of spaces: how outputs that trim names still match. */
export function looseName(name: string): string {
  return name.trim().replace(/\s+/g, ' ');
}

function readDisplay(
  d: SavedDisplay,
  text: { html?: string; plain?: string },
  table: SavedTable,
  column: (name: string, exact?: boolean) => SavedColumn,
): string | undefined {
  switch (d.kind) {
    case 'info': {
      const info = parseInfo(text.plain ?? '', d.nth);
      if (!info) return undefined;
      for (const c of info.columns)
        Object.assign(column(c.name), d.subset ? { dtype: c.dtype } : { nonNull: c.nonNull, dtype: c.dtype });
      if (info.rows !== undefined && !d.subset) table.rows = info.rows;
      if (info.complete) table.complete = true;
      if (info.dateIndex) table.index = { ...(table.index ?? { samples: [] }), dates: true };
      return `info() (${info.columns.length} columns${info.rows !== undefined ? `, ${info.rows} rows` : ''})`;
    }
    case 'frame':
    case 'rows': {
      const frame = frameOf(d, text);
      if (!frame) return undefined;
      frame.columns.forEach((name, i) => {
        if (name === '...') return;
        const c = column(name);
        for (const row of frame.rows) if (row[i] !== undefined && row[i] !== '...') c.samples.push(row[i]!);
      });
      if (frame.index.length > 0 || frame.indexName)
        table.index = {
          ...(table.index ?? {}),
          ...(frame.indexName ? { name: frame.indexName } : {}),
          samples: frame.index,
        };
      // The size under a truncated frame is the shown frame's: the file's rows only when the frame itself was shown.
      if (frame.shape && d.kind === 'frame' && !d.subset) table.rows = frame.shape[0];
      if (!frame.columns.includes('...')) table.complete = true;
      return `a frame shown (${frame.columns.filter((n) => n !== '...').length} columns, ${frame.rows.length} rows)`;
    }
    case 'describe': {
      const frame = frameOf(d, text);
      if (!frame) return undefined;
      const at = (label: string) => frame.index.indexOf(label);
      const [min, max] = [at('min'), at('max')];
      if (min < 0 || max < 0) return undefined;
      frame.columns.forEach((name, i) => {
        if (name === '...') return;
        const lo = Number(frame.rows[min]![i]);
        const hi = Number(frame.rows[max]![i]);
        if (Number.isFinite(lo) && Number.isFinite(hi)) Object.assign(column(name), { min: lo, max: hi });
      });
      return 'describe()';
    }
    case 'shape': {
      if (d.subset) return undefined;
      // Printed (`print(df.shape)`): the nth line of the cell's text that is a shape.
      const line =
        d.output === 'stream'
          ? (text.plain ?? '').split('\n').filter((l) => /^\(\d+, \d+\)$/.test(l.trim()))[d.nth]
          : text.plain;
      const m = /^\((\d+), (\d+)\)$/.exec((line ?? '').trim());
      if (!m) return undefined;
      table.rows = Number(m[1]);
      return `shape ${m[0]}`;
    }
    case 'columns': {
      const names =
        d.output === 'stream' ? printedIndexList(text.plain ?? '', d.nth) : parseIndexList(text.plain ?? '');
      if (!names) return undefined;
      for (const n of names) {
        const c = column(n, true);
        // Only the kind: info() or dtypes give the exact dtype.
        if (d.select && !c.dtype) c.dtype = d.select;
      }
      if (!d.select) table.complete = true;
      return d.select ? `${d.select} columns (${names.length})` : `columns (${names.length})`;
    }
    case 'dtypes': {
      const series = parseSeries(text.plain ?? '');
      if (!series) return undefined;
      for (const [name, dtype] of series.items) column(name).dtype = dtype;
      table.complete = true;
      return `dtypes (${series.items.length})`;
    }
    case 'missing': {
      if (d.subset) return undefined;
      const series = parseSeries(text.plain ?? '');
      if (!series) return undefined;
      for (const [name, n] of series.items) if (/^\d+$/.test(n)) column(name).missing = Number(n);
      return 'isnull().sum()';
    }
    case 'values': {
      if (!d.column) return undefined;
      const series = parseSeries(text.plain ?? '');
      if (!series) return undefined;
      const c = column(d.column, true);
      c.counts = series.items.filter(([, n]) => /^\d+$/.test(n)).map(([v, n]) => [v, Number(n)]);
      return `${d.column}.value_counts()`;
    }
  }
  return undefined;
}

// A frame as saved: its HTML, else its text (printed, the frame may follow a few lines of other text).
function frameOf(d: SavedDisplay, text: { html?: string; plain?: string }): HtmlFrame | undefined {
  const html = text.html !== undefined ? parseHtmlFrame(text.html) : undefined;
  if (html || text.plain === undefined) return html;
  if (d.output !== 'stream') return parseTextFrame(text.plain);
  if (d.nth > 0) return undefined;
  const lines = text.plain.split('\n');
  for (let k = 0; k < Math.min(lines.length, 6); k++) {
    const frame = parseTextFrame(lines.slice(k).join('\n'));
    if (frame) return frame;
  }
  return undefined;
}

// The saved output of the display: a result's or display's data, or a cell's printed text.
function outputText(outputs: readonly CellOutput[], d: SavedDisplay): { html?: string; plain?: string } | undefined {
  const join = (v: unknown) => (Array.isArray(v) ? v.join('') : typeof v === 'string' ? v : undefined);
  const bounded = (v: string | undefined) => (v !== undefined && v.length <= MAX_TEXT ? v : undefined);
  if (d.output === 'stream') {
    const text = outputs
      .filter((o) => o.output_type === 'stream' && o.name === 'stdout')
      .map((o) => join((o as { text: unknown }).text) ?? '')
      .join('');
    return bounded(text) !== undefined ? { plain: text } : undefined;
  }
  const wanted = d.output === 'result' ? 'execute_result' : 'display_data';
  const matching = outputs.filter((o) => o.output_type === wanted);
  const o = matching[d.output === 'result' ? 0 : d.nth];
  if (!o || !('data' in o)) return undefined;
  const html = bounded(join(o.data['text/html']));
  const plain = bounded(join(o.data['text/plain']));
  return { ...(html !== undefined ? { html } : {}), ...(plain !== undefined ? { plain } : {}) };
}

export interface InfoBlock {
  rows?: number;
  dateIndex: boolean;
  columns: { name: string; nonNull: number; dtype: string }[];
  /** The listing names every column (pandas summarises instead past max_info_columns). */
  complete: boolean;
}

/**
 * Pure: the nth `DataFrame.info()` block of printed text, in the layouts of pandas ≥ 1.0
 * (` #   Column  Non-Null Count  Dtype`) and before (`name   1460 non-null int64`).
 */
export function parseInfo(text: string, nth = 0): InfoBlock | undefined {
  const blocks = text.split(/^(?=<class 'pandas\.core\.frame\.DataFrame'>)/m).filter((b) => b.startsWith('<class'));
  const block = blocks[nth];
  if (!block) return undefined;
  const lines = block.split('\n');
  const entries = /^(\w*Index): (\d+) entries/.exec(lines[1] ?? '');
  const total = /^Data columns \(total (\d+) columns\):/m.exec(block);
  const numbered = lines.some((l) => /^\s*#\s+Column\s+Non-Null Count\s+Dtype/.test(l));
  const columns: InfoBlock['columns'] = [];
  for (const line of lines) {
    const m = numbered
      ? /^\s*\d+\s+(.+?)\s+(\d+) non-null\s+(\S+)\s*$/.exec(line)
      : /^(.+?)\s+(\d+) non-null\s+(\S+)\s*$/.exec(line);
    if (m) columns.push({ name: m[1]!.trim(), nonNull: Number(m[2]), dtype: m[3]! });
  }
  if (columns.length === 0 && !entries) return undefined;
  return {
    ...(entries ? { rows: Number(entries[2]) } : {}),
    dateIndex: entries?.[1] === 'DatetimeIndex',
    columns,
    complete: columns.length > 0 && (!total || Number(total[1]) === columns.length),
  };
}

export interface HtmlFrame {
  columns: string[];
  rows: string[][];
  index: string[];
  indexName?: string;
  /** `<p>5 rows × 81 columns</p>` under a truncated frame. */
  shape?: [number, number];
}

/** Pure: a pandas DataFrame's HTML (`to_html`, as Jupyter shows it) with one header row; undefined otherwise. */
export function parseHtmlFrame(html: string): HtmlFrame | undefined {
  const table = /<table[^>]*class="dataframe"[^>]*>([\s\S]*?)<\/table>/.exec(html);
  if (!table) return undefined;
  const head = /<thead>([\s\S]*?)<\/thead>/.exec(table[1]!)?.[1] ?? '';
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(table[1]!)?.[1] ?? '';
  const headRows = rowsOf(head);
  if (headRows.length === 0 || headRows.length > 2) return undefined;
  const header = headRows[0]!;
  // A second header row names the index (`Month` then empty cells); a MultiIndex of columns is not read.
  let indexName: string | undefined;
  if (headRows.length === 2) {
    const second = headRows[1]!;
    if (second.slice(1).some((c) => c !== '')) return undefined;
    indexName = second[0] || undefined;
  }
  const leading = header[0] === '' ? 1 : 0;
  const columns = header.slice(leading);
  const rows: string[][] = [];
  const index: string[] = [];
  for (const r of rowsOf(body)) {
    // The row that stands for the rows a long frame does not show.
    if (r.every((c) => c === '...')) continue;
    if (r.length === columns.length + 1) {
      index.push(r[0]!);
      rows.push(r.slice(1));
    } else if (r.length === columns.length) rows.push(r);
  }
  const shape = /<p>(\d+) rows × (\d+) columns<\/p>/.exec(html);
  return {
    columns,
    rows,
    index,
    ...(indexName ? { indexName } : {}),
    ...(shape ? { shape: [Number(shape[1]), Number(shape[2])] as [number, number] } : {}),
  };
}

/**
 * Pure: a DataFrame's plain text repr (`print(df.head())`, a result saved without HTML): its header, index and rows,
 * in the blocks pandas wraps a wide frame into, and the `[N rows x M columns]` footer of a long one. Columns are
 * found by alignment (a position blank in every line separates two), as pandas right-aligns names and values; the
 * parts of a name with a wide gap join the part the values sit under. Undefined for anything else (a Series, a
 * MultiIndex header, a line that fits no column).
 */
export function parseTextFrame(text: string): HtmlFrame | undefined {
  if (text.length > MAX_TEXT) return undefined;
  const lines = text.replace(/\r/g, '').split('\n');
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === '') lines.pop();
  const foot = lines.length > 0 ? /^\[(\d+) rows x (\d+) columns\]$/.exec(lines[lines.length - 1]!.trim()) : null;
  if (foot) lines.pop();
  if (lines.some((l) => /^(?:Name: |dtype: |Length: )/.test(l))) return undefined;
  const blocks: string[][] = [];
  let current: string[] = [];
  for (const l of lines) {
    if (l.trim() !== '') current.push(l);
    else if (current.length > 0) {
      blocks.push(current);
      current = [];
    }
  }
  if (current.length > 0) blocks.push(current);
  if (blocks.length === 0 || blocks.length > 64) return undefined;
  let frame: HtmlFrame | undefined;
  for (const b of blocks) {
    const part = parseTextBlock(b);
    if (!part) return undefined;
    if (!frame) frame = part;
    else {
      // A wrapped frame's next block repeats the index.
      if (part.rows.length !== frame.rows.length || part.index.some((x, i) => x !== frame!.index[i])) return undefined;
      frame.columns.push(...part.columns);
      frame.rows = frame.rows.map((r, i) => [...r, ...part.rows[i]!]);
    }
  }
  if (!frame) return undefined;
  if (foot) frame.shape = [Number(foot[1]), Number(foot[2])];
  return frame;
}

function parseTextBlock(block: readonly string[]): HtmlFrame | undefined {
  const header = block[0]!.replace(/\s*\\\s*$/, '');
  let body = block.slice(1).map((l) => l.replace(/\s+$/, ''));
  if (body.length === 0 || header.trim() === '') return undefined;
  // A line under the header with only the index's name (`Month`), where the header is blank.
  let indexName: string | undefined;
  const named = /^(\S+(?: \S+)*)$/.exec(body[0]!);
  if (named && header.slice(0, named[1]!.length).trim() === '' && body.length > 1) {
    indexName = named[1];
    body = body.slice(1);
  }
  const all = [header, ...body];
  const width = Math.max(...all.map((l) => l.length));
  // The alignment scan is width × lines: a frame pandas prints is far below both (hostile text is not read).
  if (width > 20_000 || all.length > 5_000) return undefined;
  const filled = (p: number) => all.some((l) => p < l.length && l[p] !== ' ');
  const segments: [number, number][] = [];
  for (let p = 0; p < width; p++) {
    if (!filled(p)) continue;
    const start = p;
    while (p < width && filled(p)) p++;
    segments.push([start, p]);
  }
  const cut = (l: string, [a, b]: [number, number]) => l.slice(a, b).trim();
  // The index: the leading segments with a blank header (a date and a time are two).
  let first = 0;
  while (first < segments.length && cut(header, segments[first]!) === '') first++;
  const index = first > 0 ? body.map((l) => l.slice(segments[0]![0], segments[first - 1]![1]).trim()) : [];
  // A name with a wide gap (' thinness  1-19 years'): a part with no value under it joins the next part.
  const columns: [number, number][] = [];
  let open: number | undefined;
  for (const seg of segments.slice(first)) {
    const start = open ?? seg[0];
    if (body.every((l) => cut(l, seg) === '')) open = start;
    else {
      columns.push([start, seg[1]]);
      open = undefined;
    }
  }
  if (open !== undefined || columns.length === 0) return undefined;
  const names = columns.map((c) => cut(header, c));
  if (names.some((n) => n === '')) return undefined;
  const rows: string[][] = [];
  const labels: string[] = [];
  body.forEach((l, i) => {
    const row = columns.map((c) => cut(l, c));
    // The row that stands for the rows a long frame does not show (`..  ..  ...`).
    if (row.every((v) => /^\.{2,3}$/.test(v))) return;
    rows.push(row);
    if (index.length > 0) labels.push(index[i]!);
  });
  if (rows.length === 0) return undefined;
  return { columns: names, rows, index: labels, ...(indexName ? { indexName } : {}) };
}

function rowsOf(html: string): string[][] {
  return [...html.matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g)].map((tr) =>
    [...tr[1]!.matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map((cell) => decodeHtml(cell[1]!).trim()),
  );
}

function decodeHtml(s: string): string {
  return s.replace(/<[^>]*>/g, '').replace(/&(#x[0-9a-f]+|#\d+|lt|gt|amp|quot|apos|nbsp|#39);/gi, (_, e: string) => {
    const k = e.toLowerCase();
    if (k.startsWith('#x')) return String.fromCodePoint(Number.parseInt(k.slice(2), 16) % 0x110000);
    if (k.startsWith('#')) return String.fromCodePoint(Number(k.slice(1)) % 0x110000);
    return { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'", nbsp: ' ' }[k] ?? '';
  });
}

const QUOTED = /'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"/g;
const NAME_LISTS = [
  /^Index\(\[([\s\S]*)\],\s*dtype='object'(?:, length=\d+)?\)$/,
  /^array\(\[([\s\S]*)\],\s*dtype=object\)$/,
  /^\[([\s\S]*)\]$/,
];

/**
 * Pure: the names of a listing of columns — an `Index([...], dtype='object')` repr (df.columns), a list
 * (`df.columns.tolist()`, `list(df)`) or an object array (`df.columns.values`) of quoted names; undefined when it
 * is none of those, is truncated, or lists anything but names.
 */
export function parseIndexList(text: string): string[] | undefined {
  const body = NAME_LISTS.map((re) => re.exec(text.trim())).find((m) => m)?.[1];
  if (body === undefined || body.trim() === '') return undefined;
  // Only quoted names between the commas: numbers, `...` or anything else is not a listing of columns.
  if (body.replace(QUOTED, '').replace(/[\s,]/g, '') !== '') return undefined;
  const names = [...body.matchAll(QUOTED)].map((q) => (q[1] ?? q[2]!).replace(/\\(.)/g, '$1'));
  return names.length > 0 ? names : undefined;
}

/** Pure: the nth listing of columns printed in a cell's text (`print(df.columns)`), read as parseIndexList reads one. */
export function printedIndexList(text: string, nth: number): string[] | undefined {
  const found = [
    ...text.matchAll(
      /Index\(\[[^\]]*\],\s*dtype='object'(?:, length=\d+)?\)|array\(\[[^\]]*\],\s*dtype=object\)|^\[[^\]\n]*\]$/gm,
    ),
  ];
  return found[nth] ? parseIndexList(found[nth]![0]) : undefined;
}

/**
 * Pure: a Series repr's label and value per line (`Sex      int64`, `male    577`), without its footer (`Name: …,
 * dtype: …`); undefined when it is truncated (`...`) or has no line.
 */
export function parseSeries(text: string): { items: [string, string][] } | undefined {
  const lines = text.replace(/\r/g, '').split('\n');
  const items: [string, string][] = [];
  for (const line of lines) {
    if (/^(?:Name: |dtype: |Length: )/.test(line) || line.trim() === '') continue;
    if (line.trim() === '...') return undefined;
    const m = /^(.*?\S)\s{2,}(\S+)$/.exec(line) ?? /^(\S+)\s+(\S+)$/.exec(line);
    if (!m) continue;
    items.push([m[1]!.trim(), m[2]!]);
  }
  // value_counts' header line in pandas ≥ 2 (`Sex` alone, or the index name) has no value: skipped above.
  return items.length > 0 ? { items } : undefined;
}
