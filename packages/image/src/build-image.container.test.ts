import { randomBytes } from 'node:crypto';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type Docker from 'dockerode';
import { JunoError, type ImageLock, type ImageRecord } from '@junobench/core';
import { RUNNER_DIR, connectDockerEngine } from '@junobench/runtime';
import { buildImage } from './build-image.js';
import type { InstanceRequirement } from './plan-image-recipe.js';
import { readInstanceRequirements } from './read-instance-requirements.js';

// Real builds through dockerode against the engine at DOCKER_HOST
// (tools/setup-engine.sh starts one and makes the offline base image).

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
// The first recipe is the embedded instances' own with the debian profile, rendered in a copy of the checkout's
// docker/: the image every container test of the suite shares (test/containers-global-setup.ts builds it first), so
// a run builds it once; its content-hash tag is stable.
let INSTANCES: InstanceRequirement[];
// The recipes built on top of it: the kernel stack and NumPy.
const SMALL = [{ id: 'numpy_1', requires: ['numpy', 'os'] }];

let docker: Docker;
let tmp: string;
const cleanup: string[] = [];

beforeAll(async () => {
  INSTANCES = await readInstanceRequirements(path.join(REPO, 'raw/instances'));
  docker = await connectDockerEngine(process.env);
  tmp = await mkdtemp(path.join(os.tmpdir(), 'junobench-image-build-'));
});

afterAll(async () => {
  for (const tag of cleanup.reverse())
    await docker
      .getImage(tag)
      .remove({ force: true })
      .catch(() => undefined);
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe('buildImage (real engine)', () => {
  let first: Awaited<ReturnType<typeof buildImage>>;

  // A first build installs several hundred Debian packages: minutes, more on a busy machine (in the suite the
  // containers' global setup has built it already: then this one finds its tag and records it).
  it(
    'builds the debian profile image through dockerode and records it; a second build with nothing changed is skipped in seconds',
    { timeout: 1_500_000 },
    async () => {
      const root = path.join(tmp, 'debian');
      await cp(path.join(REPO, 'docker'), path.join(root, 'docker'), { recursive: true });
      first = await buildImage({ docker, profile: 'debian', root, instances: INSTANCES });
      expect(first.tag).toMatch(/^junobench\/benchmark:debian-[0-9a-f]{12}$/);
      const info = await docker.getImage(first.tag).inspect();
      expect(info.Id).toBe(first.imageId);
      expect(first.size).toBeGreaterThan(100e6);

      const record = JSON.parse(await readFile(first.recordFile, 'utf8')) as ImageRecord;
      expect(record).toMatchObject({
        profile: 'debian',
        tag: first.tag,
        imageId: first.imageId,
        base: 'junobench/base:bookworm',
      });
      expect(record.modules.numpy).toMatch(/^1\./);
      expect(record.modules.ipykernel).toMatch(/^\d/);
      expect(record.packages['python3-numpy']).toMatch(/^1:1\./);
      expect(record.unavailable).toEqual({ tensorflow: 'not packaged in Debian bookworm' });
      const lock = JSON.parse(await readFile(first.lockFile, 'utf8')) as ImageLock;
      expect(lock.tag).toBe(first.tag);
      expect(lock.installed['python3-ipykernel']).toBeTruthy();
      expect(lock.installed.dash).toBeTruthy();
      expect(await readFile(path.join(root, 'docker/Dockerfile.debian'), 'utf8')).toContain('python3-numpy');

      const recordBytes = await readFile(first.recordFile, 'utf8');
      const second = await buildImage({ docker, profile: 'debian', root, instances: INSTANCES });
      expect(second.skipped).toBe(true);
      expect(second.buildMs).toBe(0);
      expect(second.imageId).toBe(first.imageId);
      expect(await readFile(first.recordFile, 'utf8')).toBe(recordBytes);
    },
  );

  it('a changed recipe is really built again (on top of the first image), and --tag adds a tag', async () => {
    const root = path.join(tmp, 'changed');
    const profile = path.join(tmp, 'buildtest.json');
    await writeFile(
      profile,
      JSON.stringify({
        name: 'buildtest',
        base: first.tag,
        installer: 'apt',
        kernel: ['python3-ipykernel'],
        modules: { numpy: 'python3-numpy' },
      }),
    );
    // A runner whose package differs by a comment in one module: a new content hash, so a real build.
    const runnerDir = path.join(tmp, 'runner');
    await cp(RUNNER_DIR, runnerDir, { recursive: true });
    const module = path.join(runnerDir, 'jbrunner/protocol.py');
    await writeFile(module, `${await readFile(module, 'utf8')}\n# build test ${randomBytes(6).toString('hex')}\n`);
    const extra = `junobench/build-test:${randomBytes(4).toString('hex')}`;
    const built = await buildImage({ docker, profile, root, runnerDir, instances: SMALL, tag: extra });
    cleanup.push(built.tag, extra);
    expect(built.skipped).toBe(false);
    expect(built.tag).toMatch(/^junobench\/benchmark:buildtest-[0-9a-f]{12}$/);
    expect(built.tag).not.toBe(first.tag);
    expect((await docker.getImage(extra).inspect()).Id).toBe(built.imageId);
    expect(built.record.extraTags).toEqual([extra]);
  });

  it("a build that fails in the builder fails with the builder's own error text", async () => {
    const profile = path.join(tmp, 'broken.json');
    await writeFile(
      profile,
      JSON.stringify({
        name: 'broken',
        base: first.tag,
        installer: 'apt',
        kernel: ['python3-ipykernel'],
        modules: { numpy: 'python3-no-such-package-junobench' },
      }),
    );
    const err = await buildImage({
      docker,
      profile,
      root: path.join(tmp, 'broken'),
      instances: SMALL,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JunoError);
    expect((err as JunoError).code).toBe('E_IMAGE_BUILD');
    expect(`${(err as JunoError).message}\n${(err as JunoError).hint}`).toContain(
      'Unable to locate package python3-no-such-package-junobench',
    );
  });
});
