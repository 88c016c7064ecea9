// Remote URLs (local paths called out, clone URLs a downloader can use) and where a release's card clones the toolchain;
// real git repositories in temporary folders for the latter.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { git, initRepoWithRemote } from '../test-helpers/git-repo.js';
import { isLocalRemote, resolveToolchainRepository, toPublicCloneUrl } from './git-release.js';

describe('remotes and where to clone the toolchain', () => {
  it.each([
    ['/tmp/remote.git', true],
    ['../junobench', true],
    ['file:///srv/git/junobench.git', true],
    ['C:\\repos\\junobench', true],
    ['https://github.com/org/junobench.git', false],
    ['git@github.com:org/junobench.git', false],
    ['ssh://git@example.org/org/junobench.git', false],
  ])('%s is a local path: %s', (url, local) => {
    expect(isLocalRemote(url)).toBe(local);
  });

  it.each([
    ['git@github.com:org/junobench.git', 'https://github.com/org/junobench'],
    ['ssh://git@gitlab.com/org/junobench.git', 'https://gitlab.com/org/junobench'],
    ['https://token@github.com/org/junobench.git', 'https://github.com/org/junobench.git'],
  ])('%s is cloned by a downloader as %s', (url, clone) => {
    expect(toPublicCloneUrl(url)).toBe(clone);
  });

  it("takes the setting, else the checkout's remote unless it is a local path", async () => {
    const base = await mkdtemp(path.join(os.tmpdir(), 'jb-toolchain-remote-'));
    try {
      const { repo, remote } = await initRepoWithRemote(base);
      expect(await resolveToolchainRepository({ setting: 'git@github.com:org/x.git', root: repo })).toMatchObject({
        url: 'https://github.com/org/x',
      });
      const local = await resolveToolchainRepository({ root: repo });
      expect(local.url).toBeUndefined();
      expect(local.problem).toBe(`remote origin of the toolchain's checkout is a local path (${remote})`);
      git(repo, 'remote', 'set-url', 'origin', 'git@github.com:org/junobench.git');
      expect(await resolveToolchainRepository({ root: repo })).toEqual({
        url: 'https://github.com/org/junobench',
        from: "remote origin of the toolchain's checkout",
      });
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });
});
