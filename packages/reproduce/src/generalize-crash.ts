import type { ExpectedCrash } from '@junobench/core';
import { escapeRegExp } from './plan-data-paths.js';

// `[   0 2600]`, `[ 365000.  865000. ...  410000.]`, `[1.5, nan]`: an array printed in a message holds the data's values.
const NUMBER_LIST = /\[(?=[^\]]*\d)(?:\s|,|\.\.\.|-?\d+\.?\d*(?:e[+-]?\d+)?|nan|inf)+\]/;

/**
 * Pure: the expected crash with the numbers that come from the data's size
 * (shapes, row and sample counts, indices, lengths) generalised to `\d+`,
 * for a draft whose data is synthetic or subsampled, where those numbers
 * differ from the saved run's. Quoted text (column names, values) and the
 * axis or dimension a message names stay literal; so do the exception and
 * the cell. Returns null when the message has no such number.
 */
export function generalizeSizeNumbers(crash: ExpectedCrash): ExpectedCrash | null {
  if (crash.match === 'regex') return null;
  const text = crash.evalue;
  const parts: string[] = [];
  let changed = false;
  // Tokens: quoted strings (kept), a printed array of numbers (the data's values: any), numbers (maybe
  // generalised), anything else.
  const re = new RegExp(`'[^'\\n]*'|"[^"\\n]*"|${NUMBER_LIST.source}|\\d+|[^'"\\d[]+|['"[]`, 'g');
  let prev = '';
  for (const m of text.matchAll(re)) {
    const t = m[0];
    if (t.startsWith('[') && t.length > 1) {
      parts.push('\\[[^\\]]*\\]');
      changed = true;
    } else if (
      /^\d+$/.test(t) &&
      !/(?:axis|dimension|dim|base|version|python|line)\s*$/i.test(prev) &&
      !/[.\d]$/.test(prev)
    ) {
      parts.push('\\d+');
      changed = true;
    } else parts.push(escapeRegExp(t));
    prev = t;
  }
  if (!changed) return null;
  const body = parts.join('');
  return { ...crash, evalue: crash.match === 'prefix' ? `^${body}` : `^${body}$`, match: 'regex' };
}

/**
 * Pure: the expected crash matched on its words rather than its exact text, when a run raised the same exception in
 * the same cell with a message that holds every word of the saved one in order and adds a little (a newer version of
 * a library words it with more detail: `Length of values (4) does not match length of index (8)` for `Length of
 * values does not match length of index`). Null when the saved message is too short to say much (a KeyError's key),
 * when a word is missing or out of order, or when the run's message adds more than the saved one holds. A saved
 * message that is the first line of the run's is matched as a prefix.
 */
export function relaxMessageWording(expected: ExpectedCrash, observed: string): ExpectedCrash | null {
  if (expected.match === 'regex') return null;
  const saved = expected.evalue.trim();
  // The saved message is the first line of the run's (a newer library adds advice below it).
  if (!saved.includes('\n') && observed.includes('\n') && observed.split('\n')[0]!.trim() === saved)
    return { ...expected, evalue: saved, match: 'prefix' };
  const words = saved.split(/\s+/).filter(Boolean);
  if (words.length < 4 || observed === expected.evalue) return null;
  const pattern = `^${words.map(escapeRegExp).join('[\\s\\S]*?')}`;
  const m = new RegExp(pattern).exec(observed.trim());
  if (!m) return null;
  const added = observed.trim().length - saved.length;
  if (added <= 0 || added > saved.length) return null;
  return { ...expected, evalue: pattern, match: 'regex' };
}

/** Words whose absence changes what a message says: never the one a wording may drop. */
const MEANINGFUL = /^(?:not|no|never|cannot|can't|non|without|only|must|except)$/i;

/**
 * Pure: the expected crash matched on its words but one, when a run raised the same exception in the same cell with
 * the saved message less one word (a library's version words it a little shorter: `… floating point or complex. Got
 * Long` for `… floating point or complex dtypes. Got Long`). The saved message must have six words or more; the
 * word dropped may not be a negation or the like, a number or a quoted name. The pattern matches both wordings.
 */
export function relaxDroppedWord(expected: ExpectedCrash, observed: string): ExpectedCrash | null {
  if (expected.match === 'regex') return null;
  const saved = expected.evalue.trim();
  const seen = observed.trim();
  const extra = saved.length - seen.length;
  if (saved.split(/\s+/).length < 6 || extra < 2) return null;
  let p = 0;
  while (p < seen.length && saved[p] === seen[p]) p++;
  // The saved message is the run's with one word (and its space) put in: where, when letters repeat, is found by
  // moving back from the first difference.
  for (let at = p; at >= Math.max(0, p - extra); at--) {
    const word = saved.slice(at, at + extra);
    if (saved.slice(0, at) !== seen.slice(0, at) || saved.slice(at + extra) !== seen.slice(at)) continue;
    const m = /^\s+([A-Za-z][\w-]*)$|^([A-Za-z][\w-]*)\s+$/.exec(word);
    if (!m || MEANINGFUL.test(m[1] ?? m[2]!)) return null;
    const pattern = `^${escapeRegExp(saved.slice(0, at))}(?:${escapeRegExp(word)})?${escapeRegExp(saved.slice(at + extra))}$`;
    return { ...expected, evalue: pattern, match: 'regex' };
  }
  return null;
}

/**
 * Pure: the expected crash with the run's exception class, when the run raised another class in the saved cell with
 * the saved message itself (a library that now raises a more specific class for the same failure: pandas'
 * `UnsortedIndexError`, a `KeyError`, with the same text). Null when the cell or the message differ, or when the
 * message is too short to tell one failure from another.
 */
export function matchNarrowerException(
  expected: ExpectedCrash,
  observed: { ename: string; evalue: string; cell: number },
): ExpectedCrash | null {
  const ename = observed.ename.split('.').pop() ?? '';
  if (observed.cell !== expected.cell || ename === expected.ename || !/(?:Error|Exception)$/.test(ename)) return null;
  const seen = observed.evalue.trim();
  const same =
    expected.match === 'exact'
      ? seen === expected.evalue.trim()
      : expected.match === 'prefix'
        ? seen.startsWith(expected.evalue.trim())
        : new RegExp(expected.evalue).test(seen);
  const words = (expected.match === 'exact' ? expected.evalue : seen).split(/\s+/).filter(Boolean).length;
  return same && words >= 4 ? { ...expected, ename } : null;
}

// Messages whose quoted text is a value of the data a conversion met (the first that failed).
const DATA_VALUE_MESSAGES: readonly RegExp[] = [
  /^(could not convert string to float: )(?:'[^'\n]*'|"[^"\n]*")$/,
  /^(could not convert string to int: )(?:'[^'\n]*'|"[^"\n]*")$/,
  /^(invalid literal for int\(\) with base 10: )(?:'[^'\n]*'|"[^"\n]*")$/,
];

/**
 * Pure: for a draft whose data is synthetic, the expected crash matched on any quoted value when the run raised the
 * saved conversion error in the saved cell on another value of the data (`could not convert string to float:
 * 'Urban'` for the saved `'Semiurban'`): the value is the first the conversion met in the real file, which derived
 * data cannot know. Null when the message is not such a conversion, or the run's is another message.
 */
export function matchQuotedDataValue(expected: ExpectedCrash, observed: string): ExpectedCrash | null {
  if (expected.match === 'regex') return null;
  const saved = expected.evalue.trim();
  const seen = observed.trim();
  for (const re of DATA_VALUE_MESSAGES) {
    const a = re.exec(saved);
    const b = re.exec(seen);
    if (a && b && a[1] === b[1] && saved !== seen)
      return { ...expected, evalue: `^${escapeRegExp(a[1]!)}(?:'[^'\\n]*'|"[^"\\n]*")$`, match: 'regex' };
  }
  return null;
}

// An argument of a kernel's command line, as the front end that started it wrote it: Jupyter's `-f <connection
// file>`, VS Code's `--stdin=9013 --control=… --f=<file>`, Colab's and Kaggle's runtime files, traitlets options.
const KERNEL_ARGUMENT =
  /^(?:-f|--f=\S*|--(?:stdin|control|hb|shell|iopub)=\d+|--ip=\S*|--transport=\S+|--(?:Session|HistoryManager|IPKernelApp|KernelApp)\.\S+|\S*kernel-[\w.-]*\.json|\S*\/jupyter\/runtime\/\S+\.json|\S*ipykernel_launcher\.py)$/;
const QUOTED = /'([^'\n]*)'|"([^"\n]*)"/g;

/**
 * Pure: the expected crash matched on any kernel argument where the saved message quotes one, when the run raised the
 * saved exception in the saved cell with the same message quoting this runtime's (`could not convert string to float:
 * '--stdin=9013'` from VS Code's kernel, `'/run/…/kernel-x.json'` here): code that reads `sys.argv` as a script would
 * gets the kernel's command line, which the front end chose. The rest of the message stays exact. Null when the
 * saved message quotes no kernel argument, or the run's differs elsewhere.
 */
export function matchKernelArgument(expected: ExpectedCrash, observed: string): ExpectedCrash | null {
  if (expected.match === 'regex') return null;
  const saved = expected.evalue.trim();
  const seen = observed.trim();
  // Two patterns from the same pieces: `check` captures what the run quoted there (it must be a kernel argument
  // too); `final`, recorded, takes any kernel argument there (an option, or a file the kernel was given: the
  // connection file's name changes with every run), not any text.
  let check = '';
  let final = '';
  let at = 0;
  for (const m of saved.matchAll(QUOTED)) {
    const text = escapeRegExp(saved.slice(at, m.index));
    at = m.index + m[0].length;
    if (!KERNEL_ARGUMENT.test(m[1] ?? m[2] ?? '')) {
      check += text + escapeRegExp(m[0]);
      final += text + escapeRegExp(m[0]);
      continue;
    }
    const q = m[0][0]!;
    check += `${text}${q}([^${q}\\n]*)${q}`;
    final += `${text}${q}(?:-f|--[^${q}\\n]*|[^${q}\\n]*\\.json|[^${q}\\n]*ipykernel_launcher\\.py)${q}`;
  }
  if (check === final) return null; // no kernel argument quoted
  const rest = escapeRegExp(saved.slice(at));
  const m = new RegExp(`^${check}${rest}$`).exec(seen);
  if (!m || seen === saved || !m.slice(1).every((a) => KERNEL_ARGUMENT.test(a ?? ''))) return null;
  return { ...expected, evalue: `^${final}${rest}$`, match: 'regex' };
}
