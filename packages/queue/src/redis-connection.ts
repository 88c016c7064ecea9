import { Redis, type RedisOptions } from 'ioredis';
import { JunoError } from '@junobench/core';
import type { RedisAddress } from './redis-url.js';

/**
 * ioredis options for the queue: commands wait through a Redis restart
 * (reconnecting every second or so) instead of failing, as BullMQ requires;
 * the callers bound every wait themselves so nothing hangs forever.
 */
export function planRedisOptions(address: RedisAddress, name: string): RedisOptions {
  return {
    host: address.host,
    port: address.port,
    db: address.db,
    ...(address.username ? { username: address.username } : {}),
    ...(address.password ? { password: address.password } : {}),
    ...(address.tls ? { tls: {} } : {}),
    connectionName: name,
    maxRetriesPerRequest: null,
    enableReadyCheck: true,
    retryStrategy: (times: number) => Math.min(250 * times, 2000),
  };
}

/** A connected client, or an environment error after `timeoutMs` naming the address and the fix. */
export async function connectRedis(address: RedisAddress, name: string, timeoutMs = 10_000): Promise<Redis> {
  const redis = new Redis({ ...planRedisOptions(address, name), lazyConnect: true });
  let lastError = '';
  redis.on('error', (e: Error) => {
    lastError = e.message;
  });
  try {
    await withTimeout(
      redis.connect().then(() => redis.ping()),
      timeoutMs,
      () => new Error(lastError || 'no answer'),
    );
  } catch (e) {
    redis.disconnect();
    throw new JunoError(
      'E_ENV_QUEUE',
      `cannot reach Redis at ${address.display}: ${lastError || (e as Error).message}`,
      {
        hint: 'start Redis there (on this machine: `sh tools/setup-redis.sh` starts one on redis://127.0.0.1:6417), or fix the --queue URL',
        cause: e,
      },
    );
  }
  return redis;
}

/** The promise's value, or the error made by `onTimeout` once `ms` have passed. */
export function withTimeout<T>(p: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(onTimeout()), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
