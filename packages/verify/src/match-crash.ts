import { compileLinearRegExp, type ExpectedCrash } from '@junobench/core';
import { normalizeEname } from '@junobench/notebook';

export interface ObservedError {
  ename: string;
  evalue: string;
  cell: number;
}

export interface CrashMatch {
  matches: boolean;
  /** What differs, in words, for the report. Empty when it matches. */
  differences: string[];
}

/**
 * Does an observed error match the labelled crash? `ename` must be equal up to
 * module prefixes; `evalue` is compared by `match`: `exact` (equal, ignoring
 * surrounding whitespace), `prefix` (starts with), `regex` (a regular
 * expression searched in the message, like pytest's `match=`, without
 * backreferences or lookarounds: it runs in linear time); and the
 * error must happen in the labelled code cell.
 */
export function matchExpectedCrash(expected: ExpectedCrash, observed: ObservedError): CrashMatch {
  const differences: string[] = [];
  const en = normalizeEname(expected.ename);
  const on = normalizeEname(observed.ename);
  if (en !== on) differences.push(`exception ${on} instead of ${en}`);
  if (!evalueMatches(expected, observed.evalue)) {
    differences.push(
      `message ${JSON.stringify(shorten(observed.evalue))} does not match ${expected.match} ${JSON.stringify(shorten(expected.evalue))}`,
    );
  }
  if (observed.cell !== expected.cell)
    differences.push(`raised in code cell ${observed.cell} instead of ${expected.cell}`);
  return { matches: differences.length === 0, differences };
}

export function evalueMatches(expected: Pick<ExpectedCrash, 'evalue' | 'match'>, evalue: string): boolean {
  switch (expected.match) {
    case 'exact':
      return evalue.trim() === expected.evalue.trim();
    case 'prefix':
      return evalue.trimStart().startsWith(expected.evalue.trimStart());
    case 'regex':
      // On the linear-time engine: the instance chooses the pattern and the notebook the message, and a
      // backtracking pattern (`^(\D+)+Z`) on a long message would block the whole run for hours.
      return compileLinearRegExp(expected.evalue, false, { dotAll: true }).test(evalue);
  }
}

function shorten(text: string, max = 120): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
