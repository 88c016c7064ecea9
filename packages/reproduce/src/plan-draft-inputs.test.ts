import { describe, expect, it } from 'vitest';
import { withoutUrlRoots } from './plan-draft-inputs.js';

describe('withoutUrlRoots', () => {
  it('drops a root that another listed URL is built on, and keeps every other URL', () => {
    expect(
      withoutUrlRoots([
        'https://example.org/repo/master/',
        'https://example.org/repo/master/datasets/housing/housing.tgz',
        'https://example.org/other/',
        'https://example.org/a.csv',
      ]),
    ).toEqual([
      'https://example.org/repo/master/datasets/housing/housing.tgz',
      'https://example.org/other/',
      'https://example.org/a.csv',
    ]);
  });

  it('keeps a URL that only shares a prefix without being a root (no trailing slash)', () => {
    expect(withoutUrlRoots(['https://example.org/a', 'https://example.org/a.csv'])).toEqual([
      'https://example.org/a',
      'https://example.org/a.csv',
    ]);
  });
});
