import { describe, expect, it } from 'vitest';
import { isJunoError, type ReleaseManifest } from '@junobench/core';
import { chooseReleaseRuntime, type ChooseReleaseRuntimeOptions } from './choose-release-runtime.js';

const DIGEST = `127.0.0.1:5117/junobench/benchmark@sha256:${'a'.repeat(64)}`;

/** A manifest with just what the choice reads: the version and the image. */
function manifest(image: ReleaseManifest['image']): ReleaseManifest {
  return { version: '0.1.0', image } as ReleaseManifest;
}
const built = manifest({ profile: 'debian', recipe: [], tag: 'junobench/benchmark:debian-1234' });
const pushed = manifest({
  profile: 'debian',
  recipe: [],
  tag: 'junobench/benchmark:debian-1234',
  registry: { repository: '127.0.0.1:5117/junobench/benchmark', tag: '0.1.0', digest: 'sha256:…', reference: DIGEST },
});
const unbuilt = manifest({ profile: 'debian', recipe: [] });

/** Options whose engine has `images` (none: no engine answers), recording what was probed and pulled. */
function engine(images: string[] | undefined, extra: Partial<ChooseReleaseRuntimeOptions> = {}) {
  const probed: string[] = [];
  const pulled: string[] = [];
  const options: ChooseReleaseRuntimeOptions = {
    sandboxUnavailable: async (image) => {
      probed.push(image);
      if (!images) return 'no container engine answers';
      return images.includes(image) ? undefined : `the image ${image} is not in the engine`;
    },
    pullImage: async (image) => {
      pulled.push(image);
      return image;
    },
    rebuildCommand: (tag) => `docker build -t ${tag} junobench-0.1.0/image`,
    ...extra,
  };
  return { options, probed, pulled };
}

describe('chooseReleaseRuntime', () => {
  it("without --runtime: the sandbox when the engine has the release's image (its pushed digest first)", async () => {
    const e = engine([DIGEST]);
    expect(await chooseReleaseRuntime(pushed, e.options)).toEqual({ kind: 'docker', image: DIGEST });
    expect(e.probed).toEqual([DIGEST]);
    expect(e.pulled).toEqual([DIGEST]);
  });

  it.each([
    ['no engine answers', undefined, built, 'no container engine answers'],
    ['the engine lacks the image', [], built, 'the image junobench/benchmark:debian-1234 is not in the engine'],
    ['the release names no image', [], unbuilt, 'the release names no image'],
  ])('without --runtime and %s: the local runtime, with why', async (_name, images, m, why) => {
    expect(await chooseReleaseRuntime(m, engine(images).options)).toEqual({ kind: 'local', why });
  });

  it('--runtime local: local, nothing probed', async () => {
    const e = engine([DIGEST], { requested: 'local' });
    expect(await chooseReleaseRuntime(pushed, e.options)).toEqual({ kind: 'local', why: '--runtime local' });
    expect(e.probed).toEqual([]);
  });

  it('--runtime docker: the image as named, a tag used as it is, --image over the release', async () => {
    const e = engine(undefined, { requested: 'docker' });
    expect(await chooseReleaseRuntime(built, e.options)).toEqual({
      kind: 'docker',
      image: 'junobench/benchmark:debian-1234',
    });
    expect(await chooseReleaseRuntime(pushed, { ...e.options, image: 'mine:1' })).toEqual({
      kind: 'docker',
      image: 'mine:1',
    });
    expect(e.probed).toEqual([]);
    expect(e.pulled).toEqual([]);
  });

  it('--runtime docker for a release that names no image: exit 3, with the rebuild command', async () => {
    const err = await chooseReleaseRuntime(unbuilt, engine([], { requested: 'docker' }).options).catch((e) => e);
    expect(isJunoError(err) && err.code).toBe('E_ENV_ENGINE');
    expect((err as Error).message).toMatch(/release 0.1.0 names no benchmark image/);
    expect((err as { hint?: string }).hint).toContain(
      'docker build -t junobench/benchmark:0.1.0 junobench-0.1.0/image), then add --image junobench/benchmark:0.1.0',
    );
  });

  it('with --queue: the workers run it; nothing probed or pulled here', async () => {
    const e = engine([DIGEST], { queue: true });
    expect(await chooseReleaseRuntime(pushed, e.options)).toEqual({ kind: 'local', why: '--runtime local' });
    expect(await chooseReleaseRuntime(pushed, { ...e.options, requested: 'docker' })).toEqual({
      kind: 'docker',
      image: DIGEST,
    });
    expect(e.probed).toEqual([]);
    expect(e.pulled).toEqual([]);
  });
});
