import { describe, expect, it } from 'vitest';
import { JunoError } from '@junobench/core';
import { parseRedisUrl } from './redis-url.js';

describe('parseRedisUrl', () => {
  it.each([
    ['redis://127.0.0.1:6417', { host: '127.0.0.1', port: 6417, db: 0, tls: false, display: 'redis://127.0.0.1:6417' }],
    ['redis://queue.lan', { host: 'queue.lan', port: 6379, db: 0, tls: false, display: 'redis://queue.lan' }],
    [
      'redis://10.0.0.5:6379/3',
      { host: '10.0.0.5', port: 6379, db: 3, tls: false, display: 'redis://10.0.0.5:6379/3' },
    ],
    ['rediss://[::1]:7000', { host: '::1', port: 7000, db: 0, tls: true, display: 'rediss://[::1]:7000' }],
    [
      'redis://bench:s3cr%40t@h:1',
      {
        host: 'h',
        port: 1,
        db: 0,
        tls: false,
        username: 'bench',
        password: 's3cr@t',
        display: 'redis://bench:***@h:1',
      },
    ],
  ])('%s', (text, expected) => {
    expect(parseRedisUrl(text)).toEqual(expected);
  });

  it.each([
    ['127.0.0.1:6379', 'not a URL'],
    ['http://h:1', 'scheme is "http"'],
    ['redis://h:1/x', 'not a database number'],
    ['redis://h:1/0?tls=1', 'not supported'],
  ])('refuses %s (%s)', (text, why) => {
    const e = (() => {
      try {
        parseRedisUrl(text);
      } catch (err) {
        return err as JunoError;
      }
      throw new Error('accepted');
    })();
    expect(e.code).toBe('E_USAGE');
    expect(e.message).toContain(why);
    expect(e.hint).toContain('redis://host:port');
  });

  it('never prints a password in an error', () => {
    expect(() => parseRedisUrl('http://u:hunter2@h:1')).not.toThrow(/hunter2/);
  });
});
