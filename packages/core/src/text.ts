// ANSI CSI/OSC sequences as Jupyter and IPython emit them in tracebacks.
// eslint-disable-next-line no-control-regex
const ANSI_RE = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]/g;

/** Remove ANSI escape sequences (colours, cursor moves) from terminal text. */
export function stripAnsi(text: string): string {
  return text.replace(ANSI_RE, '');
}

/** Levenshtein distance, for "did you mean" suggestions. */
export function editDistance(a: string, b: string): number {
  const m = a.length;
  const n = b.length;
  let prev = Array.from({ length: n + 1 }, (_, j) => j);
  for (let i = 1; i <= m; i++) {
    const cur = [i];
    for (let j = 1; j <= n; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
    }
    prev = cur;
  }
  return prev[n]!;
}

/**
 * The closest allowed value to a near miss (`API Misuse` → `API misuse`,
 * `tensor-shape mismatch` → `tensor shape mismatch`), or undefined when none is close.
 */
export function suggestClosest(value: string, allowed: readonly string[]): string | undefined {
  const norm = (s: string) =>
    s
      .toLowerCase()
      .replace(/[\s_-]+/g, ' ')
      .trim();
  const v = norm(value);
  const exactish = allowed.find((a) => norm(a) === v);
  if (exactish) return exactish;
  let best: string | undefined;
  let bestD = Infinity;
  for (const a of allowed) {
    const d = editDistance(v, norm(a));
    if (d < bestD) {
      bestD = d;
      best = a;
    }
  }
  return best !== undefined && bestD <= Math.max(2, Math.floor(v.length / 4)) ? best : undefined;
}
