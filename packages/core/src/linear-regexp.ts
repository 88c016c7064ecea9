import { createRequire } from 'node:module';
import type { RE2JS as RE2JSClass } from 're2js';

// Loaded on first use: core is loaded by every command, even --help, and most never compile a pattern.
let engine: typeof RE2JSClass | undefined;
function re2(): typeof RE2JSClass {
  engine ??= (createRequire(import.meta.url)('re2js') as { RE2JS: typeof RE2JSClass }).RE2JS;
  return engine;
}

export interface LinearRegExp {
  test(text: string): boolean;
}

/**
 * A regular expression from untrusted input (a criteria file's `matches`, an
 * instance's `crash.evalue` with `match: regex`, a subsampling row filter, a
 * release's Croissant globs), on RE2 (the re2js port): matching time
 * is linear in the text whatever the pattern, so a crafted pattern or value
 * cannot hang the tool (`^(a+)+$` against "aaaa…!" takes hours on a
 * backtracking engine such as JavaScript's). The syntax is JavaScript's minus
 * what only backtracking can do — backreferences (`\1`) and lookarounds
 * (`(?=…)`, `(?!…)`, `(?<=…)`, `(?<!…)`) — which throw here with the reason.
 */
export function compileLinearRegExp(
  pattern: string,
  ignoreCase = false,
  options: { dotAll?: boolean } = {},
): LinearRegExp {
  const RE2JS = re2();
  const flags = (ignoreCase ? RE2JS.CASE_INSENSITIVE : 0) | (options.dotAll ? RE2JS.DOTALL : 0);
  const re = RE2JS.compile(RE2JS.translateRegExp(pattern), flags);
  return { test: (text) => re.test(text) };
}

/** Why a pattern cannot run on the linear-time engine, or undefined when it can. */
export function linearRegExpProblem(pattern: string): string | undefined {
  try {
    compileLinearRegExp(pattern);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}
