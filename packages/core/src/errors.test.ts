import { describe, expect, it } from 'vitest';
import { JunoError, redactSecrets } from './errors.js';

describe('JunoError', () => {
  it('defaults to exit code 2 for input errors and names the location', () => {
    const e = new JunoError('E_INPUT_ROW', 'traceback is not a list', {
      location: { file: 'a.csv', row: 7, field: 'traceback' },
      hint: 'quote it',
    });
    expect(e.exitCode).toBe(2);
    expect(e.describe()).toBe('a.csv, row 7, field "traceback": traceback is not a list\n  hint: quote it');
  });

  it.each([
    ['E_ENV_PYTHON', 3],
    ['E_RUNTIME', 1],
    ['E_SCHEMA', 2],
  ] as const)('%s exits with %i', (code, exit) => {
    expect(new JunoError(code, 'x').exitCode).toBe(exit);
  });

  it('chains the cause', () => {
    const cause = new Error('low level');
    expect(new JunoError('E_INPUT_FORMAT', 'bad', { cause }).cause).toBe(cause);
  });
});

describe('redactSecrets', () => {
  it.each([
    ['token ghp_abcdefghijklmnopqrstuvwxyz0123456789 leaked', 'token [REDACTED] leaked'],
    ['https://user:s3cret@github.com/o/r.git', 'https://[REDACTED]github.com/o/r.git'],
    ['Authorization: token abc123', 'Authorization: token [REDACTED]'],
    ['{"username":"u","key":"0123456789abcdef0123456789abcdef"}', '{"username":"u","key":"[REDACTED]"}'],
    ['nothing secret here', 'nothing secret here'],
  ])('%s', (input, expected) => {
    expect(redactSecrets(input)).toBe(expected);
  });

  it('applies to messages and hints', () => {
    const e = new JunoError('E_SOURCE', 'failed with ghp_abcdefghijklmnopqrstuvwxyz0123456789', {
      hint: 'retry with ghp_abcdefghijklmnopqrstuvwxyz0123456789',
    });
    expect(e.message).not.toContain('ghp_');
    expect(e.hint).not.toContain('ghp_');
  });
});
