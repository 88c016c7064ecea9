// Releases end to end through the CLI, on a curated benchmark built from a copy
// of the embedded raw/ (one build, real kernels): prepare, verify without and
// with a real re-run in the local runtime, tamper detection, deprecation and
// the next release's changelog, the refusal of a version not greater than the
// last, and publish --dry-run.
import { execFileSync } from 'node:child_process';
import { appendFile, cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { extractArchive } from '@junobench/archive';
import { checkSchema, type ReleaseManifest } from '@junobench/core';
import { GithubReleasesServer } from '../packages/release/test-helpers/github-releases-server.js';
import { repoRoot, runJunobench, type CliRun } from './run-cli.js';
import { copyEmbeddedBuild, embeddedBuild } from './suite-build.js';

let work: string;
let releases: string;
let prepared: CliRun;
const env = { SOURCE_DATE_EPOCH: '1767225600' };
const recipe = path.join(repoRoot, 'docker');

beforeAll(async () => {
  // The suite's build (test/suite-build.ts) is the fixture here, copied: test/build.e2e.test.ts proves it. The re-run
  // below never uses a cache.
  const base = await mkdtemp(path.join(os.tmpdir(), 'jb-release-e2e-'));
  const build = await embeddedBuild();
  if (build.run.code === 3)
    throw new Error(`no Python kernel stack: run \`sh tools/setup-python.sh\` first\n${build.run.stderr}`);
  expect(build.run.code, build.run.stderr).toBe(0);
  ({ dir: work } = await copyEmbeddedBuild(base));
  // Where the card tells a downloader to clone the toolchain (this checkout has no hosted remote): publish refuses a
  // card that cannot say it. Only `release` reads it, so the shared build does not have it.
  await writeFile(
    path.join(work, 'raw', 'release.json'),
    JSON.stringify({ toolchainRepository: 'https://github.com/junobench/junobench' }),
  );
  releases = path.join(work, 'releases');
  prepared = await runJunobench(['release', 'prepare', '0.1.0', '--recipe', recipe], { cwd: work, env });
}, 1_800_000);

const manifestOf = async (version: string) =>
  JSON.parse(await readFile(path.join(releases, `junobench-${version}`, 'manifest.json'), 'utf8')) as ReleaseManifest;

describe('junobench release', () => {
  it('prepare writes the release folder: archive, manifest, SHA256SUMS, card, Croissant, changelog', async () => {
    expect(prepared.code, prepared.stderr).toBe(0);
    expect(prepared.stdout).toMatch(/release 0\.1\.0: 16 instances \(15 verified, 1 skipped-env\)/);
    expect(prepared.stdout).toMatch(/tensorflow_1: skipped-env \(required module tensorflow/);
    const dir = path.join(releases, 'junobench-0.1.0');
    expect(execFileSync('sha256sum', ['-c', 'SHA256SUMS'], { cwd: dir, encoding: 'utf8' }).match(/: OK/g)).toHaveLength(
      5,
    );
    const m = await manifestOf('0.1.0');
    expect(m.totals).toMatchObject({ instances: 16, verified: 15, skippedEnv: 1 });
    expect(m.instances.find((i) => i.id === 'tensorflow_1')).toMatchObject({ status: 'skipped-env' });
    expect(m.image.recipe).toContain('image/Dockerfile.debian');
    const card = await readFile(path.join(dir, 'README.md'), 'utf8');
    expect(card).toMatch(/^---\nlicense: other\n/);
    // From a folder of the downloaded assets, with the toolchain's checkout beside them (it is not an npm package).
    expect(card).toContain('npx --prefix junobench-toolchain junobench release verify junobench-0.1.0.tar.gz');
  });

  it('verify --no-run passes on the release folder', async () => {
    const r = await runJunobench(['release', 'verify', path.join(releases, 'junobench-0.1.0'), '--no-run']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^release 0\.1\.0: \d+ files .* checked against SHA256SUMS and manifest\.json/m);
    expect(r.stdout).toMatch(/^OK: the release holds/m);
  });

  it('verify re-executes every instance from the extracted archive and finds the released outcomes', async () => {
    const r = await runJunobench([
      'release',
      'verify',
      path.join(releases, 'junobench-0.1.0', 'junobench-0.1.0.tar.gz'),
      '--json',
      path.join(work, 'verify.json'),
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /^re-run \(local runtime\) of 16 instances: 15 as released \(the outcomes of verification\.json\), 1 not checked here \(cannot run in this runtime\)$/m,
    );
    expect(r.stdout).toMatch(/not checked here: tensorflow_1/);
    expect(r.stderr).toMatch(/note: the release's 16 instances run in the local runtime's bubblewrap sandbox/);
    const result = JSON.parse(await readFile(path.join(work, 'verify.json'), 'utf8')) as {
      ok: boolean;
      verification: { instances: { cached: boolean }[] };
    };
    expect(checkSchema('release-verify-report', result)).toEqual([]);
    expect(result.ok).toBe(true);
    // A real re-run: nothing came from a cache.
    expect(result.verification.instances.every((i) => i.cached === false)).toBe(true);
  }, 1_200_000);

  it('a tampered release fails, naming the file and the instance', async () => {
    const x = path.join(work, 'tampered');
    await mkdir(x);
    execFileSync('tar', ['-xzf', path.join(releases, 'junobench-0.1.0', 'junobench-0.1.0.tar.gz'), '-C', x]);
    const file = path.join(x, 'junobench-0.1.0', 'instances', 'pandas_1', 'instance.json');
    await writeFile(
      file,
      (await readFile(file, 'utf8')).replace(/"rootCause": "[^"]+"/, '"rootCause": "library cause"'),
    );
    const r = await runJunobench(['release', 'verify', path.join(x, 'junobench-0.1.0'), '--no-run']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('checksum-mismatch: instances/pandas_1/instance.json: sha256 differs from SHA256SUMS');
    expect(r.stdout).toMatch(
      /label-mismatch: pandas_1: label rootCause is "library cause" in instances\/pandas_1\/instance\.json/,
    );
    expect(r.stdout).toMatch(/^FAILED/m);
  });

  it('a release that fails its checks is not run: an altered notebook never executes', async () => {
    const x = path.join(work, 'altered');
    await mkdir(x);
    execFileSync('tar', ['-xzf', path.join(releases, 'junobench-0.1.0', 'junobench-0.1.0.tar.gz'), '-C', x]);
    const marker = path.join(work, 'altered-notebook-ran');
    const nb = path.join(x, 'junobench-0.1.0', 'instances', 'pandas_1', 'reproduced.ipynb');
    const doc = JSON.parse(await readFile(nb, 'utf8')) as { cells: { cell_type: string; source: string | string[] }[] };
    const first = doc.cells.find((c) => c.cell_type === 'code')!;
    first.source = [
      `open(${JSON.stringify(marker)}, 'w').write('ran')\n`,
      ...(Array.isArray(first.source) ? first.source : [first.source]),
    ];
    await writeFile(nb, JSON.stringify(doc));
    const r = await runJunobench(['release', 'verify', path.join(x, 'junobench-0.1.0')]);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toContain('checksum-mismatch: instances/pandas_1/reproduced.ipynb');
    expect(r.stdout).toMatch(
      /^re-run: not done — the release failed \d+ checks? above: its files are not the ones released, so nothing of it is run$/m,
    );
    expect(await readFile(marker, 'utf8').catch(() => 'absent')).toBe('absent');
  }, 120_000);

  it('a hostile release folder: SHA256SUMS naming files outside it and special files beside the archive are reported, never opened', async () => {
    const x = path.join(work, 'hostile');
    await cp(path.join(releases, 'junobench-0.1.0'), x, { recursive: true });
    const zeros = '0'.repeat(64);
    // /dev/zero would never end if it were hashed; ../ names a file of the machine, not of the release.
    await appendFile(path.join(x, 'SHA256SUMS'), `${zeros}  ../../../../../../dev/zero\n${zeros}  /etc/hostname\n`);
    await rm(path.join(x, 'croissant.json'));
    execFileSync('mkfifo', [path.join(x, 'croissant.json')]);
    await rm(path.join(x, 'manifest.json'));
    await symlink('/dev/zero', path.join(x, 'manifest.json'));
    const r = await runJunobench(['release', 'verify', x, '--no-run']);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toContain(
      'SHA256SUMS names ../../../../../../dev/zero, which is not a file of the release folder itself',
    );
    expect(r.stdout).toContain('SHA256SUMS names /etc/hostname, which is not a file of the release folder itself');
    expect(r.stdout).toContain('croissant.json in the release folder is not a regular file (a special file)');
    expect(r.stdout).toContain('manifest.json in the release folder is not a regular file (a symbolic link)');
    expect(r.stdout).not.toMatch(/hostname is listed|hostname: sha256 differs/);
    expect(r.stdout).toMatch(/^FAILED/m);
  }, 60_000);

  it('deprecate records the instance; the next release leaves it out and says so; the version must grow', async () => {
    const d = await runJunobench(
      ['deprecate', 'pandas_2', '--reason', 'the input dataset was withdrawn by its author'],
      { cwd: work },
    );
    expect(d.code, d.stderr).toBe(0);
    expect(d.stdout).toMatch(/^pandas_2 deprecated in 0\.2\.0/);
    expect(JSON.parse(await readFile(path.join(work, 'raw', 'deprecated.json'), 'utf8'))).toEqual({
      instances: [{ id: 'pandas_2', deprecatedIn: '0.2.0', reason: 'the input dataset was withdrawn by its author' }],
    });
    const again = await runJunobench(['deprecate', 'pandas_2', '--reason', 'twice'], { cwd: work });
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/already deprecated/);

    const next = await runJunobench(
      ['release', 'prepare', '0.2.0', '--recipe', recipe, '--json', path.join(work, 'prepare-0.2.0.json')],
      { cwd: work, env },
    );
    expect(next.code, next.stderr).toBe(0);
    const plan = JSON.parse(await readFile(path.join(work, 'prepare-0.2.0.json'), 'utf8'));
    expect(checkSchema('release-prepare-report', plan)).toEqual([]);
    expect(plan.changelog).toMatchObject({
      previous: '0.1.0',
      removed: [{ id: 'pandas_2', deprecated: { deprecatedIn: '0.2.0' } }],
    });
    expect(next.stdout).toMatch(/15 instances .*1 deprecated left out/);
    expect(next.stdout).toMatch(/changes since 0\.1\.0: 0 added, 1 removed, 0 changed/);
    const m = await manifestOf('0.2.0');
    expect(m.instances.map((i) => i.id)).not.toContain('pandas_2');
    expect(m.deprecated).toEqual([
      { id: 'pandas_2', deprecatedIn: '0.2.0', reason: 'the input dataset was withdrawn by its author' },
    ]);
    expect(m.previous).toEqual({ version: '0.1.0' });
    // The build keeps pandas_2, so its report shows it: the release's report/ is rendered again without it.
    const reportPaths = m.files.map((f) => f.path).filter((p) => p.startsWith('report/'));
    expect(reportPaths).toContain('report/index.html');
    expect(reportPaths.filter((p) => p.startsWith('report/instances/'))).toHaveLength(15);
    expect(reportPaths).not.toContain('report/instances/pandas_2.html');
    expect(next.stderr).not.toMatch(/warning: .*report/);
    const dir = path.join(releases, 'junobench-0.2.0');
    const extracted = path.join(work, 'extracted-0.2.0');
    await extractArchive(path.join(dir, 'junobench-0.2.0.tar.gz'), extracted);
    const index = await readFile(path.join(extracted, 'junobench-0.2.0', 'report', 'index.html'), 'utf8');
    // No row, no page: the deprecated instance is listed only among the deprecated ones, with its reason and version.
    const deprecations = /<section aria-labelledby="deprecated">[\s\S]*?<\/section>/;
    expect(index.replace(deprecations, '')).not.toContain('pandas_2');
    expect(deprecations.exec(index)?.[0]).toMatch(/<tr><td>pandas_2<\/td><td>0\.2\.0<\/td><td>/);
    expect(index).toMatch(/<b id="count-shown">15<\/b> of 15 instances shown/);
    expect(await readFile(path.join(dir, 'CHANGELOG.md'), 'utf8')).toContain(
      '- pandas_2 — deprecated in 0.2.0: the input dataset was withdrawn by its author',
    );
    const card = await readFile(path.join(dir, 'README.md'), 'utf8');
    expect(card).toContain('## Deprecated instances');
    // Agreement over the 15 remaining instances' annotations, not the study's 16.
    expect(card).toMatch(/^\| library \| [0-9.]+ \| [0-9.]+ \| 15 \|$/m);
    expect(card).toContain('Computed over the annotations without the deprecated instance (pandas_2).');
    expect(card).not.toContain('not recomputed');
    const v = await runJunobench(['release', 'verify', dir, '--no-run']);
    expect(v.code, v.stdout).toBe(0);

    const older = await runJunobench(['release', 'prepare', '0.1.1', '--recipe', recipe], { cwd: work, env });
    expect(older.code).toBe(1);
    expect(older.stderr).toMatch(
      /release 0\.1\.1 refused \(1 reason\):\n\s+- version 0\.1\.1 is not greater than the previous release 0\.2\.0/,
    );
  }, 300_000);

  it('a curated/ older than raw/ is not released: a label edited after the build is refused, naming what changed', async () => {
    const file = path.join(work, 'raw', 'annotations', 'annotator-a.jsonl');
    const before = await readFile(file, 'utf8');
    await writeFile(file, before.replace('"rootCause": "API misuse"', '"rootCause": "data confusion"'));
    try {
      const r = await runJunobench(['release', 'prepare', '0.3.0', '--recipe', recipe, '--dry-run'], {
        cwd: work,
        env,
      });
      expect(r.code, r.stderr).toBe(1);
      expect(r.stdout).toMatch(
        /REFUSED: curated\/ is older than its sources: raw\/annotations \(read by labels, report\) changed since the build that made it, .*run `junobench build`, then prepare again/,
      );
    } finally {
      await writeFile(file, before);
    }
    const again = await runJunobench(['release', 'prepare', '0.3.0', '--recipe', recipe, '--dry-run'], {
      cwd: work,
      env,
    });
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).not.toContain('REFUSED');
  }, 300_000);

  it('publish --dry-run prints every step, changes nothing and never prints the token', async () => {
    const repo = path.join(work, 'repo');
    await mkdir(repo);
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' });
    git('init', '-q');
    git('-c', 'user.name=t', '-c', 'user.email=t@example.org', 'commit', '-q', '--allow-empty', '-m', 'start');
    const gh = await new GithubReleasesServer().start();
    const token = 'ghp_' + 'e'.repeat(36);
    try {
      const r = await runJunobench(
        [
          'release',
          'publish',
          '0.3.0',
          '--recipe',
          recipe,
          '--repo',
          repo,
          '--github',
          'junobench/junobench',
          '--dry-run',
        ],
        {
          cwd: work,
          env: { ...env, GITHUB_TOKEN: token, GITHUB_API_URL: gh.url },
        },
      );
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^would\s+tag\s+create annotated tag v0\.3\.0/m);
      expect(r.stdout).toMatch(/^would\s+github\s+create \(or reuse\) the release v0\.3\.0 of junobench\/junobench/m);
      expect(r.stdout).toMatch(/^dry run: nothing was changed/m);
      expect(r.stdout + r.stderr).not.toContain(token);
      expect(git('tag', '--list').trim()).toBe('');
      expect(gh.requests).toEqual([]);
      await expect(readFile(path.join(releases, 'junobench-0.3.0', 'manifest.json'))).rejects.toThrow();
    } finally {
      await gh.stop();
    }
  });
});
