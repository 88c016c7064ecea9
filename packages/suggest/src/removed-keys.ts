/**
 * Whether a piece of notebook code removes or renames the column or key
 * `key`: a `.drop(…)`/`.pop(…)` naming it, `del x['key']`, a `rename` mapping
 * it away, or `get_dummies(…)` encoding it into other columns. Pure.
 */
export function removesKey(source: string, key: string): boolean {
  const k = escapeRegExp(key);
  return new RegExp(
    `\\.(?:drop|pop)\\([^)]*['"]${k}['"]|del\\s+\\w+\\[['"]${k}['"]\\]|rename\\([^)]*['"]${k}['"]\\s*:|get_dummies\\([^)]*['"]${k}['"]`,
  ).test(source);
}

/** The quoted keys a KeyError (or a "not found"/"not in index" message) names. */
export function quotedKeys(message: string): string[] {
  return [...message.matchAll(/'([^'\n]+)'/g), ...message.matchAll(/"([^"\n]+)"/g)]
    .map((m) => m[1]!)
    .filter((k) => k.length < 80 && !/[[\]]/.test(k));
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
