import { describe, expect, it } from 'vitest';
import { matchRewording } from './library-rewordings.js';

const expected = (evalue: string) => ({ ename: 'ValueError', evalue, match: 'exact' as const, cell: 7 });

describe('matchRewording: one failure, two versions of a library', () => {
  it.each([
    [
      'cannot copy sequence with size 6 to array axis with dimension 4',
      'setting an array element with a sequence. The requested array has an inhomogeneous shape after 1 dimensions. The detected shape was (2,) + inhomogeneous part.',
    ],
    ['cannot reindex from a duplicate axis', 'cannot reindex on an axis with duplicate labels'],
    [
      'X has 3 features per sample; expecting 4',
      'X has 3 features, but LinearRegression is expecting 4 features as input.',
    ],
    [
      "Input contains NaN, infinity or a value too large for dtype('float64').",
      'Input X contains NaN.\nLinearRegression does not accept missing values encoded as NaN natively.',
    ],
  ])('%s', (saved, now) => {
    const m = matchRewording(expected(saved), now)!;
    expect(m.crash).toMatchObject({ ename: 'ValueError', cell: 7, match: 'regex' });
    expect(new RegExp(m.crash.evalue).test(now)).toBe(true);
    expect(new RegExp(m.crash.evalue).test(saved)).toBe(true);
  });

  it('gives nothing for another failure, or a message already matched by a pattern', () => {
    expect(
      matchRewording(expected('cannot reindex from a duplicate axis'), 'could not convert string to float: x'),
    ).toBeNull();
    expect(
      matchRewording({ ...expected('^x'), match: 'regex' }, 'cannot reindex on an axis with duplicate labels'),
    ).toBeNull();
  });
});
