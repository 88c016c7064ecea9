import { describe, expect, it } from 'vitest';
import {
  formatGithubRef,
  parseGithubNotebookRef,
  parseKaggleDatasetRef,
  parseKaggleKernelRef,
  slugifyPath,
} from './parse-source-ref.js';

describe('parseKaggleKernelRef', () => {
  it.each([
    ['alice/titanic-eda', { owner: 'alice', slug: 'titanic-eda' }],
    ['https://www.kaggle.com/code/alice/titanic-eda', { owner: 'alice', slug: 'titanic-eda' }],
    ['https://www.kaggle.com/alice/titanic-eda?scriptVersionId=1', { owner: 'alice', slug: 'titanic-eda' }],
  ])('%s', (input, expected) => expect(parseKaggleKernelRef(input)).toEqual(expected));

  it.each([
    'alice',
    'alice/b/c',
    '../etc/passwd',
    'alice/..',
    'al ice/titanic',
    'alice/abc',
    '-x/titanic-eda',
    'alice/$(rm -rf)',
  ])('refuses %s', (input) => {
    expect(() => parseKaggleKernelRef(input)).toThrow(/is not a valid Kaggle kernel ref/);
  });
});

describe('parseKaggleDatasetRef', () => {
  it('drops a version suffix', () =>
    expect(parseKaggleDatasetRef('uciml/iris/versions/2')).toEqual({ owner: 'uciml', slug: 'iris' }));
  it.each(['uciml', 'uciml/iris/x', 'uciml/../x', '/iris'])('refuses %s', (input) =>
    expect(() => parseKaggleDatasetRef(input)).toThrow(/not a valid Kaggle dataset ref/),
  );
});

describe('parseGithubNotebookRef', () => {
  it.each([
    ['octo/nbs:eda/crash.ipynb@main', { owner: 'octo', repo: 'nbs', path: 'eda/crash.ipynb', ref: 'main' }],
    ['octo/nbs:crash.ipynb', { owner: 'octo', repo: 'nbs', path: 'crash.ipynb' }],
    [
      'https://github.com/octo/nbs/blob/v1.2/eda/crash.ipynb',
      { owner: 'octo', repo: 'nbs', path: 'eda/crash.ipynb', ref: 'v1.2' },
    ],
    [
      'https://github.com/octo/nbs/blob/main/My%20Notebook.ipynb',
      { owner: 'octo', repo: 'nbs', path: 'My Notebook.ipynb', ref: 'main' },
    ],
  ])('%s', (input, expected) => expect(parseGithubNotebookRef(input)).toMatchObject(expected));

  it('lists every ref/path split of a blob URL, shortest ref first', () => {
    const r = parseGithubNotebookRef('https://github.com/octo/nbs/blob/feature/x/nb.ipynb');
    expect(r.candidates).toEqual([
      { ref: 'feature', path: 'x/nb.ipynb' },
      { ref: 'feature/x', path: 'nb.ipynb' },
    ]);
  });

  it.each([
    ['octo/nbs:../secret.ipynb@main', /without ".."/],
    ['octo/nbs:/etc/x.ipynb@main', /without ".."/],
    ['octo/nbs:notes.txt@main', /must be a .ipynb notebook/],
    ['octo/nbs:a.ipynb@ma..in', /branch, tag or commit SHA/],
    ['octo/nbs:a.ipynb@-rf', /branch, tag or commit SHA/],
    ['octo/nbs:a.ipynb@main;rm', /branch, tag or commit SHA/],
    ['https://github.com/octo/nbs/tree/main/a.ipynb', /not a valid GitHub notebook ref/],
    ['octo:a.ipynb', /not a valid GitHub notebook ref/],
  ])('refuses %s', (input, message) => expect(() => parseGithubNotebookRef(input)).toThrow(message));

  it('formats the short form', () =>
    expect(formatGithubRef({ owner: 'o', repo: 'r', path: 'a/b.ipynb', ref: 'main' })).toBe('o/r:a/b.ipynb@main'));
});

describe('slugifyPath', () => {
  it.each([
    ['eda/My Notebook v2.ipynb', 'eda--My-Notebook-v2'],
    ['crash.ipynb', 'crash'],
    ['.hidden/../x.ipynb', 'hidden--x'],
  ])('%s → %s', (p, s) => expect(slugifyPath(p)).toBe(s));
});
