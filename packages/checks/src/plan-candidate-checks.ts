import type { AxesSummary, NameSummary, RunSnapshot } from './read-checks-probe.js';

/**
 * A check `checks suggest` may propose: a function of checks.py. `rank` orders them from the most general, which
 * different correct fixes share (types, missing values, a model fitted), through sizes (rows, shapes, points of a plot)
 * and values within tolerances, to printed text, which any fix may word differently.
 */
export interface CandidateCheck {
  name: string;
  reason: string;
  /** The function's body, one Python line per item, not indented. */
  body: string[];
  rank: 1 | 2 | 3 | 4;
}

/** The relative tolerance of value summaries: a correct fix may drop or impute a few rows, or draw other random numbers. */
export const VALUE_TOLERANCE = 0.05;
/** Row counts may differ by this share (and at least one row). */
const ROWS_TOLERANCE = 0.01;
const MAX_COLUMNS = 30;
const MAX_PRINTED = 5;

const py = (v: unknown) => JSON.stringify(v);
const num = (x: number) => (Number.isInteger(x) ? String(x) : String(Number(x.toPrecision(6))));

function kindOf(dtype: string | undefined): { test: string; words: string } | undefined {
  if (!dtype) return undefined;
  if (/^u?int/.test(dtype) || /^torch\.(u?int|long)/.test(dtype)) return { test: 'iu', words: 'an integer' };
  if (/^float|^torch\.(float|double|half)/.test(dtype)) return { test: 'f', words: 'a floating-point' };
  if (dtype === 'bool' || dtype === 'torch.bool') return { test: 'b', words: 'a boolean' };
  if (dtype.startsWith('datetime64')) return { test: 'M', words: 'a datetime' };
  return undefined;
}

/**
 * Candidate checks from what the fixed notebook produced from its crash cell on (the harness's snapshot): for each
 * name bound or changed there and each figure drawn, properties a fix must keep. Deterministic: names, columns and
 * figures in a fixed order, each check named uniquely.
 */
export function planCandidateChecks(snapshot: RunSnapshot): CandidateCheck[] {
  const out: CandidateCheck[] = [];
  const taken = new Set<string>();
  const add = (slug: string, reason: string, body: string[], rank: CandidateCheck['rank']) => {
    let name = `check_${slug
      .replace(/[^A-Za-z0-9_]+/g, '_')
      .replace(/^_+|_+$/g, '')
      .toLowerCase()}`.slice(0, 60);
    for (let k = 2; taken.has(name); k++) name = `${name.replace(/_\d+$/, '')}_${k}`;
    taken.add(name);
    out.push({ name, reason, body, rank });
  };
  for (const name of Object.keys(snapshot.names).sort()) planNameChecks(name, snapshot.names[name]!, add);
  planFigureChecks(snapshot, add);
  planPrintedChecks(snapshot, add);
  return out.sort((a, b) => a.rank - b.rank);
}

type Add = (slug: string, reason: string, body: string[], rank: CandidateCheck['rank']) => void;

function planNameChecks(name: string, s: NameSummary, add: Add): void {
  const v = `\`${name}\``;
  if (s.type === 'pandas.core.frame.DataFrame' && s.shape) {
    const rows = s.shape[0]!;
    add(
      `${name}_rows`,
      `${v} has about ${rows} rows (±1%)`,
      [`assert abs(len(${name}) - ${rows}) <= max(1, ${ROWS_TOLERANCE} * ${rows}), len(${name})`],
      2,
    );
    const cols = s.columns ?? [];
    if (cols.length > 0 && cols.length <= 60) {
      const shown = cols.slice(0, 4).join(', ') + (cols.length > 4 ? ', …' : '');
      add(
        `${name}_columns`,
        `${v} has the ${cols.length} columns the fix gives it (${shown})`,
        [`missing = set(${py(cols)}) - set(map(str, ${name}.columns))`, 'assert not missing, sorted(missing)'],
        2,
      );
    }
    for (const c of cols.slice(0, MAX_COLUMNS)) {
      const col = `${name}[${py(c)}]`;
      const shown = `\`${name}['${c}']\``;
      const kind = kindOf(s.dtypes?.[c]);
      if (kind)
        add(
          `${name}_${c}_dtype`,
          `${shown} is ${kind.words} column`,
          [`assert ${col}.dtype.kind in ${py(kind.test)}, str(${col}.dtype)`],
          1,
        );
      const missing = typeof s.missing === 'object' ? s.missing[c] : undefined;
      if (missing === 0)
        add(
          `${name}_${c}_complete`,
          `${shown} has no missing values`,
          [`assert ${col}.isna().sum() == 0, int(${col}.isna().sum())`],
          1,
        );
      const st = s.stats?.[c];
      if (st && st.infinite === 0 && kind?.test === 'f')
        add(
          `${name}_${c}_finite`,
          `${shown} has no infinite values`,
          [`assert not ${col}.isin([float('inf'), float('-inf')]).any()`],
          1,
        );
      if (st?.mean !== undefined && st.mean !== null && st.infinite === 0)
        add(
          `${name}_${c}_mean`,
          `the mean of ${shown} is about ${num(st.mean)} (±5%)`,
          [`assert jb.approx(${col}.mean(), ${num(st.mean)}, rel=${VALUE_TOLERANCE}), float(${col}.mean())`],
          3,
        );
    }
    return;
  }
  if (s.type === 'pandas.core.series.Series' && s.shape) {
    const kind = kindOf(s.dtype);
    if (kind)
      add(
        `${name}_dtype`,
        `${v} holds ${kind.words.replace(/^an? /, '')} values`,
        [`assert ${name}.dtype.kind in ${py(kind.test)}, str(${name}.dtype)`],
        1,
      );
    if (s.missing === 0)
      add(
        `${name}_complete`,
        `${v} has no missing values`,
        [`assert ${name}.isna().sum() == 0, int(${name}.isna().sum())`],
        1,
      );
    add(
      `${name}_length`,
      `${v} has about ${s.shape[0]} values (±1%)`,
      [`assert abs(len(${name}) - ${s.shape[0]}) <= max(1, ${ROWS_TOLERANCE} * ${s.shape[0]}), len(${name})`],
      2,
    );
    if (typeof s.mean === 'number' && s.infinite === 0)
      add(
        `${name}_mean`,
        `the mean of ${v} is about ${num(s.mean)} (±5%)`,
        [`assert jb.approx(${name}.mean(), ${num(s.mean)}, rel=${VALUE_TOLERANCE}), float(${name}.mean())`],
        3,
      );
    return;
  }
  if ((s.type === 'numpy.ndarray' || s.type === 'torch.Tensor') && s.shape) {
    planArrayChecks(name, s, add);
    return;
  }
  if (s.estimator) {
    const attr = s.fitted?.includes('n_features_in_') ? 'n_features_in_' : s.fitted?.[0];
    if (attr) add(`${name}_fitted`, `${v} is fitted`, [`assert hasattr(${name}, ${py(attr)})`], 1);
    if (s.nFeatures !== undefined)
      add(
        `${name}_features`,
        `${v} was fitted on ${s.nFeatures} features`,
        [`assert ${name}.n_features_in_ == ${s.nFeatures}, ${name}.n_features_in_`],
        2,
      );
    return;
  }
  if (s.module && s.parameters !== undefined) {
    add(
      `${name}_parameters`,
      `${v} has ${s.parameters} parameters`,
      [`assert sum(p.numel() for p in ${name}.parameters()) == ${s.parameters}`],
      2,
    );
    return;
  }
  if (s.params) {
    add(
      `${name}_params`,
      `${v} estimates ${s.params.length} parameters`,
      [`assert len(${name}.params) == ${s.params.length}, len(${name}.params)`],
      2,
    );
    if (typeof s.nobs === 'number')
      add(
        `${name}_nobs`,
        `${v} was fitted on about ${s.nobs} observations (±1%)`,
        [`assert abs(${name}.nobs - ${s.nobs}) <= max(1, ${ROWS_TOLERANCE} * ${s.nobs}), ${name}.nobs`],
        2,
      );
    return;
  }
  if ((s.type === 'list' || s.type === 'tuple') && s.length !== undefined) {
    add(`${name}_length`, `${v} has ${s.length} items`, [`assert len(${name}) == ${s.length}, len(${name})`], 2);
    if (typeof s.sum === 'number' && s.length > 0)
      add(
        `${name}_sum`,
        `the items of ${v} sum to about ${num(s.sum)} (±5%)`,
        [`assert jb.approx(sum(${name}), ${num(s.sum)}, rel=${VALUE_TOLERANCE}), sum(${name})`],
        3,
      );
    return;
  }
  if (s.type === 'dict' && s.keys) {
    add(
      `${name}_keys`,
      `${v} has the keys the fix gives it`,
      [`missing = set(${py(s.keys)}) - set(map(str, ${name}))`, 'assert not missing, sorted(missing)'],
      2,
    );
    return;
  }
  if (s.type === 'bool') {
    add(
      `${name}_value`,
      `${v} is ${s.value ? 'True' : 'False'}`,
      [`assert ${name} is ${s.value ? 'True' : 'False'}`],
      2,
    );
    return;
  }
  if ((s.type === 'int' || s.type === 'float' || s.type.startsWith('numpy.')) && typeof s.value === 'number') {
    add(
      `${name}_value`,
      `${v} is about ${num(s.value)} (±5%)`,
      [`assert jb.approx(${name}, ${num(s.value)}, rel=${VALUE_TOLERANCE}), ${name}`],
      3,
    );
  }
}

function planArrayChecks(name: string, s: NameSummary, add: Add): void {
  const v = `\`${name}\``;
  const shape = s.shape!;
  const torch = s.type === 'torch.Tensor';
  const kind = kindOf(s.dtype);
  if (torch && s.dtype)
    add(
      `${name}_dtype`,
      `${v} is a ${s.dtype} tensor`,
      [`assert str(${name}.dtype) == ${py(s.dtype)}, str(${name}.dtype)`],
      1,
    );
  else if (kind)
    add(
      `${name}_dtype`,
      `${v} holds ${kind.words.replace(/^an? /, '')} values`,
      [`assert ${name}.dtype.kind in ${py(kind.test)}, str(${name}.dtype)`],
      1,
    );
  if (shape.length > 1)
    add(
      `${name}_width`,
      `${v} has shape (…, ${shape.slice(1).join(', ')})`,
      [`assert tuple(${name}.shape[1:]) == ${tuplePy(shape.slice(1))}, tuple(${name}.shape)`],
      1,
    );
  if (shape.length > 0)
    add(
      `${name}_length`,
      `${v} has about ${shape[0]} rows (±1%)`,
      [`assert abs(${name}.shape[0] - ${shape[0]}) <= max(1, ${ROWS_TOLERANCE} * ${shape[0]}), tuple(${name}.shape)`],
      2,
    );
  if (kind?.test === 'f' && s.missing === 0 && s.infinite === 0) {
    const expr = torch ? `bool(${name}.isfinite().all())` : `bool(__import__('numpy').isfinite(${name}).all())`;
    add(`${name}_finite`, `${v} has no missing or infinite values`, [`assert ${expr}`], 1);
  }
  if (kind?.test === 'iu' && typeof s.sum === 'number')
    add(
      `${name}_total`,
      `the values of ${v} add up to ${num(s.sum)}`,
      [`assert int(${name}.sum()) == ${num(s.sum)}, int(${name}.sum())`],
      2,
    );
  if (typeof s.mean === 'number' && s.infinite === 0)
    add(
      `${name}_mean`,
      `the mean of ${v} is about ${num(s.mean)} (±5%)`,
      [`assert jb.approx(float(${name}.mean()), ${num(s.mean)}, rel=${VALUE_TOLERANCE}), float(${name}.mean())`],
      3,
    );
}

const tuplePy = (xs: readonly number[]) => (xs.length === 1 ? `(${xs[0]},)` : `(${xs.join(', ')})`);

function planFigureChecks(snapshot: RunSnapshot, add: Add): void {
  const seen = new Set<string>();
  for (const fig of snapshot.figures) {
    for (const ax of fig.axes) {
      const where = axesSelector(ax);
      if (!where || seen.has(where.call)) continue;
      seen.add(where.call);
      const sel = `ax in ${where.call}`;
      for (const n of [...new Set(ax.lines)].filter((n) => n > 0))
        add(
          `plot_${where.slug}_line_${n}`,
          `the plot ${where.words} has a line of ${n} points`,
          [`assert any(len(line.get_xdata()) == ${n} for ${sel} for line in ax.lines)`],
          2,
        );
      if (ax.patches > 0)
        add(
          `plot_${where.slug}_bars`,
          `the plot ${where.words} has bars`,
          [`assert any(len(ax.patches) > 0 for ${sel})`],
          1,
        );
      for (const n of [...new Set(ax.collections)].filter((n) => n > 0))
        add(
          `plot_${where.slug}_points_${n}`,
          `the plot ${where.words} has ${n} points`,
          [`assert any(len(c.get_offsets()) == ${n} for ${sel} for c in ax.collections)`],
          2,
        );
      if (ax.images > 0)
        add(
          `plot_${where.slug}_image`,
          `the plot ${where.words} shows an image`,
          [`assert any(len(ax.images) > 0 for ${sel})`],
          1,
        );
    }
  }
}

function axesSelector(ax: AxesSummary): { call: string; words: string; slug: string } | undefined {
  if (ax.title) return { call: `jb.axes(title=${py(ax.title)})`, words: `titled '${ax.title}'`, slug: ax.title };
  if (ax.xlabel)
    return { call: `jb.axes(xlabel=${py(ax.xlabel)})`, words: `with x label '${ax.xlabel}'`, slug: ax.xlabel };
  if (ax.ylabel)
    return { call: `jb.axes(ylabel=${py(ax.ylabel)})`, words: `with y label '${ax.ylabel}'`, slug: ax.ylabel };
  return undefined;
}

function planPrintedChecks(snapshot: RunSnapshot, add: Add): void {
  const from = snapshot.from ?? 0;
  const lines = snapshot.printed
    .filter((p) => p.position >= from)
    .flatMap((p) => p.text.split('\n'))
    .map((l) => l.trim())
    .filter((l) => l.length >= 3 && l.length <= 80);
  for (const line of [...new Set(lines)].slice(0, MAX_PRINTED))
    add(`printed_${line.slice(0, 30)}`, `the notebook prints "${line}"`, [`assert ${py(line)} in jb.printed()`], 4);
}

/** A one-line reason as the body of a triple-quoted docstring: backslashes and quotes escaped, newlines spaces. */
export function escapeDoc(reason: string): string {
  return reason.replace(/\s+/g, ' ').replace(/\\/g, '\\\\').replace(/"/g, '\\"');
}

/** checks.py holding the given checks, with a header saying where they come from. */
export function renderChecksFile(instance: string, checks: readonly CandidateCheck[], header?: string): string {
  const head =
    header ??
    `What a fix of ${instance} must achieve: checks run in the notebook's kernel after its last cell (docs/checks.md).\n\n` +
      `Suggested by \`junobench checks suggest ${instance}\` from what the fixed notebook produced from its crash cell on,\n` +
      'kept because together they reject every non-fix generated from the crashing notebook. Review them: a check must hold\n' +
      'for every correct fix (another API, another computation, other valid random numbers), not only for this one.';
  const parts = [`"""${head}\n"""\n`];
  for (const c of checks) {
    parts.push('', '', `def ${c.name}():`, `    """${escapeDoc(c.reason)}"""`, ...c.body.map((l) => `    ${l}`));
  }
  return `${parts.join('\n')}\n`;
}
