// Test-only helpers for the *.redis.test.ts files (never exported from index.ts).
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

/** The project's test Redis (tools/setup-redis.sh), or a failure saying how to get one. */
export function requireTestRedis(): string {
  const url = process.env.JUNOBENCH_TEST_REDIS;
  if (!url) {
    throw new Error(
      'JUNOBENCH_TEST_REDIS is not set: run `sh tools/setup-redis.sh` (it starts redis-server on loopback and prints the export line), or run the suite with `npm test`',
    );
  }
  return url;
}

/** A key prefix of its own per test, so tests never see each other's (or a user's) keys. */
export function uniquePrefix(name: string): string {
  return `jbtest-${name}-${randomBytes(4).toString('hex')}`;
}

/** Delete every key under a prefix (a test's cleanup). */
export async function deletePrefix(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, lazyConnect: true });
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } catch {
    // the server may be gone (a test's own Redis, stopped by the test): nothing to clean
  } finally {
    redis.disconnect();
  }
}
