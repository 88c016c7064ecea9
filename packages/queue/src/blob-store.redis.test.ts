// Instance files through a real Redis: sent once, deduplicated, cached by workers on disk.
import { mkdtemp, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashInstanceTree, sha256 } from '@junobench/core';
import { blobKey, openBlobCache, writeBlobs } from './blob-store.js';
import { readInstanceManifest } from './instance-manifest.js';
import { deletePrefix, requireTestRedis, uniquePrefix } from '../test-helpers/queue.js';

const url = requireTestRedis();
const prefix = uniquePrefix('blobs');
let redis: Redis;
let dir: string;

beforeAll(async () => {
  redis = new Redis(url, { maxRetriesPerRequest: 1 });
  dir = await mkdtemp(path.join(os.tmpdir(), 'jb-blobs-'));
  for (const id of ['a', 'b']) {
    await mkdir(path.join(dir, id, 'data'), { recursive: true });
    await writeFile(path.join(dir, id, 'fixed.ipynb'), `{"id": "${id}"}`);
    // The same data file in both instances: one blob.
    await writeFile(path.join(dir, id, 'data', 'shared.csv'), 'x\n1\n2\n');
  }
});
afterAll(async () => {
  redis.disconnect();
  await deletePrefix(url, prefix);
  await rm(dir, { recursive: true, force: true });
});

describe('writeBlobs and openBlobCache', () => {
  it('sends each distinct file once, and nothing on a second run', async () => {
    const manifests = [
      await readInstanceManifest(path.join(dir, 'a')),
      await readInstanceManifest(path.join(dir, 'b')),
    ];
    const first = await writeBlobs(redis, prefix, manifests, { ttlSeconds: 600 });
    expect(first).toEqual({ blobs: 3, uploaded: 3, uploadedBytes: 11 + 11 + 6, reused: 0 });
    const again = await writeBlobs(redis, prefix, manifests, { ttlSeconds: 600 });
    expect(again).toEqual({ blobs: 3, uploaded: 0, uploadedBytes: 0, reused: 3 });
    expect(await redis.ttl(blobKey(prefix, sha256('x\n1\n2\n')))).toBeGreaterThan(500);
  });

  it('rebuilds an instance folder on a worker identical to the original, fetching each blob once', async () => {
    const m = await readInstanceManifest(path.join(dir, 'a'));
    const mb = await readInstanceManifest(path.join(dir, 'b'));
    await writeBlobs(redis, prefix, [m, mb]);
    const cacheDir = path.join(dir, 'worker-cache');
    const cache = openBlobCache(redis, prefix, cacheDir);
    const [tree, sameTree] = await Promise.all([
      cache.materialize(m.treeHash, m.blobs),
      cache.materialize(m.treeHash, m.blobs),
    ]);
    expect(sameTree).toBe(tree);
    expect(await hashInstanceTree(tree)).toBe(m.treeHash);
    const treeB = await cache.materialize(mb.treeHash, mb.blobs);
    expect(await hashInstanceTree(treeB)).toBe(mb.treeHash);
    expect(cache.fetched).toEqual({ blobs: 3, bytes: 28 });
    // Another worker process on the same disk cache fetches nothing.
    const second = openBlobCache(redis, prefix, cacheDir);
    expect(await second.materialize(m.treeHash, m.blobs)).toBe(tree);
    expect(second.fetched).toEqual({ blobs: 0, bytes: 0 });
    expect((await stat(path.join(cacheDir, 'blobs', m.blobs[0]!.sha256.slice(0, 2), m.blobs[0]!.sha256))).size).toBe(
      m.blobs[0]!.size,
    );
  });

  it('fails clearly when a blob is missing from Redis or its bytes do not match', async () => {
    const cache = openBlobCache(redis, prefix, path.join(dir, 'cache2'));
    const missing = { path: 'data/gone.csv', sha256: sha256('never sent'), size: 10, executable: false };
    await expect(cache.materialize('f'.repeat(64), [missing])).rejects.toThrow(
      /the blob of data\/gone\.csv .* is not in Redis/,
    );
    const forged = { path: 'x.txt', sha256: sha256('expected'), size: 8, executable: false };
    await redis.set(blobKey(prefix, forged.sha256), 'tampered');
    await expect(cache.materialize('e'.repeat(64), [forged])).rejects.toMatchObject({
      code: 'E_ENV_QUEUE',
      message: expect.stringMatching(/does not match its sha256 .*: removed from Redis, to be sent again$/),
    });
    await expect(stat(path.join(dir, 'cache2', 'trees', 'e'.repeat(64)))).rejects.toThrow(/ENOENT/);
    // Removed, so that the coordinator's next writeBlobs sends the real bytes instead of renewing the wrong ones.
    expect(await redis.exists(blobKey(prefix, forged.sha256))).toBe(0);
    await redis.set(blobKey(prefix, forged.sha256), 'expected');
    expect(await readFile(path.join(await cache.materialize('e'.repeat(64), [forged]), 'x.txt'), 'utf8')).toBe(
      'expected',
    );
  });

  it('checks a blob of its disk cache when it reads it: a damaged one is fetched again', async () => {
    const m = await readInstanceManifest(path.join(dir, 'a'));
    await writeBlobs(redis, prefix, [m]);
    const cacheDir = path.join(dir, 'cache3');
    await openBlobCache(redis, prefix, cacheDir).materialize('1'.repeat(64), m.blobs);
    const nb = m.blobs.find((b) => b.path === 'fixed.ipynb')!;
    await writeFile(path.join(cacheDir, 'blobs', nb.sha256.slice(0, 2), nb.sha256), '{"id": "poisoned"}');
    const cache = openBlobCache(redis, prefix, cacheDir);
    const tree = await cache.materialize('2'.repeat(64), m.blobs);
    expect(await readFile(path.join(tree, 'fixed.ipynb'), 'utf8')).toBe('{"id": "a"}');
    expect(cache.fetched).toEqual({ blobs: 1, bytes: nb.size });
  });

  it('refuses a file changed after it was hashed', async () => {
    const m = await readInstanceManifest(path.join(dir, 'a'));
    await writeFile(path.join(dir, 'a', 'fixed.ipynb'), '{"id": "changed"}');
    const fresh = uniquePrefix('changed');
    try {
      await expect(writeBlobs(redis, fresh, [m])).rejects.toThrow(
        /fixed\.ipynb changed while the run was being prepared/,
      );
    } finally {
      await deletePrefix(url, fresh);
      await writeFile(path.join(dir, 'a', 'fixed.ipynb'), '{"id": "a"}');
    }
    expect(await readFile(path.join(dir, 'a', 'fixed.ipynb'), 'utf8')).toBe('{"id": "a"}');
  });
});
