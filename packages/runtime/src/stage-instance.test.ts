import { mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stageInstance } from './stage-instance.js';

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'jb-stage-'));
});
afterAll(() => rm(tmp, { recursive: true, force: true }));

describe('stageInstance', () => {
  it('a readable folder of hard links (same file system) under the root, links inside materialised', async () => {
    const inst = path.join(tmp, 'my runs', 'pandas_1');
    await mkdir(path.join(inst, 'data'), { recursive: true });
    await writeFile(path.join(inst, 'reproduced.ipynb'), '{}');
    await writeFile(path.join(inst, 'data', 'x.csv'), 'a\n1\n');
    await symlink('x.csv', path.join(inst, 'data', 'alias.csv'));
    const root = path.join(tmp, 'stage');
    await mkdir(root);
    const staged = await stageInstance(inst, root);
    expect(path.dirname(staged)).toBe(root);
    expect(staged).not.toContain('pandas_1');
    expect((await stat(staged)).mode & 0o777).toBe(0o755);
    expect((await stat(path.join(staged, 'data', 'x.csv'))).ino).toBe(
      (await stat(path.join(inst, 'data', 'x.csv'))).ino,
    );
    expect(await readFile(path.join(staged, 'data', 'alias.csv'), 'utf8')).toBe('a\n1\n');
    expect((await stat(path.join(staged, 'data', 'alias.csv'))).isFile()).toBe(true);
  });
});
