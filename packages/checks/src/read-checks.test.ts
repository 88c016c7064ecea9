import { describe, expect, it } from 'vitest';
import { firstDocLine, parseChecks } from './read-checks.js';

describe('parseChecks', () => {
  it('reads every top-level check_* with the first line of its docstring, in file order', () => {
    const source = [
      '"""What a fix must achieve."""',
      'import numpy as np',
      '',
      'def helper():',
      '    return 1',
      '',
      'def check_units():',
      '    """`units` is integer',
      '',
      '    More words that are not the reason.',
      '    """',
      "    assert df['units'].dtype.kind == 'i'",
      '',
      '# def check_commented_out():',
      'def check_model() -> None:',
      "    '''the model is fitted'''",
      '    assert model',
      '',
      'class Other:',
      '    def check_method(self):',
      '        pass',
    ].join('\n');
    expect(parseChecks(source)).toEqual([
      { name: 'check_units', reason: '`units` is integer' },
      { name: 'check_model', reason: 'the model is fitted' },
    ]);
  });

  it.each([
    ['def check_x():\n    assert x\n', /check_x: has no docstring/],
    ['def check_x(df):\n    """reason"""\n', /check_x: takes parameters/],
    ['def check_x():\n    """a"""\ndef check_x():\n    """b"""\n', /check_x: defined twice \(lines 1 and 3\)/],
    ['x = 1\n', /holds no check/],
  ])('refuses %j, naming the check and the line', (source, message) => {
    expect(() => parseChecks(source, 'raw/instances/a/checks.py')).toThrow(message);
  });

  it('names the file and line of a refused check', () => {
    try {
      parseChecks('x = 1\n\ndef check_y():\n    pass\n', 'checks.py');
      expect.unreachable();
    } catch (e) {
      expect(e).toMatchObject({ code: 'E_INSTANCE', location: { file: 'checks.py', line: 3 } });
    }
  });
});

describe('firstDocLine', () => {
  it.each([
    ['"""one line"""', 'one line'],
    ["'''\n   first\n   second\n'''", 'first'],
    ['"short"', 'short'],
    ['"""the notebook prints \\"x\\""""', 'the notebook prints "x"'],
    ['r"""a \\d b"""', 'a \\d b'],
    ['""""""', ''],
  ])('%j → %j', (literal, line) => {
    expect(firstDocLine(literal)).toBe(line);
  });
});
