// `release publish` through the CLI, as a terminal shows it (stdout and stderr
// together): each step once, when it is done — it printed every step twice, live
// on stderr and again as a summary on stdout — and, when a later step fails, the
// steps already done (tag made and pushed) still on screen beside the error; and
// prepare's warnings, which publish dropped; and the commands the release gives
// a downloader run in a folder of its assets.
import { execFile } from 'node:child_process';
import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git, initRepoWithRemote } from '../packages/release/test-helpers/git-repo.js';
import { writeCuratedFixture, type Fixture } from '../packages/release/test-helpers/release.js';
import { GithubReleasesServer } from '../packages/release/test-helpers/github-releases-server.js';
import { repoRoot, runJunobench } from './run-cli.js';

const TOKEN = 'ghp_' + 'q'.repeat(36);

let f: Fixture;
let gh: GithubReleasesServer;
let repo: string;
let remote: string;

beforeAll(async () => {
  f = await writeCuratedFixture([{ id: 'numpy_1' }, { id: 'pandas_1' }]);
  gh = await new GithubReleasesServer().start();
  gh.requireToken = TOKEN;
  ({ repo, remote } = await initRepoWithRemote(path.join(f.root, 'git')));
  // Where the card tells a downloader to clone the toolchain (this checkout has no hosted remote): publish refuses a
  // card that cannot say it.
  await mkdir(path.join(f.root, 'raw'), { recursive: true });
  await writeFile(
    path.join(f.root, 'raw', 'release.json'),
    JSON.stringify({ toolchainRepository: 'https://github.com/junobench/junobench' }),
  );
}, 60_000);
afterAll(async () => {
  await gh.stop();
  await rm(f.root, { recursive: true, force: true });
});

const publish = (version: string, token: string) =>
  runJunobench(
    [
      'release',
      'publish',
      version,
      '--from',
      f.curated,
      '--recipe',
      f.recipe,
      '--out',
      f.releases,
      '--repo',
      repo,
      '--remote',
      'origin',
      '--github',
      'junobench/junobench',
    ],
    {
      cwd: f.root,
      env: { SOURCE_DATE_EPOCH: '1767225600', GITHUB_TOKEN: token, GITHUB_API_URL: gh.url },
    },
  );

const count = (text: string, needle: string) => text.split(needle).length - 1;

describe('release publish on a terminal', () => {
  it('shows each step once, on stdout, then what was published', async () => {
    const r = await publish('0.1.0', TOKEN);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const screen = r.stdout + r.stderr;
    expect(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => l.split(/\s+/).slice(0, 2).join(' ')),
    ).toEqual([
      'done check',
      'done prepare',
      'done verify',
      'done tag',
      'done push-tag',
      'done github',
      'published v0.1.0:',
    ]);
    for (const needle of [
      'working tree clean',
      'annotated tag v0.1.0 on',
      'pushed v0.1.0 to origin',
      'files checked (SHA256SUMS',
      'uploaded 6, already there 0',
    ]) {
      expect(count(screen, needle), needle).toBe(1);
    }
    // The sub-steps (each upload) are on stderr, once each.
    expect(count(r.stderr, 'junobench-0.1.0.tar.gz: uploaded')).toBe(1);
    // And what `release prepare` warns about, as prepare says it (the fixture has no build lock): publish said nothing.
    expect(
      count(r.stderr, 'warning: curated/.build-lock.json is not there: cannot tell whether curated/ is up to date'),
    ).toBe(1);
    expect(r.stdout + r.stderr).not.toContain(TOKEN);
  }, 300_000);

  it('keeps the steps done on screen when a later step fails (GitHub refuses the token after the tag is pushed)', async () => {
    const r = await publish('0.2.0', 'ghp_' + 'w'.repeat(36));
    expect(r.code).not.toBe(0);
    expect(r.stdout).toMatch(/^done\s+tag\s+annotated tag v0\.2\.0 on/m);
    expect(r.stdout).toMatch(/^done\s+push-tag\s+pushed v0\.2\.0 to origin/m);
    expect(r.stdout).not.toMatch(/^done\s+github/m);
    expect(r.stderr).toMatch(/Bad credentials|401/);
    expect(git(remote, 'tag', '--list')).toContain('v0.2.0');
    expect(count(r.stdout + r.stderr, 'pushed v0.2.0 to origin')).toBe(1);
  }, 300_000);

  it('gives a downloader commands that run in a folder of the assets: the toolchain is not an npm package, so it is cloned beside them and run with npx --prefix', async () => {
    const r = await publish('0.3.0', TOKEN);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const rel = gh.release('junobench', 'junobench', 'v0.3.0')!;
    const download = path.join(f.root, 'download-0.3.0');
    await mkdir(download);
    for (const a of rel.assets) await writeFile(path.join(download, a.name), a.data);
    const block = (text: string) => /```sh\n([\s\S]*?)```/.exec(text)![1]!.trim().split('\n');
    // A bare `npx junobench` in that folder asks the npm registry for a package of that name (there is none; anyone
    // could publish one).
    const body = block(rel.body);
    // The toolchain at the commit that prepared the release, from its repository: not the dataset's tag v0.3.0.
    const commit = git(repoRoot, 'rev-parse', 'HEAD');
    const clone = `git clone https://github.com/junobench/junobench junobench-toolchain && git -C junobench-toolchain checkout --detach ${commit} && npm ci --prefix junobench-toolchain`;
    expect(body).toEqual([
      'sha256sum -c SHA256SUMS',
      clone,
      'npx --prefix junobench-toolchain junobench release verify junobench-0.3.0.tar.gz',
    ]);
    const card = await readFile(path.join(download, 'README.md'), 'utf8');
    const cardRun = block(card.slice(card.indexOf('## Run every case')));
    expect(cardRun[0]).toBe(clone);
    expect(
      cardRun
        .slice(1)
        .every((l) =>
          l.startsWith('npx --prefix junobench-toolchain junobench release verify junobench-0.3.0.tar.gz '),
        ),
    ).toBe(true);
    // Run them as given: the checkout under test stands in for the clone (no network here).
    await symlink(repoRoot, path.join(download, 'junobench-toolchain'));
    const sh = (line: string) => runShell(line, download);
    expect((await sh(body[0]!)).code).toBe(0);
    const verify = await sh(`${body[2]!} --no-run`);
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
    expect(verify.stdout).toMatch(/^OK: the release holds/m);
    const fromCard = await sh(cardRun.find((l) => l.includes('--no-run'))!.replace(/\s+#.*$/, ''));
    expect(fromCard.code, fromCard.stdout + fromCard.stderr).toBe(0);
  }, 300_000);
});

function runShell(line: string, cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    // npx finds the bin in the --prefix folder; offline so that nothing is ever fetched.
    execFile(
      'sh',
      ['-c', line],
      { cwd, env: { ...process.env, CI: '1', npm_config_offline: 'true', npm_config_update_notifier: 'false' } },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}
