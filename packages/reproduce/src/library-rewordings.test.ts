import { describe, expect, it } from 'vitest';
import { compileLinearRegExp } from '@junobench/core';
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
    ["'PathCollection' object has no property 'hue'", "PathCollection.set() got an unexpected keyword argument 'hue'"],
  ])('%s', (saved, now) => {
    const m = matchRewording(expected(saved), now)!;
    expect(m.crash).toMatchObject({ ename: 'ValueError', cell: 7, match: 'regex' });
    expect(new RegExp(m.crash.evalue).test(now)).toBe(true);
    expect(new RegExp(m.crash.evalue).test(saved)).toBe(true);
  });

  it("matplotlib's two wordings only for the same artist and the same property, and only those two messages", () => {
    const saved = expected("'PathCollection' object has no property 'hue'");
    expect(matchRewording(saved, "PathCollection.set() got an unexpected keyword argument 'size'")).toBeNull();
    expect(matchRewording(saved, "Line2D.set() got an unexpected keyword argument 'hue'")).toBeNull();
    const m = matchRewording(saved, "PathCollection.set() got an unexpected keyword argument 'hue'")!;
    expect(new RegExp(m.crash.evalue).test("Line2D.set() got an unexpected keyword argument 'hue'")).toBe(false);
    expect(m.library).toBe('matplotlib');
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

describe('matchRewording: a failure a newer version reports inside its own message', () => {
  // scikit-learn 1.x, cross_val_score on a column of text (abridged: one fit's traceback of each kind).
  const wrapped = (value: string) =>
    `\nAll the 5 fits failed.\nIt is very likely that your model is misconfigured.\nYou can try to debug the error by setting error_score='raise'.\n\nBelow are more details about the failures:\n${'-'.repeat(80)}\n5 fits failed with the following error:\nTraceback (most recent call last):\n  File "/usr/lib/python3/dist-packages/sklearn/utils/_array_api.py", line 185, in _asarray_with_order\n    array = numpy.asarray(array, order=order, dtype=dtype)\nValueError: could not convert string to float: '${value}'\n`;
  const saved = "could not convert string to float: 'Mr'";

  it('matches the saved error in the details of scikit-learn\'s "All the N fits failed", and the saved wording', () => {
    const m = matchRewording(expected(saved), wrapped('Mr'));
    expect(m?.library).toBe('sklearn');
    const re = compileLinearRegExp(m!.crash.evalue, false, { dotAll: true });
    expect(re.test(wrapped('Mr'))).toBe(true);
    expect(re.test(saved)).toBe(true);
    expect(re.test(wrapped('Mrs'))).toBe(false);
    expect(re.test(`x ${saved}`)).toBe(false);
  });

  it('not when the details hold another error, or another exception class', () => {
    expect(matchRewording(expected(saved), wrapped('Miss'))).toBeNull();
    expect(matchRewording({ ...expected(saved), ename: 'TypeError' }, wrapped('Mr'))).toBeNull();
  });
});
