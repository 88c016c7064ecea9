import { mkdtemp, mkdir, rm, symlink, writeFile, chmod } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JunoError, hashInstanceTree, sha256 } from '@junobench/core';
import { checkBlobLimit, planTreeHash, readInstanceManifest } from './instance-manifest.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'jb-manifest-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('readInstanceManifest', () => {
  it('hashes each file and gives the same tree hash as core', async () => {
    const inst = path.join(dir, 'inst');
    await mkdir(path.join(inst, 'data', 'sub'), { recursive: true });
    await writeFile(path.join(inst, 'fixed.ipynb'), '{"cells": []}');
    await writeFile(path.join(inst, 'data', 'a.csv'), 'x,y\n1,2\n');
    await writeFile(path.join(inst, 'data', 'sub', 'run.sh'), '#!/bin/sh\n');
    await chmod(path.join(inst, 'data', 'sub', 'run.sh'), 0o755);
    // A link inside the folder travels as its target's content (the link rule).
    await symlink('a.csv', path.join(inst, 'data', 'b.csv'));
    const m = await readInstanceManifest(inst);
    expect(m.blobs).toEqual([
      { path: 'data/a.csv', sha256: sha256('x,y\n1,2\n'), size: 8, executable: false },
      { path: 'data/b.csv', sha256: sha256('x,y\n1,2\n'), size: 8, executable: false },
      { path: 'data/sub/run.sh', sha256: sha256('#!/bin/sh\n'), size: 10, executable: true },
      { path: 'fixed.ipynb', sha256: sha256('{"cells": []}'), size: 13, executable: false },
    ]);
    expect(m.treeHash).toBe(await hashInstanceTree(inst));
    expect(m.sources.get('data/b.csv')!.abs).toBe(
      path.join(await import('node:fs/promises').then((f) => f.realpath(inst)), 'data', 'a.csv'),
    );
  });

  it('refuses a link leaving the folder, naming it', async () => {
    const inst = path.join(dir, 'inst');
    await mkdir(inst);
    await writeFile(path.join(dir, 'secret'), 'x');
    await symlink('../secret', path.join(inst, 'leak'));
    await expect(readInstanceManifest(inst)).rejects.toThrow(
      /leak is a symbolic link to a path outside the instance folder/,
    );
  });
});

describe('planTreeHash', () => {
  it('does not depend on the order of the list', () => {
    const a = { path: 'a', sha256: '1'.repeat(64) };
    const b = { path: 'b/c', sha256: '2'.repeat(64) };
    expect(planTreeHash([a, b])).toBe(planTreeHash([b, a]));
    expect(planTreeHash([a, b])).not.toBe(planTreeHash([a, { ...b, sha256: '3'.repeat(64) }]));
  });
});

describe('checkBlobLimit', () => {
  const blob = (p: string, size: number) => ({ path: p, sha256: '0'.repeat(64), size, executable: false });

  it('accepts files up to the limit', () => {
    expect(() => checkBlobLimit({ dir: '/i', blobs: [blob('a', 100), blob('b', 1024)] }, 1024)).not.toThrow();
  });

  it('names the largest file over the limit, the count of the others, and both ways out', () => {
    let e: JunoError | undefined;
    try {
      checkBlobLimit(
        {
          dir: '/i/x',
          blobs: [blob('data/big.csv', 80 * 1024 * 1024 + 1), blob('data/b.bin', 70 * 1024 * 1024), blob('ok', 1)],
        },
        64 * 1024 * 1024,
      );
    } catch (err) {
      e = err as JunoError;
    }
    expect(e?.code).toBe('E_QUEUE_BLOB_LIMIT');
    expect(e?.exitCode).toBe(2);
    expect(e?.message).toBe(
      "data/big.csv is 80.0 MiB, over the queue's blob limit of 64.0 MiB (and 1 more file(s) over it): it cannot be sent to the workers through Redis",
    );
    expect(e?.location?.file).toBe(path.join('/i/x', 'data', 'big.csv'));
    expect(e?.hint).toContain('--shared-instances');
    expect(e?.hint).toContain('--queue-blob-limit 128m');
  });
});
