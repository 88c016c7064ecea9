import type { ExpectedCrash } from '@junobench/core';
import { escapeRegExp } from './plan-data-paths.js';

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
  // Tokens: quoted strings (kept), numbers (maybe generalised), anything else.
  const re = /'[^'\n]*'|"[^"\n]*"|\d+|[^'"\d]+|['"]/g;
  let prev = '';
  for (const m of text.matchAll(re)) {
    const t = m[0];
    if (/^\d+$/.test(t) && !/(?:axis|dimension|dim|base|version|python|line)\s*$/i.test(prev) && !/[.\d]$/.test(prev)) {
      parts.push('\\d+');
      changed = true;
    } else parts.push(escapeRegExp(t));
    prev = t;
  }
  if (!changed) return null;
  const body = parts.join('');
  return { ...crash, evalue: crash.match === 'prefix' ? `^${body}` : `^${body}$`, match: 'regex' };
}
