// A container killed at its wall-clock limit ends the run even when the
// engine never answers the wait request nor closes the attach stream (seen
// with Podman after a fork bomb filled a container's pids limit: the verify
// run hung for good, with the container long gone from the engine).
import { Duplex } from 'node:stream';
import type Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { launchContainer } from './container-exec.js';

function silentEngine() {
  let killed = false;
  let removed = false;
  const notFound = () => Object.assign(new Error('(HTTP code 404) no such container'), { statusCode: 404 });
  const stream = new Duplex({ read: () => undefined, write: (_c, _e, cb) => cb() });
  const container = {
    id: 'silent',
    // Neither the wait nor the attach stream ever ends.
    attach: async () => stream,
    wait: () => new Promise(() => undefined),
    start: async () => undefined,
    kill: async () => {
      killed = true;
    },
    inspect: async () => {
      if (killed) throw notFound();
      return { State: { Running: true } };
    },
    remove: async () => {
      removed = true;
      throw notFound();
    },
  };
  const docker = {
    modem: { demuxStream: () => undefined },
    createContainer: async () => container,
    getContainer: () => container,
  } as unknown as Docker;
  return { docker, state: () => ({ killed, removed, streamDestroyed: stream.destroyed }) };
}

describe('launchContainer when the engine goes silent', () => {
  it('reports the timeout once the killed container is gone, and lets go of the stream', async () => {
    const engine = silentEngine();
    const c = await launchContainer(engine.docker, { image: 'img', cmd: ['true'], wallClockSeconds: 0.05 });
    c.go();
    const outcome = await c.done;
    expect(outcome).toMatchObject({ timedOut: true, exitCode: null, aborted: false });
    expect(engine.state()).toEqual({ killed: true, removed: true, streamDestroyed: true });
  }, 120_000);

  it('ends a cancelled run the same way', async () => {
    const engine = silentEngine();
    const abort = new AbortController();
    const c = await launchContainer(
      engine.docker,
      { image: 'img', cmd: ['true'], wallClockSeconds: 3600 },
      { signal: abort.signal },
    );
    c.go();
    abort.abort();
    const outcome = await c.done;
    expect(outcome).toMatchObject({ aborted: true, timedOut: false });
    expect(engine.state().killed).toBe(true);
  }, 120_000);
});
