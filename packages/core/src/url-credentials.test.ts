import { describe, expect, it } from 'vitest';
import { stripUrlCredentials } from './url-credentials.js';

describe('stripUrlCredentials', () => {
  it.each([
    ['https://www.kaggle.com/code/u/nb', 'https://www.kaggle.com/code/u/nb', []],
    [
      'https://user:ghp_abcdefghijklmnopqrstuvwxyz0123456789@github.com/o/r/blob/main/a.ipynb',
      'https://github.com/o/r/blob/main/a.ipynb',
      ['user-info'],
    ],
    [
      'https://token@raw.githubusercontent.com/o/r/main/a.ipynb',
      'https://raw.githubusercontent.com/o/r/main/a.ipynb',
      ['user-info'],
    ],
    ['https://h.example/d.csv?access_token=abc&raw=1', 'https://h.example/d.csv?raw=1', ['access_token parameter']],
    ['https://h.example/d.csv?Token=abc', 'https://h.example/d.csv', ['Token parameter']],
    [
      'https://b.s3.amazonaws.com/d.zip?X-Amz-Credential=AK%2F1&X-Amz-Signature=ff&X-Amz-Expires=60',
      'https://b.s3.amazonaws.com/d.zip?X-Amz-Expires=60',
      ['X-Amz-Credential parameter', 'X-Amz-Signature parameter'],
    ],
    [
      'https://app.example/cb#access_token=abc&state=1',
      'https://app.example/cb#state=1',
      ['access_token fragment parameter'],
    ],
    ['not a url', 'not a url', []],
    ['', '', []],
  ])('%s', (input, url, removed) => {
    const r = stripUrlCredentials(input);
    expect(r).toEqual({ url, removed });
  });
});
