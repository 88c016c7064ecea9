import path from 'node:path';
import { InvalidArgumentError } from 'commander';

/** A plain-text table with aligned columns (no colours: it must read well in CI logs too). */
export function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

export function parsePositiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0)
    throw new InvalidArgumentError(`expected a positive whole number, got "${value}"`);
  return n;
}

/** A time limit in seconds: at most a day, the cap instance.json, tasks and queue jobs have too. */
export const MAX_TIME_LIMIT_SECONDS = 86_400;

// The default time limits the help of verify and score shows, copied from @junobench/notebook with its literal
// types (the CLI loads it only in actions): the type check fails when the two drift.
export const DEFAULT_CELL_TIMEOUT_SECONDS: (typeof import('@junobench/notebook'))['DEFAULT_CELL_TIMEOUT_SECONDS'] = 120;
export const DEFAULT_TIMEOUT_SECONDS: (typeof import('@junobench/notebook'))['DEFAULT_TIMEOUT_SECONDS'] = 600;

export function parseSeconds(value: string): number {
  const n = parsePositiveInt(value);
  if (n > MAX_TIME_LIMIT_SECONDS)
    throw new InvalidArgumentError(`expected at most ${MAX_TIME_LIMIT_SECONDS} seconds (a day), got "${value}"`);
  return n;
}

export function parsePositiveNumber(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`expected a positive number, got "${value}"`);
  return n;
}

/** A path as the user would type it: relative to `cwd` when it is inside it, else as it is. */
export function showPath(cwd: string, p: string): string {
  const rel = path.relative(cwd, p);
  return rel === '' || rel.startsWith('..') || path.isAbsolute(rel) ? p : rel;
}

/**
 * Text that comes from notebooks, repairs or downloaded files (a reason, an exception message, a warning), as one
 * line on a terminal: line breaks, carriage returns, escape sequences and other control characters are shown
 * escaped (`\n`, `\r`, `\x1b`), so an exception message cannot print a line of its own (a fake `9/9 verified` above
 * the real summary), move the cursor or recolour the screen.
 */
export function printable(text: string): string {
  // Matching control characters is the point of this expression.
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => {
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    const code = c.charCodeAt(0);
    return code > 0xff ? `\\u${code.toString(16)}` : `\\x${code.toString(16).padStart(2, '0')}`;
  });
}
