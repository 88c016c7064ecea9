import { createHash } from 'node:crypto';
import path from 'node:path';
import { JunoError, formatBytes, hashFile, readInstanceTree, type QueueBlobRef, type TreeFile } from '@junobench/core';

/** An instance folder as the queue sends it: one blob per file, keyed by the file's sha256. */
export interface InstanceManifest {
  dir: string;
  /** Equal to core's hashInstanceTree(dir): what a worker checks its copy against. */
  treeHash: string;
  blobs: QueueBlobRef[];
  /** Where each blob's bytes are on this machine (links inside the folder resolved), by path. */
  sources: Map<string, TreeFile>;
}

/**
 * Read an instance folder under the link rule (core's readInstanceTree: links
 * inside are content, links out refused) and hash each file once.
 */
export async function readInstanceManifest(dir: string): Promise<InstanceManifest> {
  const files = await readInstanceTree(dir);
  const blobs: QueueBlobRef[] = [];
  const sources = new Map<string, TreeFile>();
  for (const f of files) {
    blobs.push({ path: f.rel, sha256: await hashFile(f.abs), size: f.size, executable: f.executable });
    sources.set(f.rel, f);
  }
  return { dir, treeHash: planTreeHash(blobs), blobs, sources };
}

/** The tree hash of a list of files, computed exactly as core's hashInstanceTree does from a folder. */
export function planTreeHash(blobs: readonly Pick<QueueBlobRef, 'path' | 'sha256'>[]): string {
  const h = createHash('sha256');
  for (const b of [...blobs].sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0)))
    h.update(`F ${b.path}\0${b.sha256}\0`);
  return h.digest('hex');
}

/**
 * Refuse a file that is too big to travel through Redis (which keeps every
 * blob in memory), naming it and the two ways out.
 */
export function checkBlobLimit(manifest: Pick<InstanceManifest, 'dir' | 'blobs'>, limitBytes: number): void {
  const over = manifest.blobs.filter((b) => b.size > limitBytes).sort((a, b) => b.size - a.size);
  if (over.length === 0) return;
  const first = over[0]!;
  const more = over.length > 1 ? ` (and ${over.length - 1} more file(s) over it)` : '';
  throw new JunoError(
    'E_QUEUE_BLOB_LIMIT',
    `${first.path} is ${formatBytes(first.size, { decimals: 1 })}, over the queue's blob limit of ${formatBytes(limitBytes, { decimals: 1 })}${more}: it cannot be sent to the workers through Redis`,
    {
      location: { file: path.join(manifest.dir, ...first.path.split('/')) },
      hint:
        'put the instances on a folder every worker mounts and pass --shared-instances <that folder> (workers then read it in place), ' +
        `or raise the limit with --queue-blob-limit ${nextLimitMiB(first.size)}m if Redis has the memory for it`,
    },
  );
}

function nextLimitMiB(size: number): number {
  let mib = 1;
  while (mib * 1024 * 1024 < size) mib *= 2;
  return mib;
}
