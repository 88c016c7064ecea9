import type { ExpectedCrash } from '@junobench/core';
import { escapeRegExp } from './plan-data-paths.js';

/**
 * Messages a library words differently in another version, for the same
 * failure: the saved run's wording (`saved`) and the current one (`now`).
 * A run that raises the saved exception in the saved cell with the current
 * wording of the saved message reproduces the crash; the draft then matches
 * either wording.
 */
interface Rewording {
  library: string;
  what: string;
  saved: RegExp;
  now: RegExp;
  /**
   * Both wordings quote the same names (their groups, in order), which must then be equal: the match is on these two
   * messages exactly, not on the wording for any name.
   */
  sameNames?: boolean;
}

const REWORDINGS: readonly Rewording[] = [
  {
    library: 'numpy',
    what: 'a ragged nested sequence made into an array (an error since numpy 1.24, worded with the detected shape)',
    saved:
      /^(?:cannot copy sequence with size \d+ to array axis with dimension \d+|setting an array element with a sequence\.?)$/,
    now: /^setting an array element with a sequence\. The requested array has an inhomogeneous shape after \d+ dimensions?\. The detected shape was \([\d, ]*\) \+ inhomogeneous part\.$/,
  },
  {
    library: 'pandas',
    what: 'reindexing an axis with duplicate labels (pandas 1.3 words it so)',
    saved: /^cannot reindex from a duplicate axis$/,
    now: /^cannot reindex on an axis with duplicate labels$/,
  },
  {
    library: 'sklearn',
    what: 'a model given another number of features than it was fitted on (scikit-learn 0.24 words it so)',
    saved: /^X has \d+ features per sample; expecting \d+$/,
    now: /^X has \d+ features, but \w+ is expecting \d+ features as input\.$/,
  },
  {
    library: 'sklearn',
    what: "NaN in a model's input (scikit-learn 1.1 words it so, naming the input)",
    saved: /^Input contains NaN, infinity or a value too large for dtype\('float(?:64|32)'\)\.$/,
    now: /^Input (?:\w+ )?contains (?:NaN|infinity or a value too large for dtype\('float(?:64|32)'\))\.?/,
  },
  {
    library: 'matplotlib',
    what: "a property an artist does not have, given as a keyword (matplotlib 3.6 words it as set()'s keyword)",
    saved: /^'(\w+)' object has no property '(\w+)'$/,
    now: /^(\w+)\.set\(\) got an unexpected keyword argument '(\w+)'$/,
    sameNames: true,
  },
];

/**
 * Pure: the expected crash matched on either wording when the saved message
 * and the run's are one library's two wordings of the same failure; null
 * otherwise. The exception and the cell are the caller's to check.
 */
export function matchRewording(
  expected: ExpectedCrash,
  observed: string,
): { crash: ExpectedCrash; library: string; what: string } | null {
  if (expected.match === 'regex') return null;
  const saved = expected.evalue.trim();
  const seen = observed.trim();
  const wrapped = matchWrapped(expected, saved, seen);
  if (wrapped) return wrapped;
  const r = REWORDINGS.find(
    (x) => x.saved.test(saved) && x.now.test(seen) && (!x.sameNames || sameNames(x, saved, seen)),
  );
  if (!r) return null;
  const pattern = r.sameNames
    ? `(?:${escapeRegExp(saved)})|(?:${escapeRegExp(seen)})`
    : `(?:${r.saved.source.replace(/^\^|\$$/g, '')})|(?:${r.now.source.replace(/^\^|\$$/g, '')})`;
  return {
    crash: { ...expected, evalue: `^(?:${pattern})`, match: 'regex' },
    library: r.library,
    what: r.what,
  };
}

/**
 * Failures a newer library version reports inside a message of its own, the original quoted in its details:
 * scikit-learn's searches and cross-validation (error_score=nan since 0.22, then "All the N fits failed" since 1.0)
 * instead of raising the first fit's error itself.
 */
const WRAPPERS: readonly { library: string; what: string; head: RegExp }[] = [
  {
    library: 'sklearn',
    what: "every fit of a search or cross-validation failing (scikit-learn 1.0 reports it so, each fit's error in its details)",
    head: /^All the \d+ fits failed\./,
  },
];

function matchWrapped(
  expected: ExpectedCrash,
  saved: string,
  seen: string,
): { crash: ExpectedCrash; library: string; what: string } | null {
  const w = WRAPPERS.find((x) => x.head.test(seen));
  if (!w) return null;
  const ename = expected.ename.split('.').pop()!;
  const line = `${ename}: ${saved}`;
  if (!seen.split('\n').some((l) => l.trim() === line || l.trim().endsWith(`.${line}`))) return null;
  const quoted = escapeRegExp(saved);
  return {
    crash: {
      ...expected,
      evalue: `(?:^${quoted}$)|(?:^\\s*${w.head.source.slice(1)}.*\\n\\s*(?:[\\w.]+\\.)?${escapeRegExp(ename)}: ${quoted}\\s*(?:\\n|$))`,
      match: 'regex',
    },
    library: w.library,
    what: w.what,
  };
}

function sameNames(r: Rewording, saved: string, seen: string): boolean {
  const a = r.saved.exec(saved)!.slice(1);
  const b = r.now.exec(seen)!.slice(1);
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
