import { createHash, randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { JunoError, type QueueBlobRef } from '@junobench/core';
import type { InstanceManifest } from './instance-manifest.js';
import { withTimeout } from './redis-connection.js';

/** Blobs expire unless a run touches them again: Redis is a transport here, not an archive. */
export const BLOB_TTL_SECONDS = 7 * 24 * 3600;

/**
 * How every worker error about a blob begins: the coordinator sends a failed job's blobs again before its next try,
 * and a run that still fails on one is the environment's fault (Redis or the worker's disk), exit 3.
 */
export const BLOB_PROBLEM = 'the blob';

export function blobKey(prefix: string, sha256: string): string {
  return `${prefix}:blob:${sha256}`;
}

export interface BlobUploadStats {
  /** Distinct blobs the runs need. */
  blobs: number;
  uploaded: number;
  uploadedBytes: number;
  /** Already in Redis (another instance, an earlier run): not sent again. */
  reused: number;
}

/**
 * Put the files of the instances into Redis, each once under its sha256:
 * a file shared by instances, or already sent by an earlier run, is not sent
 * again (its expiry is renewed). Bytes are checked against the manifest as
 * they are read, so a file changed since it was hashed is refused rather than
 * sent under the wrong key.
 */
export async function writeBlobs(
  redis: Redis,
  prefix: string,
  manifests: readonly InstanceManifest[],
  options: {
    ttlSeconds?: number;
    /** Per Redis command: a Redis that stops answering is an error, not a hang. */ timeoutMs?: number;
  } = {},
): Promise<BlobUploadStats> {
  const ttl = options.ttlSeconds ?? BLOB_TTL_SECONDS;
  const guard = <T>(p: Promise<T>): Promise<T> =>
    options.timeoutMs === undefined
      ? p
      : withTimeout(
          p,
          options.timeoutMs,
          () =>
            new JunoError(
              'E_ENV_QUEUE',
              `Redis did not answer within ${Math.round(options.timeoutMs! / 1000)} s while instance files were being sent`,
              { hint: 'check that Redis is running and reachable, then run again' },
            ),
        );
  const wanted = new Map<string, { manifest: InstanceManifest; blob: QueueBlobRef }>();
  for (const m of manifests)
    for (const b of m.blobs) if (!wanted.has(b.sha256)) wanted.set(b.sha256, { manifest: m, blob: b });
  const shas = [...wanted.keys()];
  const stats: BlobUploadStats = { blobs: shas.length, uploaded: 0, uploadedBytes: 0, reused: 0 };
  for (let i = 0; i < shas.length; i += 500) {
    const chunk = shas.slice(i, i + 500);
    // EXPIRE answers 1 for a key that exists (and renews it), 0 for a missing one.
    const pipe = redis.pipeline();
    for (const sha of chunk) pipe.expire(blobKey(prefix, sha), ttl);
    const answers = (await guard(pipe.exec())) ?? [];
    for (const [k, sha] of chunk.entries()) {
      const [err, exists] = answers[k] ?? [null, 0];
      if (err) throw err;
      if (exists === 1) {
        stats.reused++;
        continue;
      }
      const { manifest, blob } = wanted.get(sha)!;
      const source = manifest.sources.get(blob.path)!;
      const bytes = await readFile(source.abs);
      if (sha256Of(bytes) !== sha) {
        throw new JunoError('E_INSTANCE', `${blob.path} changed while the run was being prepared`, {
          location: { file: path.join(manifest.dir, ...blob.path.split('/')) },
          hint: 'run again once nothing writes to the instance folder',
        });
      }
      await guard(redis.set(blobKey(prefix, sha), bytes, 'EX', ttl));
      stats.uploaded++;
      stats.uploadedBytes += bytes.length;
    }
  }
  return stats;
}

function sha256Of(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * A worker's on-disk cache of blobs and of the instance folders made from
 * them: `blobs/<aa>/<sha256>` and `trees/<tree hash>/`. A folder is built in
 * a temporary sibling and renamed into place, so a folder under `trees/` is
 * always complete; concurrent jobs for the same instance share one build.
 */
export interface BlobCache {
  readonly dir: string;
  /** The instance folder for these blobs, fetched from Redis where not cached. */
  materialize(treeHash: string, blobs: readonly QueueBlobRef[]): Promise<string>;
  /** Blobs fetched from Redis and bytes, since the cache was opened. */
  readonly fetched: { blobs: number; bytes: number };
}

export function openBlobCache(redis: Redis, prefix: string, dir: string): BlobCache {
  const building = new Map<string, Promise<string>>();
  const fetching = new Map<string, Promise<string>>();
  const fetched = { blobs: 0, bytes: 0 };

  const blobFile = (sha: string) => path.join(dir, 'blobs', sha.slice(0, 2), sha);

  const fetchBlob = (blob: QueueBlobRef): Promise<string> => {
    let p = fetching.get(blob.sha256);
    if (!p) {
      p = (async () => {
        const file = blobFile(blob.sha256);
        // A cached blob is checked like a fetched one: a damaged cache file is dropped and fetched again.
        const cached = await readFile(file).catch(() => undefined);
        if (cached && sha256Of(cached) === blob.sha256) return file;
        if (cached) await rm(file, { force: true });
        const key = blobKey(prefix, blob.sha256);
        const bytes = await redis.getBuffer(key);
        if (!bytes) {
          throw new JunoError(
            'E_ENV_QUEUE',
            `${BLOB_PROBLEM} of ${blob.path} (sha256 ${blob.sha256.slice(0, 12)}…) is not in Redis`,
            {
              hint: 'Redis lost it (restarted without persistence, or the blob expired): the coordinator sends it again before the job is tried again',
            },
          );
        }
        if (sha256Of(bytes) !== blob.sha256) {
          // Blobs are trusted by their key nowhere: wrong bytes under it (written by anyone who reaches Redis) are
          // removed, so that the coordinator sends the real ones before the job's next try instead of renewing them.
          await redis.del(key).catch(() => undefined);
          throw new JunoError(
            'E_ENV_QUEUE',
            `${BLOB_PROBLEM} of ${blob.path} in Redis does not match its sha256 ${blob.sha256.slice(0, 12)}…: removed from Redis, to be sent again`,
          );
        }
        await mkdir(path.dirname(file), { recursive: true });
        const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
        await writeFile(tmp, bytes);
        await rename(tmp, file);
        fetched.blobs++;
        fetched.bytes += bytes.length;
        return file;
      })();
      fetching.set(blob.sha256, p);
      // Only successes are remembered: a failed fetch is tried again by the next job.
      p.then(
        () => fetching.delete(blob.sha256),
        () => fetching.delete(blob.sha256),
      );
    }
    return p;
  };

  const materialize = (treeHash: string, blobs: readonly QueueBlobRef[]): Promise<string> => {
    let p = building.get(treeHash);
    if (!p) {
      p = (async () => {
        const tree = path.join(dir, 'trees', treeHash);
        if (await exists(tree)) return tree;
        const tmp = `${tree}.${randomBytes(4).toString('hex')}.tmp`;
        try {
          for (const b of blobs) {
            const src = await fetchBlob(b);
            const to = path.join(tmp, ...b.path.split('/'));
            // The job was checked against its schema; this guards the one thing that must never happen.
            if (!to.startsWith(tmp + path.sep))
              throw new JunoError(
                'E_QUEUE',
                `refusing blob path ${JSON.stringify(b.path)}: it leaves the instance folder`,
              );
            await mkdir(path.dirname(to), { recursive: true });
            // A copy, not a link: nothing done to the folder can reach the blob cache.
            await writeFile(to, await readFile(src));
            if (b.executable) await chmod(to, 0o755);
          }
          await mkdir(tmp, { recursive: true });
          await rename(tmp, tree).catch(async (e: NodeJS.ErrnoException) => {
            // Another process of this cache finished the same folder first: use theirs.
            if (e.code !== 'ENOTEMPTY' && e.code !== 'EEXIST') throw e;
            await rm(tmp, { recursive: true, force: true });
          });
          return tree;
        } catch (e) {
          await rm(tmp, { recursive: true, force: true });
          throw e;
        }
      })();
      building.set(treeHash, p);
      p.catch(() => building.delete(treeHash));
    }
    return p;
  };

  return { dir, materialize, fetched };
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}
