import type { ExpectedCrash } from '@junobench/core';
import { parseTraceback, type ParsedTraceback } from '@junobench/notebook';
import { escapeRegExp } from './plan-data-paths.js';

/** A run's crash as the runtime reports it (the traceback without ANSI escapes). */
export interface SiteObservation {
  ename: string;
  evalue: string;
  cell: number;
  traceback?: readonly string[];
}

export interface SameFailureSite {
  crash: ExpectedCrash;
  /** Top-level package whose code raised, in both runs. */
  library: string;
  /** The notebook's statement that called into it, as both tracebacks show it. */
  statement: string;
}

/** Shared words of two messages, over the words of the shorter one, at or above which they say the same thing. */
const MIN_SHARED = 0.6;

/**
 * Pure: the expected crash matched on either wording when the run raised the saved exception in the saved cell from
 * the same place as the saved run — the same statement of the notebook (as both tracebacks show it), the same
 * library's code raising — and only the message's wording differs, as it does between versions of that library
 * (`… you passed a [int64]` in pandas 0.2x, `… you passed a [int]` now; seaborn's "Could not interpret value `x` for
 * …" and "Could not interpret input 'x'").
 *
 * What keeps another failure out (synthetic data short of another column, another value): the messages must share
 * most of their words (at least {@link MIN_SHARED} of the shorter one's), and every quoted name or value of the
 * shorter one must appear in the other, so `KeyError: 'Gender'` is never `KeyError: 'Age'`. Null when a traceback
 * is missing or shows no library frame (a crash raised by Python itself is worded by Python, not a library), when
 * the statements or the libraries differ, or when the messages do not say the same thing.
 *
 * `saved` is the saved message as saved; `expected.evalue` may already be a pattern made from it (numbers of
 * synthetic data generalised), and the saved side of the match keeps that pattern.
 */
export function matchSameFailureSite(
  expected: ExpectedCrash,
  saved: { evalue: string; traceback: readonly string[] },
  observed: SiteObservation,
): SameFailureSite | null {
  if (observed.ename.split('.').pop() !== expected.ename || observed.cell !== expected.cell) return null;
  if (!observed.traceback || observed.traceback.length === 0 || saved.traceback.length === 0) return null;
  const before = parseTraceback(saved.traceback);
  const now = parseTraceback(observed.traceback);
  const statement = crashingStatement(before);
  if (statement === undefined || statement !== crashingStatement(now)) return null;
  const library = raisingLibrary(before);
  if (library === undefined || library !== raisingLibrary(now)) return null;
  if (!sayTheSame(saved.evalue, observed.evalue)) return null;
  const savedSide =
    expected.match === 'regex'
      ? expected.evalue.replace(/^\^/, '').replace(/\$$/, '')
      : expected.match === 'prefix'
        ? `${escapeRegExp(expected.evalue)}[\\s\\S]*`
        : escapeRegExp(expected.evalue);
  return {
    crash: { ...expected, evalue: `^(?:${savedSide}|${escapeRegExp(observed.evalue)})$`, match: 'regex' },
    library,
    statement: statement.length > 120 ? `${statement.slice(0, 117)}…` : statement,
  };
}

/** The notebook's own statement the exception came through: the deepest cell frame's marked line, spaces squeezed. */
function crashingStatement(t: ParsedTraceback): string | undefined {
  const code = t.userFrame?.code?.replace(/\s+/g, ' ').trim();
  return code && code.length >= 3 ? code : undefined;
}

/** The top-level package of the deepest library frame: whose code raised (pandas, seaborn, sklearn …). */
function raisingLibrary(t: ParsedTraceback): string | undefined {
  return [...t.frames].reverse().find((f) => f.kind === 'library' && f.package)?.package;
}

const QUOTED = /'([^'\n]+)'|"([^"\n]+)"|`([^`\n]+)`/g;

function words(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[a-z][a-z0-9_]+/g) ?? []);
}

function quoted(text: string): string[] {
  return [...text.matchAll(QUOTED)].map((m) => (m[1] ?? m[2] ?? m[3])!);
}

function sayTheSame(a: string, b: string): boolean {
  const [wa, wb] = [words(a), words(b)];
  const [short, long, shortText, longText] = wa.size <= wb.size ? [wa, wb, a, b] : [wb, wa, b, a];
  if (short.size < 2) return false;
  const shared = [...short].filter((w) => long.has(w)).length;
  if (shared / short.size < MIN_SHARED) return false;
  return quoted(shortText).every((q) => longText.includes(q));
}
