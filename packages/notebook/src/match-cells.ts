import { significantTokens, tokenizePython } from './python-tokens.js';

/**
 * Cells are compared on their meaningful tokens: comments, blank lines,
 * indentation and line breaks do not count, so re-indenting or commenting a
 * cell does not change what it is, and commenting it out leaves nothing.
 */
export function normalizeCell(source: string): string[] {
  return significantTokens(source).map((t) => t.text);
}

/** Statements that do nothing: a cell made only of these is as good as empty. */
const NO_OP_TOKENS = new Set(['pass', '...', ';']);

/** A cell with no code left once comments, whitespace and `pass` are removed. */
export function isEmptyCell(tokens: readonly string[]): boolean {
  return tokens.every((t) => NO_OP_TOKENS.has(t));
}

/**
 * A cell of the crashing notebook is still there when a cell of the repair
 * keeps at least this share of its tokens, in order (LCS / its length): an
 * edited cell that gained lines keeps its code; a cell replaced by other
 * code, commented out or turned into a string does not.
 */
export const CELL_MATCH_THRESHOLD = 0.5;

/** Length of the longest common subsequence of two token sequences. */
export function longestCommonSubsequence(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 || b.length === 0) return 0;
  const [short, all] = a.length <= b.length ? [a, b] : [b, a];
  // A token the shorter sequence lacks cannot be in a common subsequence: dropping it keeps the LCS exact and
  // makes a long cell of unrelated code cheap to compare.
  const inShort = new Set(short);
  const long = all.filter((t) => inShort.has(t));
  let prev = new Array<number>(short.length + 1).fill(0);
  let cur = new Array<number>(short.length + 1).fill(0);
  for (let i = 1; i <= long.length; i++) {
    const x = long[i - 1];
    for (let j = 1; j <= short.length; j++) {
      cur[j] = x === short[j - 1] ? prev[j - 1]! + 1 : Math.max(prev[j]!, cur[j - 1]!);
    }
    [prev, cur] = [cur, prev];
  }
  return prev[short.length]!;
}

/**
 * Similarity of two token sequences: 2·LCS / (|a| + |b|), the ratio difflib
 * uses, in [0, 1]. 1 for identical sequences (and for two empty ones).
 */
export function cellSimilarity(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 && b.length === 0) return 1;
  return (2 * longestCommonSubsequence(a, b)) / (a.length + b.length);
}

/** The share of `original`'s tokens that `other` keeps, in order: LCS / |original| (1 for an empty original). */
export function cellContainment(original: readonly string[], other: readonly string[]): number {
  if (original.length === 0) return 1;
  return longestCommonSubsequence(original, other) / original.length;
}

export interface CellMatching {
  /** For each original cell: the index of its counterpart among the other cells, or null. */
  counterpart: (number | null)[];
  /** For each original cell: the share of its tokens its counterpart keeps (0 when none). */
  similarity: number[];
}

/**
 * Match each cell of `original` to at most one cell of `other`, one to one:
 * identical cells first (the nearest one when there are several), then the
 * remaining pairs from the one keeping most of the original cell's tokens
 * (cellContainment) down, as long as it reaches `threshold`; ties go to the
 * more similar pair overall, then to the closest positions, then to the
 * earlier cells. Cells may move: the matching does not need to keep their
 * order. Empty cells match nothing.
 */
export function matchCells(
  original: readonly string[][],
  other: readonly string[][],
  threshold = CELL_MATCH_THRESHOLD,
): CellMatching {
  const counterpart: (number | null)[] = original.map(() => null);
  const similarity: number[] = original.map(() => 0);
  const taken = new Set<number>();
  const key = (t: readonly string[]) => t.join('\u0000');

  const byKey = new Map<string, number[]>();
  other.forEach((t, j) => {
    if (isEmptyCell(t)) return;
    const list = byKey.get(key(t)) ?? [];
    list.push(j);
    byKey.set(key(t), list);
  });
  original.forEach((t, i) => {
    if (isEmptyCell(t)) return;
    const list = byKey.get(key(t));
    if (!list || list.length === 0) return;
    let best = 0;
    for (let k = 1; k < list.length; k++) if (Math.abs(list[k]! - i) < Math.abs(list[best]! - i)) best = k;
    const j = list.splice(best, 1)[0]!;
    counterpart[i] = j;
    similarity[i] = 1;
    taken.add(j);
  });

  const pairs: { i: number; j: number; kept: number; ratio: number }[] = [];
  original.forEach((a, i) => {
    if (counterpart[i] !== null || isEmptyCell(a)) return;
    other.forEach((b, j) => {
      if (taken.has(j) || isEmptyCell(b)) return;
      // |b| / |a| bounds the share kept from above: skip pairs that cannot reach the threshold.
      if (b.length < threshold * a.length) return;
      const lcs = longestCommonSubsequence(a, b);
      const kept = lcs / a.length;
      if (kept >= threshold) pairs.push({ i, j, kept, ratio: (2 * lcs) / (a.length + b.length) });
    });
  });
  pairs.sort(
    (p, q) =>
      q.kept - p.kept || q.ratio - p.ratio || Math.abs(p.i - p.j) - Math.abs(q.i - q.j) || p.i - q.i || p.j - q.j,
  );
  for (const p of pairs) {
    if (counterpart[p.i] !== null || taken.has(p.j)) continue;
    counterpart[p.i] = p.j;
    similarity[p.i] = p.kept;
    taken.add(p.j);
  }
  return { counterpart, similarity };
}

/** Whether the cell holds comments (used to say "commented out" rather than "emptied"). */
export function hasComments(source: string): boolean {
  return tokenizePython(source).some((t) => t.kind === 'comment');
}
