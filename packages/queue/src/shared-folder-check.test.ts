import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UnrecoverableError } from 'bullmq';
import { hashInstanceTree } from '@junobench/core';
import { SharedFolderCheck } from './shared-folder-check.js';

describe('SharedFolderCheck', () => {
  let root: string;
  let hash: string;
  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'jb-shared-check-'));
    await mkdir(path.join(root, 'raw', 'inst'), { recursive: true });
    await writeFile(path.join(root, 'raw', 'inst', 'nb.ipynb'), '{}');
    hash = await hashInstanceTree(path.join(root, 'raw', 'inst'));
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it("resolves a job's folder under this worker's shared folder once its tree hash matches", async () => {
    const check = new SharedFolderCheck('w1', root);
    await expect(check.resolve({ treeHash: hash, shared: { root: '/elsewhere', path: 'raw/inst' } })).resolves.toBe(
      path.join(root, 'raw', 'inst'),
    );
  });

  it('refuses every shared job on a worker started without a shared folder (for good)', async () => {
    const check = new SharedFolderCheck('w1', undefined);
    const e = await check.resolve({ treeHash: hash, shared: { root, path: 'raw/inst' } }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(UnrecoverableError);
    expect((e as Error).message).toMatch(/^worker w1 reads no instance folder in place/);
  });

  it("refuses a folder that differs from the coordinator's, for good", async () => {
    const check = new SharedFolderCheck('w1', root);
    const differs = (await check
      .resolve({ treeHash: 'f'.repeat(64), shared: { root, path: 'raw/inst' } })
      .catch((x: unknown) => x)) as Error;
    expect(differs).toBeInstanceOf(UnrecoverableError);
    expect(differs.message).toMatch(/^the instance folder raw\/inst of the shared folder on worker w1 differs/);
  });
});
