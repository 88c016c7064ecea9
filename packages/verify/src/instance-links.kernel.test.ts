// End to end, with real kernels: instances are untrusted, and links in them
// follow one rule (core readInstanceTree) — a link inside the instance stands
// for its target's content, a link leaving it is refused by name. A notebook
// writing through a link can change only its scratch copy; the cache key
// follows the link's target.
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalRuntime, type Runtime } from '@junobench/runtime';
import { hashTree } from '@junobench/core';
import { verifyInstances } from './verify-instances.js';
import { writeTestInstance } from '../test-helpers/make-test-instance.js';

let runtime: Runtime;
let dir: string;

beforeAll(async () => {
  runtime = await createLocalRuntime();
  dir = await mkdtemp(path.join(os.tmpdir(), 'jb-links-'));
}, 300_000);

afterAll(async () => {
  await runtime?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('links in an instance, with a real kernel', () => {
  it("a notebook appending to data/rel -> ../notes.txt leaves the instance's notes.txt unchanged", async () => {
    const inst = await writeTestInstance(dir, {
      id: 'linked',
      // Writes through the link, then crashes as labelled; fixed reads through it.
      reproduced: [
        "open('data/rel', 'a').write('APPENDED BY THE NOTEBOOK\\n')",
        "raise ValueError(open('data/rel').read().strip().splitlines()[0])",
      ],
      fixed: ["print(open('data/rel').read())"],
      crash: { ename: 'ValueError', evalue: 'original notes', match: 'exact', cell: 1 },
    });
    await writeFile(path.join(inst, 'notes.txt'), 'original notes\n');
    await symlink('../notes.txt', path.join(inst, 'data', 'rel'));
    const before = await hashTree(inst);
    const cacheDir = path.join(dir, '.cache');

    const first = await verifyInstances({ instancesDir: dir, ids: ['linked'], runtime, cacheDir, jobs: 1 });
    expect(first.instances[0], JSON.stringify(first.instances[0]?.reproduced.reason)).toMatchObject({
      status: 'verified',
      cached: false,
    });
    expect(await readFile(path.join(inst, 'notes.txt'), 'utf8')).toBe('original notes\n');
    expect(await hashTree(inst)).toBe(before);

    // Served from the cache while the link's target is unchanged…
    const again = await verifyInstances({ instancesDir: dir, ids: ['linked'], runtime, cacheDir, jobs: 1 });
    expect(again.instances[0]).toMatchObject({ status: 'verified', cached: true });
    // …and run again when only the target changes (the key hashes its content, not the link's path).
    await writeFile(path.join(inst, 'notes.txt'), 'changed notes\n');
    const changed = await verifyInstances({ instancesDir: dir, ids: ['linked'], runtime, cacheDir, jobs: 1 });
    expect(changed.instances[0]).toMatchObject({ cached: false, status: 'not-verified' });
    expect(changed.instances[0]!.reproduced.observed).toMatchObject({ ename: 'ValueError', evalue: 'changed notes' });
  }, 300_000);

  it.each([
    ['an absolute link out of the instance', 'data/passwd', '/etc/passwd'],
    ['a relative link out of the instance', 'data/up', '../../outside.txt'],
    ['a dangling link', 'data/gone', 'no-such-file'],
  ])(
    'refuses %s by name before anything runs (exit 2 in the CLI)',
    async (_n, rel, target) => {
      const id = `leaky-${path.basename(rel)}`;
      const inst = await writeTestInstance(dir, {
        id,
        reproduced: ["raise ValueError('x')"],
        fixed: ['x = 1'],
        crash: { ename: 'ValueError', evalue: 'x', match: 'exact', cell: 0 },
      });
      await writeFile(path.join(dir, 'outside.txt'), 'outside\n');
      await mkdir(path.dirname(path.join(inst, rel)), { recursive: true });
      await symlink(target, path.join(inst, rel));
      const err = await verifyInstances({ instancesDir: dir, ids: [id], runtime }).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'E_INSTANCE', exitCode: 2, location: { file: path.join(inst, rel) } });
      expect((err as Error).message).toMatch(new RegExp(`^${rel.replace('/', '\\/')} is a symbolic link`));
    },
    300_000,
  );
});
