import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunFolder, sweepStaleRunFolders } from './run-folder.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'jb-run-folder-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('run folders', () => {
  it('one per runtime, owned by this process, removed once (also at exit)', async () => {
    const f = createRunFolder(root);
    expect(path.basename(f.dir)).toMatch(new RegExp(`^junobench-${process.pid}-`));
    expect(
      JSON.parse(await import('node:fs/promises').then((fs) => fs.readFile(path.join(f.dir, 'owner.json'), 'utf8'))),
    ).toMatchObject({ pid: process.pid });
    expect(process.listeners('exit')).toContainEqual(expect.any(Function));
    f.remove();
    f.remove();
    expect(existsSync(f.dir)).toBe(false);
  });

  it('sweeps folders whose owner is gone, keeps live ones, unowned ones and other names', async () => {
    const live = createRunFolder(root);
    const dead = path.join(root, 'junobench-4194305-dead');
    await mkdir(path.join(dead, 'runner-x'), { recursive: true });
    await writeFile(path.join(dead, 'owner.json'), JSON.stringify({ pid: 4194305 }));
    await writeFile(path.join(dead, 'runner-x', 'kernel-1.json'), '{"key": "secret"}');
    // pid alive but another process now (start time differs): stale too.
    const reused = path.join(root, `junobench-${process.pid}-reused`);
    await mkdir(reused);
    await writeFile(path.join(reused, 'owner.json'), JSON.stringify({ pid: process.pid, start: '1' }));
    const halfMade = path.join(root, 'junobench-4194305-nofile');
    await mkdir(halfMade);
    const other = path.join(root, 'junobench-image-x');
    await mkdir(other);
    const removed = sweepStaleRunFolders(root);
    expect(removed.sort()).toEqual([dead, reused].sort());
    expect((await readdir(root)).sort()).toEqual(
      [path.basename(halfMade), path.basename(other), path.basename(live.dir)].sort(),
    );
    live.remove();
  });

  it('a missing root sweeps nothing', () => {
    expect(sweepStaleRunFolders(path.join(root, 'absent'))).toEqual([]);
  });
});
