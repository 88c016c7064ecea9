// A small image built through the Docker Engine API (Podman's compatible
// service here), pushed to the real Distribution registry on loopback that
// tools/setup-registry.sh starts, and its digest read back from the registry.
import { randomBytes } from 'node:crypto';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isJunoError } from '@junobench/core';
import {
  digestFromEvents,
  isLoopbackRegistry,
  pullReleaseImage,
  pushReleaseImage,
  readRegistryDigest,
} from './push-release-image.js';
import { buildStandinImage } from '../test-helpers/standin-image.js';

const REGISTRY = process.env.JUNOBENCH_TEST_REGISTRY;
const REPOSITORY = 'junobench/release-test';
let docker: Docker;
const image = `localhost/junobench-release-test:${randomBytes(4).toString('hex')}`;
const tags: string[] = [];

function engine(): Docker {
  const host = process.env.DOCKER_HOST ?? 'unix:///run/podman/podman.sock';
  if (!host.startsWith('unix://')) throw new Error(`these tests expect a unix socket DOCKER_HOST, got ${host}`);
  return new Docker({ socketPath: host.slice('unix://'.length) });
}

beforeAll(async () => {
  if (!REGISTRY)
    throw new Error(
      'JUNOBENCH_TEST_REGISTRY is not set: run `sh tools/setup-registry.sh` (as root) and export the line it prints (npm test does both)',
    );
  docker = engine();
  await docker.ping().catch((e: unknown) => {
    throw new Error(
      `no container engine at DOCKER_HOST: run \`sh tools/setup-engine.sh\` (as root) and export DOCKER_HOST (${(e as Error).message})`,
    );
  });
  const probe = await fetch(`http://${REGISTRY}/v2/`).catch((e: unknown) => {
    throw new Error(`no registry at ${REGISTRY}: run \`sh tools/setup-registry.sh\` (${(e as Error).message})`);
  });
  expect(probe.headers.get('docker-distribution-api-version')).toBe('registry/2.0');

  // A tiny image with unique content: every run pushes a manifest the registry has not seen.
  await buildStandinImage(docker, image, { inImage: '/hello.txt', content: `junobench release test ${image}\n` });
  tags.push(image);
}, 300_000);

afterAll(async () => {
  for (const t of tags.reverse())
    await docker
      ?.getImage(t)
      .remove({ force: true })
      .catch(() => undefined);
});

describe('pushReleaseImage (real engine, real registry)', () => {
  it('pushes the image and reads back the digest the registry serves for it', async () => {
    const steps: string[] = [];
    const pushed = await pushReleaseImage(docker, {
      image,
      registry: REGISTRY!,
      repository: REPOSITORY,
      tag: '0.1.0',
      onStep: (s) => steps.push(s),
    });
    tags.push(`${REGISTRY}/${REPOSITORY}:0.1.0`);
    expect(pushed.repository).toBe(`${REGISTRY}/${REPOSITORY}`);
    expect(pushed.tag).toBe('0.1.0');
    expect(pushed.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(pushed.reference).toBe(`${REGISTRY}/${REPOSITORY}@${pushed.digest}`);
    // Independently of the code under test: the registry's own answer.
    const res = await fetch(`http://${REGISTRY}/v2/${REPOSITORY}/manifests/0.1.0`, {
      headers: {
        accept: 'application/vnd.oci.image.manifest.v1+json, application/vnd.docker.distribution.manifest.v2+json',
      },
    });
    expect(res.status).toBe(200);
    const body = Buffer.from(await res.arrayBuffer());
    expect(res.headers.get('docker-content-digest')).toBe(pushed.digest);
    const { createHash } = await import('node:crypto');
    expect(`sha256:${createHash('sha256').update(body).digest('hex')}`).toBe(pushed.digest);
    // The pinned reference resolves by digest.
    expect(
      (
        await fetch(`http://${REGISTRY}/v2/${REPOSITORY}/manifests/${pushed.digest}`, {
          method: 'HEAD',
          headers: {
            accept: 'application/vnd.docker.distribution.manifest.v2+json, application/vnd.oci.image.manifest.v1+json',
          },
        })
      ).status,
    ).toBe(200);
    expect(steps.join('\n')).toContain(`registry serves ${REGISTRY}/${REPOSITORY}:0.1.0 as ${pushed.digest}`);

    // Pushing the same image again (a resumed publish) gives the same digest.
    const again = await pushReleaseImage(docker, { image, registry: REGISTRY!, repository: REPOSITORY, tag: '0.1.0' });
    expect(again.digest).toBe(pushed.digest);
  });

  it('reads the digest of a tag the registry has, and nothing for one it lacks', async () => {
    await expect(
      readRegistryDigest({ registry: REGISTRY!, repository: REPOSITORY, tag: 'no-such-tag', secure: false, fetch }),
    ).rejects.toThrow(/answered 404/);
  });

  it('an image the engine does not have is a usage error naming the command that builds it', async () => {
    const err = await pushReleaseImage(docker, {
      image: 'localhost/junobench-no-such-image:1',
      registry: REGISTRY!,
      tag: '0.1.0',
    }).catch((e: unknown) => e);
    expect(isJunoError(err) && err.code).toBe('E_REGISTRY');
    expect(isJunoError(err) && err.exitCode).toBe(2);
    expect(isJunoError(err) && err.hint).toContain('junobench image build');
  });

  it('a registry that does not answer fails the push with E_REGISTRY', async () => {
    const err = await pushReleaseImage(docker, {
      image,
      registry: '127.0.0.1:9',
      repository: REPOSITORY,
      tag: '0.1.0',
    }).catch((e: unknown) => e);
    tags.push(`127.0.0.1:9/${REPOSITORY}:0.1.0`);
    expect(isJunoError(err) && err.code).toBe('E_REGISTRY');
    expect((err as Error).message).toContain(`pushing 127.0.0.1:9/${REPOSITORY}:0.1.0 failed`);
    expect((err as Error).message).toMatch(/connection refused/);
  });
});

describe('pullReleaseImage (real engine, real registry)', () => {
  it('pulls the image a release names by digest when the engine lacks it, and leaves a present one alone', async () => {
    const pushed = await pushReleaseImage(docker, { image, registry: REGISTRY!, repository: REPOSITORY, tag: '0.1.1' });
    // A researcher's machine: no local copy under any name.
    const id = (await docker.getImage(image).inspect()).Id;
    await docker.getImage(id).remove({ force: true });
    await expect(docker.getImage(pushed.reference).inspect()).rejects.toThrow();
    const steps: string[] = [];
    expect(await pullReleaseImage(docker, pushed.reference, { onStep: (m) => steps.push(m) })).toBe(pushed.reference);
    tags.push(pushed.reference);
    expect((await docker.getImage(pushed.reference).inspect()).Id).toBe(id);
    expect(steps).toEqual([`pulling ${pushed.reference}`]);
    // Present now: nothing is pulled again.
    steps.length = 0;
    await pullReleaseImage(docker, pushed.reference, { onStep: (m) => steps.push(m) });
    expect(steps).toEqual([]);
    const missing = pushed.reference.replace(/@sha256:[0-9a-f]{64}$/, `@sha256:${'0'.repeat(64)}`);
    const err = await pullReleaseImage(docker, missing).catch((e: unknown) => e);
    expect(isJunoError(err) && err.code).toBe('E_REGISTRY');
    expect(isJunoError(err) && err.exitCode).toBe(3);
  });
});

describe('push helpers', () => {
  it.each([
    ['127.0.0.1:5117', true],
    ['localhost:5000', true],
    ['[::1]:5000', true],
    ['ghcr.io', false],
    ['registry.example.org:443', false],
  ])('%s is loopback: %s', (r, loop) => expect(isLoopbackRegistry(r)).toBe(loop));

  it('finds the digest in Docker and Podman push events', () => {
    const d = `sha256:${'c'.repeat(64)}`;
    expect(digestFromEvents([{ status: 'Pushing' }, { aux: { Tag: '0.1.0', Digest: d, Size: 420 } }])).toBe(d);
    expect(
      digestFromEvents([{ status: 'The push refers to repository [x]' }, { status: `0.1.0: digest: ${d} size: 420` }]),
    ).toBe(d);
    expect(digestFromEvents([{ status: 'nothing' }])).toBeUndefined();
  });
});
