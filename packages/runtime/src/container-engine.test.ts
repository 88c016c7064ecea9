import { describe, expect, it } from 'vitest';
import { JunoError } from '@junobench/core';
import { connectDockerEngine, parseDockerHost } from './container-engine.js';

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
