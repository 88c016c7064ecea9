import { mkdtemp, mkdir, readFile, symlink, writeFile, lstat, appendFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { copyInstanceTree, hashInstanceTree, readInstanceTree, validateInstanceId } from './instance-tree.js';
import { isJunoError } from './errors.js';

async function makeInstance(): Promise<{ root: string; inst: string }> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'jb-tree-'));
  const inst = path.join(root, 'inst');
  await mkdir(path.join(inst, 'data'), { recursive: true });
  await writeFile(path.join(inst, 'notes.txt'), 'notes');
  await writeFile(path.join(inst, 'data', 'a.csv'), 'x\n1\n');
  await writeFile(path.join(root, 'outside.txt'), 'secret');
  return { root, inst };
}

async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    expect(isJunoError(e)).toBe(true);
    return (e as Error).message;
  }
  throw new Error('expected a refusal');
}

describe('readInstanceTree / copyInstanceTree (the link rule)', () => {
  it('copies a link that stays inside as a regular file with the target content; writing the copy leaves the source alone', async () => {
    const { root, inst } = await makeInstance();
    await symlink('../notes.txt', path.join(inst, 'data', 'rel'));
    const dest = path.join(root, 'copy');
    const files = await copyInstanceTree(inst, dest);
    expect(files.map((f) => f.rel)).toEqual(['data/a.csv', 'data/rel', 'notes.txt']);
    expect((await lstat(path.join(dest, 'data', 'rel'))).isSymbolicLink()).toBe(false);
    await appendFile(path.join(dest, 'data', 'rel'), ' changed by a notebook');
    expect(await readFile(path.join(inst, 'notes.txt'), 'utf8')).toBe('notes');
  });

  it('into an existing folder (existingDest): copies, and never makes the folder or its parents again when gone', async () => {
    const { root, inst } = await makeInstance();
    const dest = await mkdtemp(path.join(root, 'scratch-'));
    await copyInstanceTree(inst, dest, { existingDest: true });
    expect(await readFile(path.join(dest, 'data', 'a.csv'), 'utf8')).toBe('x\n1\n');
    // A temp cleaner removed the run folder the scratch folder was made in.
    const gone = path.join(root, 'run-folder', 'scratch-1');
    await expect(copyInstanceTree(inst, gone, { existingDest: true })).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(lstat(path.join(root, 'run-folder'))).rejects.toMatchObject({ code: 'ENOENT' });
    // Without it, a destination that does not exist is made with its parents.
    await copyInstanceTree(inst, gone);
    expect(await readFile(path.join(gone, 'notes.txt'), 'utf8')).toBe('notes');
  });

  it.each([
    [
      'an absolute link out of the folder',
      async (inst: string, root: string) => symlink(path.join(root, 'outside.txt'), path.join(inst, 'data', 'abs')),
    ],
    [
      'a relative link out of the folder',
      async (inst: string) => symlink('../../outside.txt', path.join(inst, 'data', 'up')),
    ],
    ['a link to /etc/passwd', async (inst: string) => symlink('/etc/passwd', path.join(inst, 'data', 'passwd'))],
    ['a dangling link', async (inst: string) => symlink('missing.txt', path.join(inst, 'data', 'dangling'))],
    [
      'a link through another link that leaves',
      async (inst: string) => {
        await symlink('..', path.join(inst, 'data', 'up'));
        await symlink('up/../outside.txt', path.join(inst, 'data', 'chain'));
      },
    ],
    ['a folder link loop', async (inst: string) => symlink('..', path.join(inst, 'data', 'loop'))],
  ])('refuses %s, naming it', async (_name, make) => {
    const { root, inst } = await makeInstance();
    await make(inst, root);
    const msg = await refusal(readInstanceTree(inst));
    expect(msg).toMatch(/^data\/\S+ is /);
    const dest = path.join(root, 'copy');
    await refusal(copyInstanceTree(inst, dest));
  });

  it('refuses a FIFO', async () => {
    const { inst } = await makeInstance();
    execFileSync('mkfifo', [path.join(inst, 'data', 'pipe')]);
    expect(await refusal(readInstanceTree(inst))).toMatch(/data\/pipe is not a regular file/);
  });

  it('hashes a link by its target content: a changed target changes the hash', async () => {
    const { inst } = await makeInstance();
    await symlink('../notes.txt', path.join(inst, 'data', 'rel'));
    const before = await hashInstanceTree(inst);
    await writeFile(path.join(inst, 'notes.txt'), 'other notes');
    expect(await hashInstanceTree(inst)).not.toBe(before);
  });

  it('hashes a tree with a link like the same tree with the file copied in', async () => {
    const a = await makeInstance();
    await symlink('../notes.txt', path.join(a.inst, 'data', 'n.txt'));
    const b = await makeInstance();
    await writeFile(path.join(b.inst, 'data', 'n.txt'), 'notes');
    expect(await hashInstanceTree(a.inst)).toBe(await hashInstanceTree(b.inst));
  });
});

describe('validateInstanceId', () => {
  it.each(['pandas_3', 'NBspecific_1', 'a.b-c'])('accepts %s', (id) => expect(validateInstanceId(id)).toBe(id));
  it.each(['../x', 'a/b', '/etc', '.hidden', '..', 'a..b', '', 'x\n'])('refuses %j', (id) => {
    expect(() => validateInstanceId(id)).toThrow(/not a valid instance id/);
  });
});
