import { PassThrough } from 'node:stream';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type Docker from 'dockerode';
import { JunoError } from '@junobench/core';
import { buildImage } from './build-image.js';
import { readImageRecord } from './read-image-record.js';

const DEBIAN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../docker/profiles/debian.json');

/** Enough of dockerode for the paths that end before any container runs. */
function fakeDocker(opts: { images: string[]; events?: object[] }) {
  const builds: { options: object }[] = [];
  const docker = {
    getImage: (name: string) => ({
      inspect: async () => {
        if (!opts.images.includes(name)) throw Object.assign(new Error('no such image'), { statusCode: 404 });
        return { Id: `sha256:${'1'.repeat(64)}`, Size: 1 };
      },
    }),
    buildImage: async (context: NodeJS.ReadableStream, options: object) => {
      builds.push({ options });
      context.resume();
      const out = new PassThrough({ objectMode: true });
      setImmediate(() => {
        for (const e of opts.events ?? []) out.write(e);
        out.end();
      });
      return out;
    },
    modem: {
      followProgress(stream: PassThrough, done: (err: Error | null) => void, onEvent: (e: object) => void) {
        stream.on('data', onEvent);
        stream.on('end', () => done(null));
      },
    },
  };
  return { docker: docker as unknown as Docker, builds };
}

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'junobench-build-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const instances = [{ id: 'numpy_1', requires: ['numpy'] }];

describe('buildImage (fake engine)', () => {
  it("fails with the builder's own error text, and writes the Dockerfile it tried", async () => {
    const fake = fakeDocker({
      images: ['junobench/base:bookworm'],
      events: [
        { stream: 'STEP 1/9: FROM junobench/base:bookworm\n' },
        { stream: 'E: Unable to locate package python3-nope\n' },
        {
          error: 'building at STEP "RUN apt-get update": while running runtime: exit status 100',
          errorDetail: { message: 'exit status 100' },
        },
      ],
    });
    const err = await buildImage({ docker: fake.docker, profile: DEBIAN, root: tmp, instances }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(JunoError);
    expect(err).toMatchObject({ code: 'E_IMAGE_BUILD', exitCode: 1 });
    expect((err as JunoError).message).toContain('while running runtime: exit status 100');
    expect((err as JunoError).hint).toContain('E: Unable to locate package python3-nope');
    expect(fake.builds[0]!.options).toMatchObject({
      t: expect.stringMatching(/^junobench\/benchmark:debian-[0-9a-f]{12}$/),
      networkmode: 'host',
    });
    expect(await readFile(path.join(tmp, 'docker/Dockerfile.debian'), 'utf8')).toContain(
      'FROM junobench/base:bookworm',
    );
  });

  it('writes the recipe into recipeDir when given (a build for other instances), not into docker/', async () => {
    const fake = fakeDocker({ images: [], events: [] });
    const other = path.join(tmp, 'other');
    await buildImage({ docker: fake.docker, profile: DEBIAN, root: other, instances, recipeDir: 'elsewhere' }).catch(
      () => undefined,
    );
    expect(await readFile(path.join(other, 'elsewhere/Dockerfile.debian'), 'utf8')).toContain('FROM');
    await expect(readFile(path.join(other, 'docker/Dockerfile.debian'), 'utf8')).rejects.toThrow(/ENOENT/);
  });

  it('a missing offline base image is an environment error that names the setup script', async () => {
    const fake = fakeDocker({ images: [] });
    const err = await buildImage({ docker: fake.docker, profile: DEBIAN, root: tmp, instances }).catch(
      (e: unknown) => e,
    );
    expect(err).toMatchObject({
      code: 'E_ENV_ENGINE',
      exitCode: 3,
      hint: expect.stringContaining('sh tools/setup-engine.sh'),
    });
    expect(fake.builds).toHaveLength(0);
  });
});

describe('readImageRecord', () => {
  it('a missing record says to build the image', async () => {
    await expect(readImageRecord(path.join(tmp, 'curated/none.json'))).rejects.toMatchObject({
      code: 'E_ENV_ENGINE',
      hint: expect.stringContaining('junobench image build'),
    });
  });
});
