// `release publish` as a flow (publishRelease): a small curated benchmark,
// a real git repository with a bare remote, and the local GitHub releases
// server; the image push has its own test (test/release-publish.registry.test.ts).
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hashFile, isJunoError } from '@junobench/core';
import { git, initRepoWithRemote } from '../../release/test-helpers/git-repo.js';
import { GithubReleasesServer } from '../../release/test-helpers/github-releases-server.js';
import { writeCuratedFixture, type Fixture } from '../../release/test-helpers/release.js';
import { prepareRelease } from './release-prepare.js';
import { publishRelease, type PublishReleaseOptions } from './release-publish.js';

// Loaded as the flows load it: the lint holds a package to one way of loading a library.
const { createGitHubClient } = await import('@junobench/release');

const TOKEN = 'ghp_' + 'p'.repeat(36);

let f: Fixture;
let gh: GithubReleasesServer;
let repo: string;
let remote: string;
let n = 0;

beforeAll(async () => {
  f = await writeCuratedFixture([{ id: 'numpy_1' }, { id: 'pandas_1' }, { id: 'tensorflow_1', status: 'skipped' }]);
}, 60_000);
afterAll(() => rm(f.root, { recursive: true, force: true }));

beforeEach(async () => {
  gh = await new GithubReleasesServer().start();
  gh.requireToken = TOKEN;
  ({ repo, remote } = await initRepoWithRemote(path.join(f.root, `git${n++}`)));
}, 60_000);
afterEach(() => gh.stop());

function options(over: Partial<PublishReleaseOptions> = {}): PublishReleaseOptions {
  return {
    version: '0.1.0',
    curatedDir: f.curated,
    outDir: path.join(repo, '..', 'releases'),
    recipeDir: f.recipe,
    deprecatedFile: path.join(f.root, 'no-deprecated.json'),
    metadataFile: path.join(f.root, 'no-release.json'),
    sourceDateEpoch: 1_767_225_600,
    toolchain: { version: '0.1.0', commit: 'c0ffee', dirty: false },
    toolchainRepository: 'https://github.com/junobench/junobench',
    repoDir: repo,
    remote: 'origin',
    github: {
      owner: 'junobench',
      repo: 'junobench',
      hasToken: true,
      client: () => createGitHubClient({ token: TOKEN, baseUrl: gh.url, retries: 0 }),
    },
    ...over,
  };
}

describe('publishRelease', { timeout: 120_000 }, () => {
  it('--dry-run prints every step and changes nothing', async () => {
    const steps: string[] = [];
    const report = await publishRelease(options({ dryRun: true, onStep: (s) => steps.push(s) }));
    expect(report.steps.map((s) => `${s.status} ${s.what}`)).toEqual([
      'done check',
      'would prepare',
      'done verify',
      'would tag',
      'would push-tag',
      'would github',
    ]);
    expect(report.archive.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(steps.find((s) => s.startsWith('would tag'))).toContain(report.archive.sha256);
    expect(git(repo, 'tag', '--list')).toBe('');
    expect(git(remote, 'tag', '--list')).toBe('');
    expect(gh.requests).toEqual([]);
    await expect(stat(path.join(repo, '..', 'releases'))).rejects.toThrow();
  });

  it('writes the sealed release, tags it (message with the archive sha256), pushes the tag and creates the GitHub release with its assets', async () => {
    const report = await publishRelease(options());
    expect(report.steps.map((s) => `${s.status} ${s.what}`)).toEqual([
      'done check',
      'done prepare',
      'done verify',
      'done tag',
      'done push-tag',
      'done github',
    ]);
    const dir = path.join(repo, '..', 'releases', 'junobench-0.1.0');
    const archive = await readFile(path.join(dir, 'junobench-0.1.0.tar.gz'));
    const { createHash } = await import('node:crypto');
    expect(createHash('sha256').update(archive).digest('hex')).toBe(report.archive.sha256);
    expect(git(remote, 'cat-file', '-p', 'v0.1.0')).toContain(
      `archive junobench-0.1.0.tar.gz sha256 ${report.archive.sha256}`,
    );
    expect(git(repo, 'rev-list', '-n', '1', 'v0.1.0')).toBe(git(repo, 'rev-parse', 'HEAD'));
    const rel = gh.release('junobench', 'junobench', 'v0.1.0')!;
    expect(rel.name).toBe('JunoBench 0.1.0');
    expect(rel.body).toContain('First release: 3 instances.');
    expect(rel.body).toContain(`sha256 \`${report.archive.sha256}\``);
    expect(rel.assets.map((a) => a.name)).toEqual([
      'junobench-0.1.0.tar.gz',
      'SHA256SUMS',
      'manifest.json',
      'croissant.json',
      'README.md',
      'CHANGELOG.md',
    ]);
    for (const a of rel.assets) expect(a.data.equals(await readFile(path.join(dir, a.name)))).toBe(true);
    // A downloader's folder of the assets passes the check the release body gives (every file SHA256SUMS names was
    // uploaded).
    const download = path.join(repo, '..', 'download');
    await mkdir(download);
    for (const a of rel.assets) await writeFile(path.join(download, a.name), a.data);
    expect(execFileSync('sha256sum', ['-c', 'SHA256SUMS'], { cwd: download, encoding: 'utf8' })).not.toMatch(/FAILED/);
    // The Croissant file beside the archive points at the GitHub download.
    const croissant = JSON.parse(rel.assets.find((a) => a.name === 'croissant.json')!.data.toString('utf8')) as {
      distribution: { contentUrl: string; sha256?: string }[];
    };
    expect(croissant.distribution[0]).toMatchObject({
      contentUrl: 'https://github.com/junobench/junobench/releases/download/v0.1.0/junobench-0.1.0.tar.gz',
      sha256: report.archive.sha256,
    });
    // GITHUB_TOKEN went to GitHub and nowhere else.
    const written = await Promise.all((await readdir(dir)).map((name) => readFile(path.join(dir, name))));
    expect(written.some((b) => b.includes(TOKEN))).toBe(false);
    expect(JSON.stringify(report)).not.toContain(TOKEN);

    // Run again (as after a failure): the tag names this archive, the release and its assets are there.
    const uploadsBefore = gh.requests.filter((r) => r.path.startsWith('/uploads/')).length;
    const again = await publishRelease(options());
    expect(again.archive.sha256).toBe(report.archive.sha256);
    expect(again.steps.map((s) => `${s.status} ${s.what}`)).toEqual([
      'done check',
      'done prepare',
      'done verify',
      'skipped tag',
      'done push-tag',
      'done github',
    ]);
    expect(again.github).toMatchObject({
      created: false,
      uploaded: [],
      skipped: ['junobench-0.1.0.tar.gz', 'SHA256SUMS', 'manifest.json', 'croissant.json', 'README.md', 'CHANGELOG.md'],
    });
    expect(gh.requests.filter((r) => r.path.startsWith('/uploads/')).length).toBe(uploadsBefore);
    // `release prepare` again (same inputs; it knows no GitHub repository): the folder keeps the files that were
    // published, the croissant.json with its download URL included (rewriting it had dropped the URL and changed
    // SHA256SUMS).
    await prepareRelease(options());
    for (const a of rel.assets) expect(a.data.equals(await readFile(path.join(dir, a.name))), a.name).toBe(true);
  });

  it.each([
    ['an existing tag', () => git(repo, 'tag', '-a', 'v0.1.0', '-m', 'someone else'), /tag v0\.1\.0 already exists/],
    [
      'uncommitted changes',
      () => writeFile(path.join(repo, 'README.md'), 'edited\n'),
      /uncommitted changes \(README\.md\)/,
    ],
  ])('refuses %s (exit 2) before anything changes', async (_n, setup, message) => {
    await setup();
    const err = await publishRelease(options()).catch((e: unknown) => e);
    expect(isJunoError(err) && err.code).toBe('E_PUBLISH');
    expect(isJunoError(err) && err.exitCode).toBe(2);
    expect((err as Error).message).toMatch(message);
    expect(gh.requests).toEqual([]);
    await expect(stat(path.join(repo, '..', 'releases', 'junobench-0.1.0'))).rejects.toThrow();
  });

  it('replaces the folder `release prepare` wrote before the tag exists; once published, a different archive of the version is refused and the folder kept', async () => {
    const dir = path.join(repo, '..', 'releases', 'junobench-0.1.0');
    // prepare first (another SOURCE_DATE_EPOCH stands for anything that changes the archive, e.g. the image digest of
    // --registry).
    const prepared = await prepareRelease({ ...options(), sourceDateEpoch: 1_767_225_000 });
    const report = await publishRelease(options({ github: undefined }));
    expect(report.archive.sha256).not.toBe(prepared.written!.archive.sha256);
    expect(await hashFile(path.join(dir, 'junobench-0.1.0.tar.gz'))).toBe(report.archive.sha256);
    // v0.1.0 is out: preparing it again with other content must not replace the published archive.
    const err = await prepareRelease({ ...options(), sourceDateEpoch: 1_767_225_999 }).catch((e: unknown) => e);
    expect(isJunoError(err) && [err.code, err.exitCode]).toEqual(['E_STATE', 2]);
    expect(await hashFile(path.join(dir, 'junobench-0.1.0.tar.gz'))).toBe(report.archive.sha256);
    const again = await publishRelease(options({ github: undefined, sourceDateEpoch: 1_767_225_999 })).catch(
      (e: unknown) => e,
    );
    expect(isJunoError(again) && again.exitCode).toBe(2);
    expect(await hashFile(path.join(dir, 'junobench-0.1.0.tar.gz'))).toBe(report.archive.sha256);
  });

  it('refuses without GITHUB_TOKEN, and a version that is not semver', async () => {
    const noToken = await publishRelease(
      options({
        github: { owner: 'o', repo: 'r', hasToken: false, client: () => createGitHubClient({ baseUrl: gh.url }) },
      }),
    ).catch((e: unknown) => e);
    expect(isJunoError(noToken) && noToken.message).toMatch(
      /cannot be published \(1 problem[^)]*\):\n {2}- GITHUB_TOKEN is not set/,
    );
    expect(isJunoError(noToken) && [noToken.code, noToken.exitCode]).toEqual(['E_PUBLISH', 3]);
    const bad = await publishRelease(options({ version: 'v1' })).catch((e: unknown) => e);
    expect(isJunoError(bad) && bad.code).toBe('E_USAGE');
  });

  it('--dry-run lists every problem, not the first: a dirty tree does not hide the existing tag, the token or the card', async () => {
    git(repo, 'tag', 'v0.1.0');
    await writeFile(path.join(repo, 'notes.txt'), 'uncommitted\n');
    const e = await publishRelease(
      options({
        dryRun: true,
        github: undefined,
        toolchainRepository: undefined,
        remote: 'upstream',
      }),
    ).catch((x: unknown) => x);
    expect(isJunoError(e) && [e.code, e.exitCode]).toEqual(['E_PUBLISH', 1]);
    const message = isJunoError(e) ? e.message : '';
    expect(message).toMatch(
      /^dry run: release 0\.1\.0 would not be published \(4 problems, every one listed; nothing was changed\)/,
    );
    expect(message).toContain('the working tree has uncommitted changes (notes.txt)');
    expect(message).toContain('tag v0.1.0 already exists');
    expect(message).toContain('there is no remote named upstream');
    expect(message).toMatch(
      /the dataset card cannot tell a downloader where to get the toolchain: the toolchain's repository is not known/,
    );
    expect(git(remote, 'tag', '--list')).toBe('');
  });

  it("names the remote's URL in the dry run and the push, and calls out a remote that is a local path", async () => {
    const steps: string[] = [];
    const warnings: string[] = [];
    const events = {
      onEvent: (ev: Parameters<NonNullable<PublishReleaseOptions['onEvent']>>[0]) => {
        if (ev.kind === 'step') steps.push(`${ev.step.status} ${ev.step.what}: ${ev.step.detail}`);
        if (ev.kind === 'warning') warnings.push(ev.message);
      },
    };
    await publishRelease(options({ dryRun: true, ...events }));
    expect(steps).toContain(
      `would push-tag: push v0.1.0 to origin (${remote} — a local path on this machine, not a hosted repository)`,
    );
    expect(
      warnings.some((w) => w.startsWith(`remote origin is a local path (${remote}), not a hosted repository`)),
    ).toBe(true);
    steps.length = 0;
    await publishRelease(options(events));
    expect(steps).toContain(
      `done push-tag: pushed v0.1.0 to origin (${remote} — a local path on this machine, not a hosted repository)`,
    );
  });
});
