// `release publish --registry`: the image curated/image.json names is pushed to
// the real loopback registry (tools/setup-registry.sh) through the Engine API
// before the archive is sealed, so the archive's manifest names its digest.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatJson, type ImageRecord } from '@junobench/core';
import { publishRelease, verifyRelease } from '@junobench/publish';
import { readReleaseManifest } from '@junobench/release';
import { writeCuratedFixture, type Fixture } from '../packages/release/test-helpers/release.js';
import { buildStandinImage } from '../packages/release/test-helpers/standin-image.js';
import { runJunobench } from './run-cli.js';

const REGISTRY = process.env.JUNOBENCH_TEST_REGISTRY;
const image = `localhost/junobench-publish-test:${randomBytes(4).toString('hex')}`;
let docker: Docker;
let f: Fixture;
let repo: string;
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

beforeAll(async () => {
  if (!REGISTRY)
    throw new Error(
      'JUNOBENCH_TEST_REGISTRY is not set: run `sh tools/setup-registry.sh` (as root) and export the line it prints (npm test does both)',
    );
  const host = process.env.DOCKER_HOST ?? 'unix:///run/podman/podman.sock';
  docker = new Docker({ socketPath: host.replace(/^unix:\/\//, '') });
  await docker.ping().catch((e: unknown) => {
    throw new Error(
      `no container engine at ${host}: run \`sh tools/setup-engine.sh\` and export DOCKER_HOST (${(e as Error).message})`,
    );
  });
  f = await writeCuratedFixture([{ id: 'numpy_1' }, { id: 'pandas_1' }]);
  // A tiny stand-in for the benchmark image, recorded as `image build` records one.
  const info = await buildStandinImage(docker, image, { inImage: '/opt/junobench/runner.txt', content: `${image}\n` });
  const record: ImageRecord = {
    profile: 'debian',
    tag: image,
    imageId: info.id,
    size: info.size,
    recipeHash: 'r'.repeat(64),
    base: 'scratch',
    packages: {},
    modules: {},
    unavailable: {},
  };
  await writeFile(path.join(f.curated, 'image.json'), formatJson(record));

  repo = path.join(f.root, 'work');
  git(f.root, 'init', '-q', repo);
  git(repo, 'config', 'user.name', 'Release Tester');
  git(repo, 'config', 'user.email', 'release@example.org');
  await writeFile(path.join(repo, 'README.md'), '# toolchain\n');
  git(repo, 'add', '.');
  git(repo, 'commit', '-q', '-m', 'toolchain');
}, 300_000);

afterAll(async () => {
  // By id: the image pulled by digest keeps that name after its tags go, and would stay behind (one per run).
  for (const t of [`${REGISTRY}/junobench/benchmark:0.1.0`, image]) {
    const id = await docker
      ?.getImage(t)
      .inspect()
      .then((i) => i.Id)
      .catch(() => undefined);
    await docker
      ?.getImage(id ?? t)
      .remove({ force: true })
      .catch(() => undefined);
  }
  if (f) await rm(f.root, { recursive: true, force: true });
});

const publish = (version: string) =>
  publishRelease({
    version,
    curatedDir: f.curated,
    outDir: path.join(f.root, 'releases'),
    recipeDir: f.recipe,
    deprecatedFile: path.join(f.root, 'none.json'),
    metadataFile: path.join(f.root, 'none.json'),
    sourceDateEpoch: 1_767_225_600,
    toolchain: { version: '0.1.0', commit: 'c0ffee', dirty: false },
    toolchainRepository: 'https://github.com/junobench/junobench',
    repoDir: repo,
    registry: { address: REGISTRY!, docker: async () => docker },
  });

describe('publish --registry', () => {
  it('pushes the image first and seals its digest into the archive', async () => {
    const report = await publish('0.1.0');
    expect(report.steps.map((s) => `${s.status} ${s.what}`)).toEqual([
      'done check',
      'done image',
      'done prepare',
      'done verify',
      'done tag',
    ]);
    const digest = report.image!.digest;
    const served = await fetch(`http://${REGISTRY}/v2/junobench/benchmark/manifests/0.1.0`, {
      method: 'HEAD',
      headers: {
        accept: 'application/vnd.docker.distribution.manifest.v2+json, application/vnd.oci.image.manifest.v1+json',
      },
    });
    expect(served.headers.get('docker-content-digest')).toBe(digest);
    const archive = path.join(f.root, 'releases', 'junobench-0.1.0', 'junobench-0.1.0.tar.gz');
    // The manifest inside the archive (not only the one beside it) names the digest.
    const inside = await readReleaseManifest(archive);
    expect(inside.image).toMatchObject({
      tag: image,
      registry: {
        repository: `${REGISTRY}/junobench/benchmark`,
        tag: '0.1.0',
        digest,
        reference: `${REGISTRY}/junobench/benchmark@${digest}`,
      },
    });
    expect(git(repo, 'cat-file', '-p', 'v0.1.0')).toContain(report.archive.sha256);
    const check = await verifyRelease({ input: path.dirname(archive), run: false });
    expect(check.problems).toEqual([]);
    expect(check.ok).toBe(true);
  });

  it("release verify --runtime docker --image <the release's digest> pulls it when the engine lacks it (the card's command did not)", async () => {
    const archive = path.join(f.root, 'releases', 'junobench-0.1.0', 'junobench-0.1.0.tar.gz');
    const { reference } = (await readReleaseManifest(archive)).image.registry!;
    // A downloader's engine: no copy under any name.
    const id = (await docker.getImage(image).inspect()).Id;
    await docker.getImage(id).remove({ force: true });
    await expect(docker.getImage(reference).inspect()).rejects.toThrow();
    // The stand-in image has no Python: the pull is what is checked here, not the re-run.
    const r = await runJunobench(
      ['release', 'verify', archive, '--runtime', 'docker', '--image', reference, '--jobs', '1'],
      { cwd: f.root },
    );
    expect(r.stderr, r.stdout + r.stderr).toContain(`pulling ${reference}`);
    expect((await docker.getImage(reference).inspect()).Id).toBe(id);
    await docker.getImage(reference).tag({ repo: image.split(':')[0]!, tag: image.split(':')[1]! });
  }, 300_000);

  it('a release that would be refused (a version not greater than the last) is refused before the image is pushed', async () => {
    const err = await publish('0.0.9').catch((e: unknown) => e);
    // Every problem in one error, the release's refusal among them (exit 1: a refusal, not a usage error).
    expect(err).toMatchObject({
      code: 'E_PUBLISH',
      exitCode: 1,
      message: expect.stringContaining('version 0.0.9 is not greater than the previous release 0.1.0'),
    });
    const served = await fetch(`http://${REGISTRY}/v2/junobench/benchmark/manifests/0.0.9`, {
      method: 'HEAD',
      headers: {
        accept: 'application/vnd.docker.distribution.manifest.v2+json, application/vnd.oci.image.manifest.v1+json',
      },
    });
    expect(served.status).toBe(404);
  });
});
