import { JunoError } from '@junobench/core';

/** Where the queue lives: what ioredis needs, and a form safe to print. */
export interface RedisAddress {
  host: string;
  port: number;
  db: number;
  username?: string;
  password?: string;
  tls: boolean;
  /** The URL with any password replaced by `***`: for messages. */
  display: string;
}

/**
 * `redis://[user:password@]host[:port][/db]` (or `rediss://` for TLS) as
 * ioredis connection options. Anything else is refused with an example, so a
 * typo is caught before a run waits for workers that will never come.
 */
export function parseRedisUrl(text: string): RedisAddress {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw badUrl(text, 'it is not a URL');
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:')
    throw badUrl(text, `the scheme is "${url.protocol.replace(/:$/, '')}"`);
  if (!url.hostname) throw badUrl(text, 'it names no host');
  const port = url.port ? Number(url.port) : 6379;
  const dbText = url.pathname.replace(/^\//, '');
  if (dbText !== '' && !/^\d{1,2}$/.test(dbText)) throw badUrl(text, `"/${dbText}" is not a database number`);
  if (url.search || url.hash) throw badUrl(text, 'options after "?" or "#" are not supported');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const username = url.username ? decodeURIComponent(url.username) : undefined;
  const password = url.password ? decodeURIComponent(url.password) : undefined;
  const shown = new URL(url.href);
  if (shown.password) shown.password = '***';
  return {
    host,
    port,
    db: dbText === '' ? 0 : Number(dbText),
    ...(username ? { username } : {}),
    ...(password ? { password } : {}),
    tls: url.protocol === 'rediss:',
    display: shown.href.replace(/\/$/, ''),
  };
}

function badUrl(text: string, why: string): JunoError {
  const shown = text.replace(/(\/\/[^/@:]*:)[^/@]*@/, '$1***@');
  return new JunoError('E_USAGE', `--queue "${shown}" is not a Redis URL: ${why}`, {
    hint: 'give redis://host:port (optionally /db, e.g. redis://10.0.0.5:6379/1), or rediss:// for TLS',
  });
}
