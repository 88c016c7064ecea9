import { describe, expect, it } from 'vitest';
import { normalizeEname } from './normalize-ename.js';

describe('normalizeEname', () => {
  it.each([
    ['tensorflow.python.framework.errors_impl.InvalidArgumentError', 'InvalidArgumentError'],
    ['pandas.errors.IntCastingNaNError', 'IntCastingNaNError'],
    ['KeyError', 'KeyError'],
    [' sklearn.exceptions.NotFittedError ', 'NotFittedError'],
    ['', ''],
  ])('%s → %s', (a, b) => expect(normalizeEname(a)).toBe(b));
});
