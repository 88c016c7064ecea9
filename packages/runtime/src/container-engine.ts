import { existsSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import type Docker from 'dockerode';
import { JunoError } from '@junobench/core';

/** Where the Docker Engine API answers: a unix socket or an http(s) address. */
export interface EngineAddress {
  socketPath?: string;
  protocol?: 'http' | 'https';
  host?: string;
  port?: number;
  /** DOCKER_HOST-style text for messages, e.g. `unix:///run/podman/podman.sock`. */
  display: string;
}

/** Sockets tried, in order, when DOCKER_HOST is not set: Docker's, then the one tools/setup-engine.sh starts. */
export const DEFAULT_ENGINE_SOCKETS = ['/var/run/docker.sock', '/run/podman/podman.sock'] as const;

const SETUP_HINT =
  'run `sh tools/setup-engine.sh` (as root on Debian: podman service + offline base image) and export the DOCKER_HOST line it prints, or point DOCKER_HOST at a Docker engine';

/**
 * The engine address from DOCKER_HOST (`unix:///path`, `tcp://host:port`,
 * `http(s)://host:port`), or the first default socket that exists.
 */
export function parseDockerHost(
  value: string | undefined,
  socketExists: (path: string) => boolean = existsSync,
): EngineAddress {
  const text = value?.trim();
  if (!text) {
    const found = DEFAULT_ENGINE_SOCKETS.find((s) => socketExists(s));
    if (!found) {
      throw new JunoError(
        'E_ENV_ENGINE',
        `no container engine: DOCKER_HOST is not set and none of ${DEFAULT_ENGINE_SOCKETS.join(', ')} exists`,
        {
          hint: SETUP_HINT,
        },
      );
    }
    return { socketPath: found, display: `unix://${found}` };
  }
  if (text.startsWith('unix://')) {
    const socketPath = text.slice('unix://'.length);
    if (!socketPath.startsWith('/')) {
      throw new JunoError('E_ENV_ENGINE', `DOCKER_HOST=${text} is not an absolute unix socket path`, {
        hint: 'write it as unix:///absolute/path/to/engine.sock',
      });
    }
    return { socketPath, display: text };
  }
  const m = /^(tcp|http|https):\/\/([^/:]+|\[[^\]]+\]):(\d+)\/?$/.exec(text);
  if (m) {
    const protocol = m[1] === 'https' ? 'https' : 'http';
    return { protocol, host: m[2]!.replace(/^\[|\]$/g, ''), port: Number(m[3]), display: text };
  }
  throw new JunoError('E_ENV_ENGINE', `DOCKER_HOST=${text} is not an address this toolchain can use`, {
    hint: 'use unix:///path/to/engine.sock or tcp://host:port (ssh:// is not supported)',
  });
}

/**
 * A dockerode client for the engine named by DOCKER_HOST, checked with a
 * ping so a missing engine fails here with how to fix it, not later inside a
 * build or a run. Only the CLI (and tests) call this; libraries receive the
 * client as a parameter.
 */
export async function connectDockerEngine(
  env: NodeJS.ProcessEnv = process.env,
  options: { timeoutMs?: number } = {},
): Promise<Docker> {
  const address = parseDockerHost(env.DOCKER_HOST);
  // Loaded here, not at the top: dockerode brings gRPC and ssh2 (~500 modules), which
  // every command loading this package (e.g. a build with nothing to do) would pay for.
  const { default: DockerClient } = await import('dockerode');
  // No request timeout on the client: builds and waits legitimately take minutes.
  const docker = new DockerClient(
    address.socketPath
      ? { socketPath: address.socketPath }
      : { host: address.host, port: address.port, protocol: address.protocol },
  );
  try {
    await withTimeout(docker.ping(), options.timeoutMs ?? 10_000);
  } catch (e) {
    throw new JunoError(
      'E_ENV_ENGINE',
      `no container engine at DOCKER_HOST=${address.display} (${(e as Error).message})`,
      {
        hint: SETUP_HINT,
        cause: e,
      },
    );
  }
  return docker;
}

/** Which engine answers: Podman's Docker-compatible API or Docker's, which differ in a few options (the seccomp profile: its text for Docker, a file path for Podman). */
export type EngineKind = 'podman' | 'docker';

/**
 * The engine's kind, from the headers of its ping answer: Podman names itself there (`Libpod-Api-Version`,
 * `Server: Libpod/…`); Docker does not. Its version answer says it too (a "Podman Engine" component), and is what an
 * engine that answers no such ping is asked; but Podman makes that answer by asking the package manager which
 * package each of its helpers came from: three `dpkg-query` runs, about 0.5 s of CPU and up to seconds on a busy
 * machine, for every container runtime (2026-12-07: 2.2–3.6 s for the version answer and 0.03–0.1 s for the ping,
 * while the test suite ran; one suite run started 401 `dpkg-query` processes that way).
 */
export async function readEngineKind(docker: Docker): Promise<EngineKind> {
  const headers = await pingHeaders(docker).catch(() => undefined);
  if (headers) return engineKindOfPing(headers);
  let version: Docker.DockerVersion;
  try {
    version = await docker.version();
  } catch (e) {
    throw new JunoError('E_ENV_ENGINE', `the container engine did not say its version (${(e as Error).message})`, {
      hint: SETUP_HINT,
      cause: e,
    });
  }
  return (version.Components ?? []).some((c) => /podman/i.test(c.Name)) ? 'podman' : 'docker';
}

/** Pure: the engine's kind from its ping answer's headers (names in lower case, as node gives them). */
export function engineKindOfPing(headers: Record<string, string | string[] | undefined>): EngineKind {
  const server = String(headers.server ?? '');
  return headers['libpod-api-version'] !== undefined || /^libpod\//i.test(server) ? 'podman' : 'docker';
}

/** The headers of the engine's answer to GET /_ping (dockerode's ping() gives its body only). */
function pingHeaders(docker: Docker): Promise<Record<string, string | string[] | undefined>> {
  return new Promise((resolve, reject) => {
    const modem = docker.modem as unknown as {
      dial(options: object, cb: (err: Error | null, res: IncomingMessage | null) => void): void;
    };
    modem.dial({ path: '/_ping', method: 'GET', isStream: true, statusCodes: { 200: true } }, (err, res) => {
      if (err || !res) return reject(err ?? new Error('no answer'));
      res.resume();
      resolve(res.headers);
    });
  });
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(t);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}
