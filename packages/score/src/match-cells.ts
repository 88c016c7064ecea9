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

/** Cells at least this similar (token LCS ratio) can be the same cell, edited. */
export const CELL_MATCH_THRESHOLD = 0.5;

/**
 * Similarity of two token sequences: 2·LCS / (|a| + |b|), the ratio difflib
 * uses, in [0, 1]. 1 for identical sequences (and for two empty ones).
 */
export function cellSimilarity(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 && b.length === 0) return 1;
  if (a.length === 0 || b.length === 0) return 0;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  let prev = new Array<number>(short.length + 1).fill(0);
  let cur = new Array<number>(short.length + 1).fill(0);
  for (let i = 1; i <= long.length; i++) {
    const x = long[i - 1];
    for (let j = 1; j <= short.length; j++) {
      cur[j] = x === short[j - 1] ? prev[j - 1]! + 1 : Math.max(prev[j]!, cur[j - 1]!);
    }
    [prev, cur] = [cur, prev];
  }
  return (2 * prev[short.length]!) / (a.length + b.length);
}

export interface CellMatching {
  /** For each original cell: the index of its counterpart among the other cells, or null. */
  counterpart: (number | null)[];
  /** For each original cell: the similarity to its counterpart (0 when none). */
  similarity: number[];
}

/**
 * Match each cell of `original` to at most one cell of `other`, one to one:
 * identical cells first (in order), then the remaining pairs from the most
 * similar down, as long as they reach `threshold`; ties go to the pair whose
 * positions are closest, then to the earlier cells. Cells may move: the
 * matching does not need to keep their order. Empty cells match nothing.
 */
export function matchCells(original: readonly string[][], other: readonly string[][], threshold = CELL_MATCH_THRESHOLD): CellMatching {
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
    // The identical cell nearest to the same position (several identical cells keep their order).
    let best = 0;
    for (let k = 1; k < list.length; k++) if (Math.abs(list[k]! - i) < Math.abs(list[best]! - i)) best = k;
    const j = list.splice(best, 1)[0]!;
    counterpart[i] = j;
    similarity[i] = 1;
    taken.add(j);
  });

  const pairs: { i: number; j: number; s: number }[] = [];
  original.forEach((a, i) => {
    if (counterpart[i] !== null || isEmptyCell(a)) return;
    other.forEach((b, j) => {
      if (taken.has(j) || isEmptyCell(b)) return;
      // 2·min/(|a|+|b|) bounds the ratio from above: skip pairs that cannot reach the threshold.
      if ((2 * Math.min(a.length, b.length)) / (a.length + b.length) < threshold) return;
      const s = cellSimilarity(a, b);
      if (s >= threshold) pairs.push({ i, j, s });
    });
  });
  pairs.sort((p, q) => q.s - p.s || Math.abs(p.i - p.j) - Math.abs(q.i - q.j) || p.i - q.i || p.j - q.j);
  for (const p of pairs) {
    if (counterpart[p.i] !== null || taken.has(p.j)) continue;
    counterpart[p.i] = p.j;
    similarity[p.i] = p.s;
    taken.add(p.j);
  }
  return { counterpart, similarity };
}

/** Whether the cell holds comments (used to say "commented out" rather than "emptied"). */
export function hasComments(source: string): boolean {
  return tokenizePython(source).some((t) => t.kind === 'comment');
}
