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

// Real builds through dockerode against the engine at DOCKER_HOST
// (tools/setup-engine.sh starts one and makes the offline base image).

const DEBIAN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../docker/profiles/debian.json');
// A fixed, small recipe: the debian profile's kernel stack and NumPy. Its
// content-hash tag is stable, so it is built once per machine.
const INSTANCES = [
  { id: 'numpy_1', requires: ['numpy', 'os'] },
  { id: 'tf_1', requires: ['numpy', 'tensorflow'] },
];

let docker: Docker;
let tmp: string;
const cleanup: string[] = [];

beforeAll(async () => {
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

  // A first build installs ~180 Debian packages: minutes, more on a busy machine.
  it(
    'builds the debian profile image through dockerode and records it; a second build with nothing changed is skipped in seconds',
    { timeout: 1_500_000 },
    async () => {
      const root = path.join(tmp, 'debian');
      const lines: string[] = [];
      first = await buildImage({ docker, profile: DEBIAN, root, instances: INSTANCES, onOutput: (l) => lines.push(l) });
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
      const second = await buildImage({ docker, profile: DEBIAN, root, instances: INSTANCES });
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
    const built = await buildImage({ docker, profile, root, runnerDir, instances: INSTANCES.slice(0, 1), tag: extra });
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
      instances: INSTANCES.slice(0, 1),
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JunoError);
    expect((err as JunoError).code).toBe('E_IMAGE_BUILD');
    expect(`${(err as JunoError).message}\n${(err as JunoError).hint}`).toContain(
      'Unable to locate package python3-no-such-package-junobench',
    );
  });
});
