import { describe, expect, it } from 'vitest';
import { compileRowFilters } from './row-filter.js';

const header = ['id', 'city', 'note'];

describe('compileRowFilters', () => {
  it('keeps a row when any filter matches, and a filter matches when all its conditions hold', () => {
    const keep = compileRowFilters(
      [
        { column: 'city', in: ['Oslo', 'Rome'], matches: '^O' },
        { column: 'id', equals: '7' },
      ],
      header,
      't.csv',
    );
    expect(keep(['1', 'Oslo', ''])).toBe(true);
    expect(keep(['2', 'Rome', ''])).toBe(false);
    expect(keep(['7', 'Paris', ''])).toBe(true);
  });

  it('names an unknown column with the closest one', () => {
    expect(() => compileRowFilters([{ column: 'citty', equals: 'x' }], header, 't.csv')).toThrow(
      /names column "citty"/,
    );
  });

  it('refuses a pattern that needs a backtracking engine (a lookahead, a backreference), naming the filter', () => {
    for (const matches of ['(?=a)a', '(a)\\1']) {
      expect(() => compileRowFilters([{ column: 'note', matches }], header, 't.csv')).toThrow(
        /row filter 0: not a regular expression the linear-time engine runs/,
      );
    }
  });

  it('runs a catastrophic pattern on a long value in linear time (the spec comes with an untrusted instance)', () => {
    const keep = compileRowFilters([{ column: 'note', matches: '^(a+)+$' }], header, 't.csv');
    expect(keep(['1', 'x', `${'a'.repeat(5000)}!`])).toBe(false);
    expect(keep(['1', 'x', 'aaaa'])).toBe(true);
  });
});
