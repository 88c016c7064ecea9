import { describe, expect, it } from 'vitest';
import type { ExpectedCrash } from '@junobench/core';
import { matchExpectedCrash } from './match-crash.js';

const expected = (e: Partial<ExpectedCrash> = {}): ExpectedCrash => ({
  ename: 'ValueError',
  evalue: 'shapes (3,) and (4,) not aligned',
  match: 'exact',
  cell: 4,
  ...e,
});

describe('matchExpectedCrash', () => {
  it.each([
    ['exact match', expected(), { ename: 'ValueError', evalue: 'shapes (3,) and (4,) not aligned', cell: 4 }, true],
    [
      'exact ignores surrounding whitespace',
      expected(),
      { ename: 'ValueError', evalue: 'shapes (3,) and (4,) not aligned ', cell: 4 },
      true,
    ],
    [
      'module prefix on the observed class',
      expected(),
      { ename: 'numpy.ValueError', evalue: 'shapes (3,) and (4,) not aligned', cell: 4 },
      true,
    ],
    [
      'another exception',
      expected(),
      { ename: 'TypeError', evalue: 'shapes (3,) and (4,) not aligned', cell: 4 },
      false,
    ],
    [
      'class names are case-sensitive',
      expected(),
      { ename: 'valueerror', evalue: 'shapes (3,) and (4,) not aligned', cell: 4 },
      false,
    ],
    [
      'another message',
      expected(),
      { ename: 'ValueError', evalue: 'shapes (3,) and (5,) not aligned', cell: 4 },
      false,
    ],
    ['another cell', expected(), { ename: 'ValueError', evalue: 'shapes (3,) and (4,) not aligned', cell: 5 }, false],
    [
      'prefix',
      expected({ evalue: 'shapes (3,)', match: 'prefix' }),
      { ename: 'ValueError', evalue: 'shapes (3,) and (9,) not aligned', cell: 4 },
      true,
    ],
    [
      'prefix miss',
      expected({ evalue: 'shapes (4,)', match: 'prefix' }),
      { ename: 'ValueError', evalue: 'shapes (3,) and (9,) not aligned', cell: 4 },
      false,
    ],
    [
      'regex search',
      expected({ evalue: 'object at 0x[0-9a-f]+', match: 'regex' }),
      { ename: 'ValueError', evalue: 'bad <Foo object at 0x7f3a2c>', cell: 4 },
      true,
    ],
    [
      'regex miss',
      expected({ evalue: '^object', match: 'regex' }),
      { ename: 'ValueError', evalue: 'bad <Foo object at 0x7f3a2c>', cell: 4 },
      false,
    ],
    [
      'regex: . crosses lines (a multi-line message)',
      expected({ evalue: 'first.*second', match: 'regex' }),
      { ename: 'ValueError', evalue: 'first\nsecond', cell: 4 },
      true,
    ],
    // Exponential on a backtracking engine (minutes at this length, doubling per character); linear here.
    [
      'regex: a catastrophic pattern on a long message ends',
      expected({ evalue: '^(\\D+)+Z', match: 'regex' }),
      { ename: 'ValueError', evalue: 'operands could not be broadcast together with shapes ('.repeat(4), cell: 4 },
      false,
    ],
  ])('%s', (_name, exp, observed, ok) => {
    expect(matchExpectedCrash(exp, observed).matches).toBe(ok);
  });

  it('says what differs', () => {
    const m = matchExpectedCrash(expected(), { ename: 'TypeError', evalue: 'x', cell: 2 });
    expect(m.differences).toEqual([
      'exception TypeError instead of ValueError',
      'message "x" does not match exact "shapes (3,) and (4,) not aligned"',
      'raised in code cell 2 instead of 4',
    ]);
  });
});
