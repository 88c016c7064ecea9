import { describe, expect, it } from 'vitest';
import { parseTracebackCell } from './parse-traceback-cell.js';
import { PythonLiteralError } from './parse-python-string-list.js';

describe('parseTracebackCell', () => {
  it.each([
    [
      'a list literal with ANSI escapes',
      String.raw`['\x1b[0;31mKeyError\x1b[0m   Traceback (most recent call last)', "Cell \x1b[0;32mIn[3], line 1\x1b[0m\n----> 1 df['a']\n", "\x1b[0;31mKeyError\x1b[0m: 'a'"]`,
      {},
      {
        traceback: [
          'KeyError   Traceback (most recent call last)',
          "Cell In[3], line 1\n----> 1 df['a']\n",
          "KeyError: 'a'",
        ],
        form: 'list',
        truncated: false,
      },
    ],
    [
      'a list cut short',
      "['Traceback (most recent call last)', 'ValueError: bad inp",
      {},
      { traceback: ['Traceback (most recent call last)', 'ValueError: bad inp'], form: 'list', truncated: true },
    ],
    [
      'rendered traceback text',
      '---------\nNameError     Traceback (most recent call last)\n<ipython-input-1-abc> in <module>\n----> 1 x\n\nNameError: name x is not defined',
      { ename: 'nameerror' },
      {
        traceback: [
          '---------',
          'NameError     Traceback (most recent call last)',
          '<ipython-input-1-abc> in <module>',
          '----> 1 x',
          '',
          'NameError: name x is not defined',
        ],
        form: 'text',
        truncated: false,
      },
    ],
    [
      'text naming the exception',
      'ValueError: could not convert',
      { ename: 'ValueError' },
      { traceback: ['ValueError: could not convert'], form: 'text', truncated: false },
    ],
  ])('reads %s', (_name, text, options, expected) => {
    expect(parseTracebackCell(text, options)).toEqual(expected);
  });

  it.each([
    ['empty text', '   ', /the traceback is empty/],
    ['a broken list', "['a', 3]", /expected a quoted string/],
    ['text that is not a traceback', 'n/a', /expected a Python list of strings/],
  ])('rejects %s', (_name, text, message) => {
    expect(() => parseTracebackCell(text, { ename: 'KeyError' })).toThrow(PythonLiteralError);
    expect(() => parseTracebackCell(text, { ename: 'KeyError' })).toThrow(message);
  });
});
