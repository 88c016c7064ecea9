import { stripAnsi } from '@junobench/core';
import { parsePythonStringList, PythonLiteralError } from './parse-python-string-list.js';

export interface TracebackCell {
  /** Traceback items, ANSI escapes removed. */
  traceback: string[];
  /** `list`: a Python list literal (Jupyter's saved form); `text`: a traceback pasted as plain text. */
  form: 'list' | 'text';
  /** The list literal ended before it was closed; the items read are kept. */
  truncated: boolean;
}

const TRACEBACK_TEXT = /Traceback \(most recent call last\)|^\s*File "[^"]+", line \d+/m;

/**
 * Read a sheet's traceback cell. Jupyter stores a traceback as a list of
 * strings, and sheets keep that list as its Python literal; a few rows hold
 * the rendered text instead, which is kept line by line. Anything else throws
 * a PythonLiteralError saying what is wrong and where.
 */
export function parseTracebackCell(text: string, options: { ename?: string } = {}): TracebackCell {
  const trimmed = text.trim();
  if (trimmed === '') throw new PythonLiteralError('the traceback is empty', 0);
  if (trimmed.startsWith('[')) {
    const { items, truncated } = parsePythonStringList(trimmed, { allowTruncated: true });
    return { traceback: items.map(stripAnsi), form: 'list', truncated };
  }
  const plain = stripAnsi(trimmed);
  const ename = options.ename?.trim();
  const namesException = ename ? new RegExp(`(^|[\\s.])${escapeRegExp(ename)}\\b`, 'i').test(plain) : false;
  if (TRACEBACK_TEXT.test(plain) || namesException) {
    return { traceback: plain.split(/\r?\n/), form: 'text', truncated: false };
  }
  throw new PythonLiteralError(
    `expected a Python list of strings such as ['Traceback …', "KeyError: 'x'"] or a traceback's text, found ${JSON.stringify(trimmed.slice(0, 30))}`,
    0,
  );
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
