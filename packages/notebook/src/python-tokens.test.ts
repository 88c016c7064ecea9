import { describe, expect, it } from 'vitest';
import { significantTokens, stripComments, tokenizePython } from './python-tokens.js';

describe('stripComments', () => {
  it.each([
    ['a trailing comment', 'x = 1  # set x', 'x = 1'],
    ['a comment-only line', '# load\ndf = load()\n', 'df = load()'],
    ['indented comment lines', 'for i in r:\n    # step\n    f(i)  # call', 'for i in r:\n    f(i)'],
    ["'#' in a single-quoted string", "s = '#' + x  # c", "s = '#' + x"],
    ['"#" in a double-quoted string', 'url = "http://h/#frag"', 'url = "http://h/#frag"'],
    ['an escaped quote before #', "s = 'it\\'s # not a comment'  # but this is", "s = 'it\\'s # not a comment'"],
    ['a raw string ending in a backslash-quote pair', 'p = r"a\\"#b"  # c', 'p = r"a\\"#b"'],
    [
      '# inside a triple-quoted string over lines',
      'doc = """\n# heading\n  keep   \n"""  # end',
      'doc = """\n# heading\n  keep   \n"""',
    ],
    ['a blank line inside a triple-quoted string', "s = '''a\n\nb'''", "s = '''a\n\nb'''"],
    ['an f-string with a nested string holding #', 'f"{d[\'#\']} # x"  # real', 'f"{d[\'#\']} # x"'],
    ['an f-string with a format spec and doubled braces', "f'{{#}} {v:>{w}}' # c", "f'{{#}} {v:>{w}}'"],
    ['byte and unicode prefixes', "b'#' + rb'#' + U'#'  # c", "b'#' + rb'#' + U'#'"],
    ['a name that looks like a prefix is a name', 'rf = 1  # c\nbr = rf', 'rf = 1\nbr = rf'],
    ['# inside brackets spanning lines', 'x = [1,  # one\n     2]  # two', 'x = [1,\n     2]'],
    ['a line magic keeps its text', '%matplotlib inline\n# c\nx = 1', '%matplotlib inline\nx = 1'],
    ['a shell escape keeps its #', '!echo "a" # shell comment', '!echo "a" # shell comment'],
    ['a non-Python cell magic is left as it is', '%%bash\necho hi # shell\n', '%%bash\necho hi # shell'],
    ['a %%time cell body is Python', '%%time\nx = 1  # c', '%%time\nx = 1'],
    ['an unterminated string ends at its line', "s = 'abc # d\ny = 2  # e", "s = 'abc # d\ny = 2"],
    ['a cell that is only comments', '# a\n# b\n', ''],
    ['blank lines at the ends', '\n\nx = 1\n\n', 'x = 1'],
    ['a backslash continuation', 'x = 1 + \\\n    2  # c', 'x = 1 + \\\n    2'],
  ])('%s', (_name, source, expected) => {
    expect(stripComments(source)).toBe(expected);
  });

  it('keeps every meaningful token', () => {
    const cell =
      'import pandas as pd  # the usual\ndf = pd.read_csv(\'data/a#b.csv\')\n# df.head()\nprint(f"{len(df)} rows # total")\n';
    const before = significantTokens(cell).map((t) => t.text);
    const after = significantTokens(stripComments(cell)).map((t) => t.text);
    expect(after).toEqual(before);
    expect(after).not.toContain('# df.head()');
  });
});

describe('tokenizePython', () => {
  it.each([
    ['x = 1', ['name:x', 'op:=', 'number:1']],
    ['a **= 2.5e-3j', ['name:a', 'op:**=', 'number:2.5e-3j']],
    ["f'{x!r:>10}' 'y'", ["string:f'{x!r:>10}'", "string:'y'"]],
    ['files = !ls -la', ['name:files', 'op:=', 'magic:!ls -la']],
    ['x != y', ['name:x', 'op:!=', 'name:y']],
    ['print(x) # hi', ['name:print', 'op:(', 'name:x', 'op:)', 'comment:# hi']],
    ['if x:\n    pass', ['name:if', 'name:x', 'op::', 'newline:\n', 'name:pass']],
    ['naïve = 1', ['name:naïve', 'op:=', 'number:1']],
  ])('%s', (source, expected) => {
    expect(tokenizePython(source).map((t) => `${t.kind}:${t.text}`)).toEqual(expected);
  });
});
