import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type OutgoingHttpHeaders } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { JunoError } from '@junobench/core';
import { connectDockerEngine, engineKindOfPing, parseDockerHost, readEngineKind } from './container-engine.js';

describe('parseDockerHost', () => {
  it.each([
    ['unix:///run/podman/podman.sock', { socketPath: '/run/podman/podman.sock' }],
    ['tcp://127.0.0.1:2375', { protocol: 'http', host: '127.0.0.1', port: 2375 }],
    ['https://engine.local:2376/', { protocol: 'https', host: 'engine.local', port: 2376 }],
    ['tcp://[::1]:2375', { protocol: 'http', host: '::1', port: 2375 }],
  ])('%s', (value, expected) => {
    expect(parseDockerHost(value, () => false)).toMatchObject({ ...expected, display: value });
  });

  it('falls back to the first default socket that exists', () => {
    expect(parseDockerHost(undefined, (p) => p === '/run/podman/podman.sock')).toEqual({
      socketPath: '/run/podman/podman.sock',
      display: 'unix:///run/podman/podman.sock',
    });
    expect(parseDockerHost('', (p) => p === '/var/run/docker.sock').socketPath).toBe('/var/run/docker.sock');
  });

  it.each([
    [undefined, /DOCKER_HOST is not set/],
    ['unix://relative.sock', /absolute/],
    ['ssh://me@host', /not an address/],
  ])('%s → an E_ENV_ENGINE error that says how to fix it', (value, message) => {
    let err: unknown;
    try {
      parseDockerHost(value, () => false);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(JunoError);
    expect((err as JunoError).code).toBe('E_ENV_ENGINE');
    expect((err as JunoError).exitCode).toBe(3);
    expect((err as JunoError).message).toMatch(message);
    expect((err as JunoError).hint).toBeTruthy();
  });
});

describe('connectDockerEngine', () => {
  it('a socket nobody answers on → E_ENV_ENGINE naming DOCKER_HOST and the setup script', async () => {
    const err = await connectDockerEngine({ DOCKER_HOST: 'unix:///nonexistent/junobench-test.sock' }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(JunoError);
    expect((err as JunoError).message).toContain(
      'no container engine at DOCKER_HOST=unix:///nonexistent/junobench-test.sock',
    );
    expect((err as JunoError).hint).toContain('sh tools/setup-engine.sh');
  });
});

// A local HTTP server on a unix socket, answering /_ping and /version as each engine does (its headers as Docker 24
// and Podman 4.3 send them), reached through the real dockerode client.
async function withEngine<T>(
  ping: { status: number; headers: OutgoingHttpHeaders },
  component: string,
  fn: (env: NodeJS.ProcessEnv, asked: string[]) => Promise<T>,
): Promise<T> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'jb-engine-'));
  const socket = path.join(dir, 'engine.sock');
  const asked: string[] = [];
  const server = createServer((req, res) => {
    asked.push(`${req.method} ${req.url}`);
    if (req.url?.endsWith('/_ping')) {
      res.writeHead(ping.status, { 'Content-Type': 'text/plain', ...ping.headers });
      res.end(ping.status === 200 ? 'OK' : 'page not found');
    } else if (req.url?.endsWith('/version')) {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ Version: '1', Components: [{ Name: component, Version: '1' }] }));
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  try {
    return await fn({ DOCKER_HOST: `unix://${socket}` }, asked);
  } finally {
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('readEngineKind', () => {
  const DOCKER = {
    'Api-Version': '1.43',
    'Docker-Experimental': 'false',
    Ostype: 'linux',
    Server: 'Docker/24.0.5 (linux)',
  };
  const PODMAN = { 'Api-Version': '1.41', 'Libpod-Api-Version': '4.3.1', Server: 'Libpod/4.3.1 (linux)' };

  it.each([
    ['Docker', DOCKER, 'Engine', 'docker'],
    ['Podman', PODMAN, 'Podman Engine', 'podman'],
  ] as const)('%s: from the ping, without asking for the version', async (_name, headers, component, kind) => {
    await withEngine({ status: 200, headers }, component, async (env, asked) => {
      const docker = await connectDockerEngine(env);
      expect(await readEngineKind(docker)).toBe(kind);
      // Podman computes its version answer by running dpkg-query for each of its helpers: never asked for it.
      expect(asked.filter((a) => a.endsWith('/version'))).toEqual([]);
    });
  });

  it('an engine whose ping fails is asked for its version', async () => {
    await withEngine({ status: 404, headers: {} }, 'Podman Engine', async (env, asked) => {
      const docker = new (await import('dockerode')).default({ socketPath: env.DOCKER_HOST!.slice('unix://'.length) });
      expect(await readEngineKind(docker)).toBe('podman');
      expect(asked).toEqual(['GET /_ping', 'GET /version']);
    });
  });

  it.each([
    [{ 'libpod-api-version': '5.0.0' }, 'podman'],
    [{ server: 'Libpod/4.9.3 (linux)' }, 'podman'],
    [{ server: 'Docker/27.1.1 (linux)', 'api-version': '1.46' }, 'docker'],
    [{}, 'docker'],
  ] as const)('ping headers %j → %s', (headers, kind) => {
    expect(engineKindOfPing(headers)).toBe(kind);
  });
});
