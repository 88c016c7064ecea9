/**
 * How deep parsed JSON may nest before it is refused. Real notebooks,
 * records and predictions nest a few levels (a notebook's outputs about 6);
 * a crafted document nested thousands of levels deep is valid JSON that
 * JSON.parse accepts, but every recursive consumer after it — key sorting
 * for hashes, JSON.stringify, Python's `json` in the runner — overflows its
 * stack and dies with an internal error instead of a clear refusal.
 */
export const MAX_JSON_DEPTH = 100;

/**
 * The first place where `value` nests deeper than `max` levels (the path,
 * `metadata.deep.a.a…`, cut to its first segments), or undefined when it
 * does not. Iterative, so it cannot overflow the stack it protects.
 */
export function findTooDeep(value: unknown, max = MAX_JSON_DEPTH): { path: string; depth: number } | undefined {
  interface Step {
    v: unknown;
    depth: number;
    key?: string;
    parent?: Step;
  }
  const stack: Step[] = [{ v: value, depth: 0 }];
  while (stack.length > 0) {
    const step = stack.pop()!;
    const { v, depth } = step;
    if (v === null || typeof v !== 'object') continue;
    if (depth >= max) {
      const keys: string[] = [];
      for (let s: Step | undefined = step; s?.key !== undefined; s = s.parent) keys.unshift(s.key);
      const shown = keys.length > 8 ? [...keys.slice(0, 6), '…', keys[keys.length - 1]!] : keys;
      return { path: shown.join('.'), depth: depth + 1 };
    }
    const entries: Array<[string, unknown]> = Array.isArray(v) ? v.map((x, i) => [String(i), x]) : Object.entries(v);
    for (let i = entries.length - 1; i >= 0; i--)
      stack.push({ v: entries[i]![1], depth: depth + 1, key: entries[i]![0], parent: step });
  }
  return undefined;
}
