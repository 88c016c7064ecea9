import { compareCodePoints } from '@junobench/core';

/** Folder names that hold a notebook's inputs: a path is kept from below the last one. */
const ANCHORS = new Set(['data', 'input', 'inputs', 'dataset', 'datasets', 'raw', 'files']);

/** Whether a path is one a draft cannot satisfy as written: it leaves the instance folder, or is absolute. */
export function isForeignPath(p: string): boolean {
  return (
    p.startsWith('../') ||
    p.startsWith('..\\') ||
    p.startsWith('/') ||
    p.startsWith('~') ||
    /^[A-Za-z]:[\\/]/.test(p) ||
    p.startsWith('\\\\')
  );
}

export function isUrl(p: string): boolean {
  return /^(?:https?|ftp):\/\//i.test(p);
}

/**
 * Pure: where a path the notebook reads lives in the draft: always under
 * `data/`. `../data/x`, `../input/x`, `/home/u/proj/data/x`, `C:\Users\u\x`
 * and `~/x` keep what follows the last folder named data, input, dataset(s)
 * (else the file name); a relative path already under `data/` stays; any
 * other relative path moves under `data/`. Returns null for a URL or an
 * empty path.
 */
export function mapDataPath(p: string): string | null {
  if (p === '' || isUrl(p)) return null;
  const norm = p.replace(/\\/g, '/').replace(/\/+/g, '/');
  const trailing = norm.endsWith('/') ? '/' : '';
  const segs = norm.split('/').filter((s) => s !== '' && s !== '.');
  if (segs[0] === 'data' && !isForeignPath(norm)) return `${segs.join('/')}${trailing}`;
  if (!isForeignPath(norm)) return `data/${segs.join('/')}${trailing}`;
  const clean = segs.filter((s) => s !== '..' && s !== '~' && !/^[A-Za-z]:$/.test(s));
  let cut = -1;
  for (let i = 0; i < clean.length; i++) if (ANCHORS.has(clean[i]!.toLowerCase())) cut = i;
  // /kaggle/input/<dataset>/… and Colab's /content/drive/MyDrive/…: the dataset folder or file follows.
  const rest = cut >= 0 ? clean.slice(cut + 1) : clean.slice(-1);
  if (rest.length === 0) return `data${trailing}`;
  return `data/${rest.join('/')}${trailing}`;
}

export interface LiteralRewrite {
  from: string;
  to: string;
}

/**
 * Pure: the string literals to rewrite so that every read path points into
 * `data/`. A literal that is a whole read path maps as `mapDataPath` says; a
 * literal that is the folder part of a read path (`PATH = '../input/'` then
 * `PATH + 'train.csv'`) maps to the folder its read paths map to. `chosen`
 * overrides the mapping of a read path (a file found elsewhere in data/).
 */
export function planLiteralRewrites(
  literals: readonly string[],
  readPaths: readonly string[],
  chosen: ReadonlyMap<string, string> = new Map(),
): LiteralRewrite[] {
  const out = new Map<string, string>();
  const target = (p: string) => chosen.get(p) ?? mapDataPath(p);
  for (const lit of new Set(literals)) {
    if (isUrl(lit) || lit.trim() === '') continue;
    for (const p of readPaths) {
      if (isUrl(p)) continue;
      const to = target(p);
      if (to === null) continue;
      if (lit === p) {
        if (to !== lit) out.set(lit, to);
        break;
      }
      if (p.startsWith(lit) && isForeignPath(lit)) {
        // The folder part: what the read path maps to, less what follows the literal in it.
        const tail = p.slice(lit.length);
        if (to.endsWith(tail)) {
          const head = to.slice(0, to.length - tail.length);
          if (head !== lit && head !== '') out.set(lit, head === 'data' && lit.endsWith('/') ? 'data/' : head);
          break;
        }
      }
    }
  }
  return [...out]
    .map(([from, to]) => ({ from, to }))
    .sort((a, b) => b.from.length - a.from.length || compareCodePoints(a.from, b.from));
}

/**
 * Pure: a cell's source with string literals replaced, as written in either
 * quote style (raw strings and doubled backslashes included). Returns the
 * source and the rewrites that applied.
 */
export function applyLiteralRewrites(
  source: string,
  rewrites: readonly LiteralRewrite[],
): { source: string; applied: LiteralRewrite[] } {
  let out = source;
  const applied: LiteralRewrite[] = [];
  for (const r of rewrites) {
    const forms = new Set([r.from, r.from.replace(/\\/g, '\\\\')]);
    let hit = false;
    for (const form of forms) {
      for (const q of ["'", '"']) {
        const needle = `${q}${form}${q}`;
        if (out.includes(needle)) {
          out = out.split(needle).join(`${q}${r.to}${q}`);
          hit = true;
        }
        // f-strings and concatenations keep the folder as the start of a longer literal: f'{base}x' is not touched.
        const open = new RegExp(`([rRbBuU]?)${escapeRegExp(q + form)}(?=[^${q}\\n]*${q})`, 'g');
        if (!hit && isFolder(r.from) && open.test(out)) {
          out = out.replace(open, (_m, prefix: string) => `${prefix}${q}${r.to}`);
          hit = true;
        }
      }
    }
    if (hit) applied.push(r);
  }
  return { source: out, applied };
}

function isFolder(p: string): boolean {
  return p.endsWith('/') || p.endsWith('\\');
}

export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Pure: the dataset fetcher called on `line` (1-based) of `source` (`sns.load_dataset('tips')`) given
 * `data_home='<folder>'`, where seaborn looks for its cached copy before it downloads. Undefined when the call does
 * not open and close on that line.
 */
export function pointFetcherAt(
  source: string,
  line: number,
  folder: string,
): { source: string; from: string; to: string } | undefined {
  const lines = source.split('\n');
  const text = lines[line - 1];
  const m = text === undefined ? null : /((?:[A-Za-z_][\w.]*\.)?load_dataset)\s*\(/.exec(text);
  if (!text || !m) return undefined;
  const open = m.index + m[0].length - 1;
  let depth = 0;
  let quote: string | undefined;
  for (let i = open; i < text.length; i++) {
    const ch = text[i]!;
    if (quote) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = undefined;
    } else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === '(') depth++;
    else if (ch === ')' && --depth === 0) {
      const inner = text.slice(open + 1, i).trimEnd();
      const to = `${text.slice(m.index, open + 1)}${inner}${inner.endsWith(',') ? ' ' : ', '}data_home='${folder.replace(/[\\']/g, '\\$&')}')`;
      lines[line - 1] = text.slice(0, m.index) + to + text.slice(i + 1);
      return { source: lines.join('\n'), from: text.slice(m.index, i + 1), to };
    }
  }
  return undefined;
}
