import type Docker from 'dockerode';
import { JunoError, type ReleaseImagePush } from '@junobench/core';

/** Repository of the benchmark image under a registry: <registry>/junobench/benchmark:<version>. */
export const RELEASE_IMAGE_REPOSITORY = 'junobench/benchmark';

export interface PushImageRequest {
  /** The local image: the tag `image build` recorded, or an image id. */
  image: string;
  /** host[:port] of the registry. */
  registry: string;
  repository?: string;
  /** The tag to push: the release version. */
  tag: string;
  /** Registry credentials (JUNOBENCH_REGISTRY_USERNAME/PASSWORD); never printed. */
  auth?: { username: string; password: string };
  /** Reads the digest back from the registry's HTTP API (injected for tests; default global fetch). */
  fetch?: typeof fetch;
  onStep?: (message: string) => void;
}

/** Loopback registries are plain HTTP (Docker trusts 127.0.0.0/8 itself; Podman must be told per push). */
export function isLoopbackRegistry(registry: string): boolean {
  const host = registry.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** Checks `host[:port]`: no scheme, no path. */
export function parseRegistry(registry: string): string {
  if (!/^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/.test(registry)) {
    throw new JunoError('E_USAGE', `"${registry}" is not a registry address`, {
      hint: 'give host[:port] without a scheme, e.g. --registry ghcr.io or --registry 127.0.0.1:5117',
    });
  }
  return registry;
}

/**
 * Tag the benchmark image as <registry>/junobench/benchmark:<tag>, push it
 * through the Docker Engine API (Docker or Podman's compatible service), and
 * read its manifest digest back from the registry. The digest the push
 * reported and the one the registry serves must agree.
 */
export async function pushReleaseImage(docker: Docker, req: PushImageRequest): Promise<ReleaseImagePush> {
  const registry = parseRegistry(req.registry);
  const repository = `${registry}/${req.repository ?? RELEASE_IMAGE_REPOSITORY}`;
  const step = req.onStep ?? (() => undefined);
  const source = docker.getImage(req.image);
  try {
    await source.inspect();
  } catch (e) {
    throw new JunoError('E_REGISTRY', `no image ${req.image} in the container engine`, {
      exitCode: 2,
      hint: 'build the benchmark image first: `npx junobench image build` (it records the tag in curated/image.json)',
      cause: e,
    });
  }
  await source.tag({ repo: repository, tag: req.tag });
  step(`tagged ${req.image} as ${repository}:${req.tag}`);

  const loopback = isLoopbackRegistry(registry);
  const authconfig = req.auth
    ? { username: req.auth.username, password: req.auth.password, serveraddress: registry }
    : {};
  let stream: NodeJS.ReadableStream;
  try {
    // The engine joins name and tag itself: the name goes without its tag.
    stream = (await docker
      .getImage(repository)
      .push({ tag: req.tag, ...(loopback ? { tlsVerify: false } : {}), authconfig })) as NodeJS.ReadableStream;
  } catch (e) {
    throw pushError(repository, req.tag, e);
  }
  const events = await new Promise<Record<string, unknown>[]>((resolve, reject) =>
    docker.modem.followProgress(stream, (err: Error | null, out: Record<string, unknown>[]) =>
      err ? reject(pushError(repository, req.tag, err)) : resolve(out),
    ),
  );
  const failure = events.find((ev) => ev.error || ev.errorDetail);
  if (failure)
    throw pushError(
      repository,
      req.tag,
      new Error(String((failure.errorDetail as { message?: string })?.message ?? failure.error)),
    );
  const reported = digestFromEvents(events);
  step(`pushed ${repository}:${req.tag}${reported ? ` (${reported})` : ''}`);

  const served = await readRegistryDigest({
    registry,
    repository: req.repository ?? RELEASE_IMAGE_REPOSITORY,
    tag: req.tag,
    secure: !loopback,
    fetch: req.fetch ?? fetch,
    ...(req.auth ? { auth: req.auth } : {}),
  });
  if (served && reported && served !== reported) {
    throw new JunoError(
      'E_REGISTRY',
      `the registry serves ${repository}:${req.tag} as ${served}, but the push reported ${reported}`,
      {
        hint: 'another push may have raced this one; push again',
      },
    );
  }
  const digest = served ?? reported;
  if (!digest) {
    throw new JunoError(
      'E_REGISTRY',
      `could not learn the digest of ${repository}:${req.tag}: neither the push nor the registry reported one`,
      {
        hint: 'check that the registry speaks the Docker Registry HTTP API v2',
      },
    );
  }
  step(`registry serves ${repository}:${req.tag} as ${digest}`);
  return { repository, tag: req.tag, digest, reference: `${repository}@${digest}` };
}

/**
 * Make sure the engine has a release's image: a reference pinned by digest
 * (registry/repository@sha256:…) that the engine lacks is pulled, exactly
 * that digest. Anything else is left to the runtime (a local tag).
 */
export async function pullReleaseImage(
  docker: Docker,
  reference: string,
  options: { auth?: { username: string; password: string }; onStep?: (m: string) => void } = {},
): Promise<string> {
  const have = await docker
    .getImage(reference)
    .inspect()
    .then(
      () => true,
      () => false,
    );
  const m = /^([^/]+)\/(.+)@(sha256:[0-9a-f]{64})$/.exec(reference);
  if (have || !m) return reference;
  const registry = m[1]!;
  options.onStep?.(`pulling ${reference}`);
  const authconfig = options.auth
    ? { username: options.auth.username, password: options.auth.password, serveraddress: registry }
    : {};
  let stream: NodeJS.ReadableStream;
  try {
    // Podman's compatible pull has no way to skip TLS for a plain-HTTP loopback registry; its own API has.
    stream =
      isLoopbackRegistry(registry) && (await isPodman(docker))
        ? await dialStream(docker, {
            path: '/v4.0.0/libpod/images/pull?',
            method: 'POST',
            options: { reference, tlsVerify: false },
            authconfig,
          })
        : ((await docker.pull(reference, { authconfig })) as NodeJS.ReadableStream);
  } catch (e) {
    throw pullError(reference, e);
  }
  const events = await new Promise<Record<string, unknown>[]>((resolve, reject) =>
    docker.modem.followProgress(stream, (err: Error | null, out: Record<string, unknown>[]) =>
      err ? reject(pullError(reference, err)) : resolve(out),
    ),
  );
  const failure = events.find((ev) => ev.error || ev.errorDetail);
  if (failure)
    throw pullError(
      reference,
      new Error(String((failure.errorDetail as { message?: string })?.message ?? failure.error)),
    );
  await docker
    .getImage(reference)
    .inspect()
    .catch((e: unknown) => {
      throw pullError(reference, e);
    });
  return reference;
}

async function isPodman(docker: Docker): Promise<boolean> {
  const v = (await docker.version().catch(() => undefined)) as { Components?: { Name?: string }[] } | undefined;
  return Boolean(v?.Components?.some((c) => /podman/i.test(c.Name ?? '')));
}

function dialStream(
  docker: Docker,
  opts: { path: string; method: string; options: Record<string, unknown>; authconfig: object },
): Promise<NodeJS.ReadableStream> {
  return new Promise((resolve, reject) =>
    (docker.modem as unknown as { dial: (o: object, cb: (err: Error | null, data: unknown) => void) => void }).dial(
      {
        ...opts,
        isStream: true,
        statusCodes: { 200: true, 400: 'bad parameter', 404: 'no such image', 500: 'server error' },
      },
      (err, data) => (err ? reject(err) : resolve(data as NodeJS.ReadableStream)),
    ),
  );
}

function pullError(reference: string, e: unknown): JunoError {
  const msg = String((e as Error)?.message ?? e).split('\n')[0] ?? '';
  return new JunoError('E_REGISTRY', `pulling the release's image ${reference} failed: ${msg}`, {
    exitCode: 3,
    hint: 'check that the registry is reachable (and JUNOBENCH_REGISTRY_USERNAME/PASSWORD if it needs them), or pass --image <a local tag> to run in another image',
    cause: e,
  });
}

/** The manifest digest from a push's progress events (Docker: aux.Digest; Podman: a "digest: sha256:…" status line). */
export function digestFromEvents(events: readonly Record<string, unknown>[]): string | undefined {
  for (const ev of events) {
    const aux = ev.aux as { Digest?: string } | undefined;
    if (aux?.Digest && /^sha256:[0-9a-f]{64}$/.test(aux.Digest)) return aux.Digest;
    const m = /digest: (sha256:[0-9a-f]{64})/.exec(String(ev.status ?? ''));
    if (m) return m[1];
  }
  return undefined;
}

const MANIFEST_TYPES = [
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
  'application/vnd.docker.distribution.manifest.v2+json',
].join(', ');

/**
 * Docker-Content-Digest of a tag, from the registry's HTTP API (HEAD
 * /v2/<repository>/manifests/<tag>). Undefined when the registry wants a
 * token flow we do not speak (401 with a Bearer challenge).
 */
export async function readRegistryDigest(o: {
  registry: string;
  repository: string;
  tag: string;
  secure: boolean;
  fetch: typeof fetch;
  auth?: { username: string; password: string };
}): Promise<string | undefined> {
  const url = `${o.secure ? 'https' : 'http'}://${o.registry}/v2/${o.repository}/manifests/${encodeURIComponent(o.tag)}`;
  const headers: Record<string, string> = { accept: MANIFEST_TYPES };
  if (o.auth)
    headers.authorization = `Basic ${Buffer.from(`${o.auth.username}:${o.auth.password}`).toString('base64')}`;
  let res: Response;
  try {
    res = await o.fetch(url, { method: 'HEAD', headers });
  } catch (e) {
    throw new JunoError('E_REGISTRY', `cannot reach the registry at ${url}: ${(e as Error).message}`, {
      hint: 'check --registry and that the registry runs',
      cause: e,
    });
  }
  if (res.status === 401) return undefined;
  if (!res.ok)
    throw new JunoError('E_REGISTRY', `the registry answered ${res.status} for ${o.repository}:${o.tag}`, {
      hint: 'the push may not have completed; push again',
    });
  const digest = res.headers.get('docker-content-digest') ?? undefined;
  return digest && /^sha256:[0-9a-f]{64}$/.test(digest) ? digest : undefined;
}

function pushError(repository: string, tag: string, e: unknown): JunoError {
  const msg = String((e as Error)?.message ?? e).split('\n')[0] ?? '';
  return new JunoError('E_REGISTRY', `pushing ${repository}:${tag} failed: ${msg}`, {
    hint: /https|tls|certificate/i.test(msg)
      ? "a registry without TLS must be on loopback (127.0.0.1) or listed as insecure in the engine's configuration"
      : /auth|denied|unauthorized/i.test(msg)
        ? 'set JUNOBENCH_REGISTRY_USERNAME and JUNOBENCH_REGISTRY_PASSWORD for the registry'
        : 'check that the registry runs (for the test registry: sh tools/setup-registry.sh)',
    cause: e,
  });
}
