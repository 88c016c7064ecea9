// Reproduced vs fixed, cell by cell: which cells are the same, which changed
// (and how, line by line), which exist on one side only.

/** One notebook cell as the diff sees it. */
export interface DiffCell {
  kind: 'code' | 'markdown' | 'raw';
  source: string;
}

export type CellPairStatus = 'same' | 'changed' | 'removed' | 'added';

/** A row of the side-by-side view: `left` from reproduced, `right` from fixed (indices into each notebook's cells). */
export interface CellPair {
  status: CellPairStatus;
  left?: number;
  right?: number;
}

export type LineOp = { op: 'same' | 'del' | 'ins'; text: string };

/**
 * Align two notebooks' cells: a longest common subsequence of identical cells
 * anchors the alignment; between anchors, cells of the same kind are paired in
 * order as `changed`, and the rest are `removed` (reproduced only) or `added`
 * (fixed only). Pure and deterministic.
 */
export function planCellDiff(left: readonly DiffCell[], right: readonly DiffCell[]): CellPair[] {
  const key = (c: DiffCell) => `${c.kind}\u0000${normaliseSource(c.source)}`;
  // Notebooks of thousands of cells: no anchors, cells paired in order.
  const anchors =
    left.length * right.length > MAX_LCS_CELLS ? [] : longestCommonSubsequence(left.map(key), right.map(key));
  const rows: CellPair[] = [];
  let i = 0;
  let j = 0;
  const fillGap = (iEnd: number, jEnd: number) => {
    const ls = range(i, iEnd);
    const rs = range(j, jEnd);
    // Pair cells of the same kind in order; what cannot be paired stands alone.
    while (ls.length > 0 || rs.length > 0) {
      const l = ls[0];
      const r = rs[0];
      if (l !== undefined && r !== undefined && left[l]!.kind === right[r]!.kind) {
        rows.push({ status: 'changed', left: l, right: r });
        ls.shift();
        rs.shift();
      } else if (l !== undefined && (r === undefined || !rs.some((x) => right[x]!.kind === left[l]!.kind))) {
        rows.push({ status: 'removed', left: l });
        ls.shift();
      } else {
        rows.push({ status: 'added', right: r! });
        rs.shift();
      }
    }
  };
  for (const [ai, aj] of anchors) {
    fillGap(ai, aj);
    rows.push({ status: 'same', left: ai, right: aj });
    i = ai + 1;
    j = aj + 1;
  }
  fillGap(left.length, right.length);
  return rows;
}

/** Line diff of two texts (LCS): what to strike on the left and mark on the right. */
export function diffLines(a: string, b: string): LineOp[] {
  const al = splitLines(a);
  const bl = splitLines(b);
  // Very long cells: the quadratic table is not worth it; show a whole replacement.
  if (al.length * bl.length > MAX_LCS_CELLS) {
    return [...al.map((text) => ({ op: 'del' as const, text })), ...bl.map((text) => ({ op: 'ins' as const, text }))];
  }
  const ops: LineOp[] = [];
  let i = 0;
  let j = 0;
  for (const [ai, bj] of longestCommonSubsequence(al, bl)) {
    while (i < ai) ops.push({ op: 'del', text: al[i++]! });
    while (j < bj) ops.push({ op: 'ins', text: bl[j++]! });
    ops.push({ op: 'same', text: al[i]! });
    i++;
    j++;
  }
  while (i < al.length) ops.push({ op: 'del', text: al[i++]! });
  while (j < bl.length) ops.push({ op: 'ins', text: bl[j++]! });
  return ops;
}

const MAX_LCS_CELLS = 4_000_000;

export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

// Trailing whitespace and a final newline are not a change anyone means.
function normaliseSource(s: string): string {
  return splitLines(s)
    .map((l) => l.replace(/\s+$/, ''))
    .join('\n')
    .replace(/\n+$/, '');
}

function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from) }, (_, k) => from + k);
}

/** Index pairs of a longest common subsequence, in order (ties broken towards earlier matches in `a`). */
function longestCommonSubsequence(a: readonly string[], b: readonly string[]): [number, number][] {
  const n = a.length;
  const m = b.length;
  // suffix[i][j] = LCS length of a[i:] and b[j:], in one flat array.
  const w = m + 1;
  const suffix = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      suffix[i * w + j] =
        a[i] === b[j] ? suffix[(i + 1) * w + j + 1]! + 1 : Math.max(suffix[(i + 1) * w + j]!, suffix[i * w + j + 1]!);
    }
  }
  const pairs: [number, number][] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      pairs.push([i, j]);
      i++;
      j++;
    } else if (suffix[(i + 1) * w + j]! >= suffix[i * w + j + 1]!) i++;
    else j++;
  }
  return pairs;
}

/**
 * The aligned pairs (indices into `pairs`) whose cells run in a different
 * order in the two notebooks: out-of-order crashes are fixed by the order
 * alone, with every source the same. `leftRun`/`rightRun` give each cell's
 * position in its notebook's run (cells missing never run). Ranks are taken
 * among the cells both notebooks have, so an added cell does not make every
 * later cell look moved.
 */
export function findReorderedPairs(
  pairs: readonly CellPair[],
  leftRun: ReadonlyMap<number, number>,
  rightRun: ReadonlyMap<number, number>,
): Set<number> {
  const matched = pairs.flatMap((p, i) =>
    p.left !== undefined && p.right !== undefined ? [{ i, l: p.left, r: p.right }] : [],
  );
  const ranks = (side: 'l' | 'r', run: ReadonlyMap<number, number>) =>
    new Map(
      matched
        .filter((x) => run.has(x[side]))
        .sort((a, b) => run.get(a[side])! - run.get(b[side])!)
        .map((x, rank) => [x.i, rank]),
    );
  const lr = ranks('l', leftRun);
  const rr = ranks('r', rightRun);
  return new Set(matched.filter((x) => lr.get(x.i) !== rr.get(x.i)).map((x) => x.i));
}
