import { describe, expect, it } from 'vitest';
import { parsePythonStringList, PythonLiteralError } from './parse-python-string-list.js';

describe('parsePythonStringList', () => {
  // Expected values are what Python's ast.literal_eval gives for the same text.
  it.each([
    ['empty list', '[]', []],
    ['single quotes', "['a', 'b']", ['a', 'b']],
    ['double quotes', '["a", "b"]', ['a', 'b']],
    ['quote of the other kind inside', `["KeyError: 'x'", 'say "hi"']`, ["KeyError: 'x'", 'say "hi"']],
    ['escaped quotes', String.raw`['it\'s', "a \"b\""]`, ["it's", 'a "b"']],
    ['newline and tab escapes', String.raw`['a\nb\tc\r']`, ['a\nb\tc\r']],
    ['bell, backspace, form feed, vertical tab', String.raw`['\a\b\f\v']`, ['\u0007\b\f\v']],
    ['backslash escape', String.raw`['C:\\temp']`, ['C:\\temp']],
    ['hex escape (ANSI)', String.raw`['\x1b[0;31mValueError\x1b[0m']`, ['\u001b[0;31mValueError\u001b[0m']],
    ['octal escapes', String.raw`['\033[1m', '\0', '\101\1012']`, ['\u001b[1m', '\0', 'AA2']],
    ['\\u and \\U escapes', String.raw`['\u00e9\U0001F600']`, ['é😀']],
    ['unknown escapes stay verbatim', String.raw`['\d+\.py', '\q']`, ['\\d+\\.py', '\\q']],
    ['line continuation inside a string', "['ab\\\ncd']", ['abcd']],
    ['triple single quotes with newlines', "['''line 1\nline 2''']", ['line 1\nline 2']],
    ['triple double quotes with a quote inside', '["""say "hi" now"""]', ['say "hi" now']],
    ['raw string keeps backslashes', String.raw`[r'\n\x1b', R"\d"]`, ['\\n\\x1b', '\\d']],
    ['raw string with escaped quote', String.raw`[r'a\'b']`, ["a\\'b"]],
    ['u prefix', '[u\'text\', U"more"]', ['text', 'more']],
    ['bytes literal (UTF-8 decoded)', String.raw`[b'caf\xc3\xa9', rb'\x00']`, ['café', '\\x00']],
    ['adjacent literal concatenation', `['a' "b" '''c''', 'd'\n  'e']`, ['abc', 'de']],
    ['trailing comma and spaces', "[ 'a' , 'b' , ]", ['a', 'b']],
    ['newlines and comments between items', "[\n  'a',  # first\n  'b'\n]", ['a', 'b']],
    ['surrounding whitespace', "  ['a']  \n", ['a']],
    ['non-ASCII text', "['Вычисление новых признаков', '训练步骤']", ['Вычисление новых признаков', '训练步骤']],
  ])('%s', (_name, text, expected) => {
    expect(parsePythonStringList(text)).toEqual({ items: expected, truncated: false });
  });

  // The first \N{…} builds the name index (about a second; more on a loaded machine).
  it('reads \\N{…} escapes by name, alias, and algorithmic names', () => {
    const text = String.raw`['\N{BULLET} \N{latin small letter e with acute}', '\N{ESCAPE}', '\N{CJK UNIFIED IDEOGRAPH-4E01}\N{HANGUL SYLLABLE HAN}']`;
    expect(parsePythonStringList(text)).toEqual({ items: ['• é', '\u001b', '丁한'], truncated: false });
  }, 60_000);

  it.each([
    ['not a list', "'a', 'b'", /expected "\[" to open a list/],
    ['a number item', "['a', 1]", /expected a quoted string, found "1"/],
    ['a name item', "['a', None]", /expected a quoted string, found "None"/],
    ['missing comma', "['a' x]", /expected "," or "\]" after item 1/],
    ['text after the list', "['a'] + ['b']", /unexpected "\+" after the closing "\]"/],
    ['line break in a single-quoted item', "['a\nb']", /line break inside a single-quoted item/],
    ['short \\x escape', String.raw`['\x1']`, /truncated \\x escape/],
    ['short \\u escape', String.raw`['\u12g4']`, /truncated \\u escape/],
    ['\\U out of range', String.raw`['\U00110000']`, /out of range/],
    ['unknown \\N name', String.raw`['\N{NO SUCH CHARACTER NAME}']`, /unknown Unicode character name/],
    ['malformed \\N', String.raw`['\Nabc']`, /malformed \\N escape/],
    ['f-string', "[f'{x}']", /f-strings cannot be read without evaluating/],
    ['bad prefix', "[ub'x']", /invalid string prefix/],
    ['bytes mixed with text', "[b'a' 'b']", /cannot mix bytes and text/],
    ['non-ASCII in bytes', "[b'é']", /only contain ASCII/],
    ['unclosed list without allowTruncated', "['a', 'b'", /the list is not closed/],
  ])(
    'rejects %s',
    (_name, text, message) => {
      expect(() => parsePythonStringList(text)).toThrow(message);
      try {
        parsePythonStringList(text);
      } catch (e) {
        expect(e).toBeInstanceOf(PythonLiteralError);
        expect((e as PythonLiteralError).offset).toBeGreaterThanOrEqual(0);
      }
    },
    60_000,
  );

  it('reports the offset of the problem', () => {
    try {
      parsePythonStringList("['ok', 42]");
      expect.unreachable();
    } catch (e) {
      expect((e as PythonLiteralError).offset).toBe(7);
    }
  });

  it.each([
    ['inside an item', "['a', 'b', 'partial te", ['a', 'b', 'partial te']],
    ['inside an escape', String.raw`['a', 'x\x1`, ['a', 'x']],
    ['after a comma', "['a', 'b', ", ['a', 'b']],
    ['after an item', "['a', 'b'", ['a', 'b']],
    ['inside a concatenation', "['a' 'b", ['ab']],
  ])('keeps the items of a list cut short %s (allowTruncated)', (_name, text, expected) => {
    expect(parsePythonStringList(text, { allowTruncated: true })).toEqual({ items: expected, truncated: true });
  });

  it('still rejects real syntax errors when truncation is allowed', () => {
    expect(() => parsePythonStringList("['a' x 'b", { allowTruncated: true })).toThrow(PythonLiteralError);
  });
});
