// Real git repositories in temporary folders, a bare one as the remote, through simple-git.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isJunoError } from '@junobench/core';
import { git, initRepoWithRemote } from '../test-helpers/git-repo.js';
import {
  assertCleanTree,
  createReleaseTag,
  formatTagMessage,
  openGitRepository,
  pushReleaseTag,
  readGitIdentity,
  readTag,
} from './git-release.js';

let root: string;
let repo: string;
let remote: string;

beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'junobench-git-'));
  ({ repo, remote } = await initRepoWithRemote(root, '# data\n'));
}, 60_000);
afterEach(() => rm(root, { recursive: true, force: true }));

const message = formatTagMessage({
  name: 'JunoBench',
  version: '0.1.0',
  archiveName: 'junobench-0.1.0.tar.gz',
  archiveSha256: 'a'.repeat(64),
  manifestSha256: 'b'.repeat(64),
  instances: 16,
});

describe('git release steps', { timeout: 60_000 }, () => {
  it('reads HEAD, its time and whether the tree is clean', async () => {
    const id = await readGitIdentity(openGitRepository(repo));
    expect(id.commit).toBe(git(repo, 'rev-parse', 'HEAD'));
    expect(id.commitTime).toBe(Number(git(repo, 'log', '-1', '--format=%ct')));
    expect(id.dirty).toBe(false);
    await writeFile(path.join(repo, 'new.txt'), 'x');
    expect((await readGitIdentity(openGitRepository(repo))).dirty).toBe(true);
    expect(await readGitIdentity(openGitRepository(root))).toEqual({ commit: null, dirty: null, commitTime: null });
  });

  it.each([
    ['a modified file', async () => writeFile(path.join(repo, 'README.md'), 'changed\n'), 'README.md'],
    ['an untracked file', async () => writeFile(path.join(repo, 'notes.txt'), 'x'), 'notes.txt'],
    [
      'a staged file',
      async () => {
        await writeFile(path.join(repo, 'staged.txt'), 'x');
        git(repo, 'add', 'staged.txt');
      },
      'staged.txt',
    ],
  ])('refuses a working tree with %s (exit 2), naming it', async (_n, change, name) => {
    await change();
    const err = await assertCleanTree(openGitRepository(repo), repo).catch((e: unknown) => e);
    expect(isJunoError(err) && err.code).toBe('E_GIT');
    expect(isJunoError(err) && err.exitCode).toBe(2);
    expect((err as Error).message).toContain(name);
  });

  it('creates the annotated tag whose message carries the archive sha256, and pushes it to the bare remote', async () => {
    const g = openGitRepository(repo);
    await assertCleanTree(g, repo);
    expect(await readTag(g, 'v0.1.0')).toEqual({ exists: false });
    await createReleaseTag(g, { tag: 'v0.1.0', message, remote: 'origin' });
    expect(git(repo, 'cat-file', '-t', 'v0.1.0')).toBe('tag');
    expect(git(repo, 'rev-list', '-n', '1', 'v0.1.0')).toBe(git(repo, 'rev-parse', 'HEAD'));
    const state = await readTag(g, 'v0.1.0');
    expect(state).toMatchObject({ exists: true, archiveSha256: 'a'.repeat(64) });
    expect(state.message).toContain('archive junobench-0.1.0.tar.gz sha256 ' + 'a'.repeat(64));
    // The remote has the same annotated tag object.
    expect(git(remote, 'rev-parse', 'v0.1.0')).toBe(git(repo, 'rev-parse', 'v0.1.0'));
    expect(git(remote, 'cat-file', '-p', 'v0.1.0')).toContain('manifest.json sha256 ' + 'b'.repeat(64));
    // Pushing again is harmless (a resumed publish).
    await pushReleaseTag(g, 'v0.1.0', 'origin');
  });

  it('an existing tag is seen, and creating it again fails', async () => {
    git(repo, 'tag', '-a', 'v0.1.0', '-m', 'made by hand');
    const g = openGitRepository(repo);
    expect(await readTag(g, 'v0.1.0')).toEqual({ exists: true, message: 'made by hand' });
    await expect(createReleaseTag(g, { tag: 'v0.1.0', message })).rejects.toThrow(/could not create tag v0\.1\.0/);
  });

  it('a push to a remote that does not exist fails with exit 1 and a hint', async () => {
    const g = openGitRepository(repo);
    await createReleaseTag(g, { tag: 'v0.1.0', message });
    const err = await pushReleaseTag(g, 'v0.1.0', 'nowhere').catch((e: unknown) => e);
    expect(isJunoError(err) && err.code).toBe('E_GIT');
    expect(isJunoError(err) && err.exitCode).toBe(1);
    expect((err as Error).message).toContain('could not push tag v0.1.0 to nowhere');
  });
});
