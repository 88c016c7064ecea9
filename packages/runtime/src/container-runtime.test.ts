import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Duplex } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import type Docker from 'dockerode';
import { JunoError } from '@junobench/core';
import { signMessage } from '../test-helpers/signed-message.js';
import type { NotebookRun } from './runtime.js';
import { createContainerRuntime } from './container-runtime.js';
import { hashRunnerFiles } from './runner-path.js';
import { formatSeccompProfile } from './seccomp-profile.js';

/** What the runner in an image built from this checkout reports: the runtime refuses any other. */
const RUNNER = await hashRunnerFiles();
const probeLine = (extra: Record<string, unknown> = {}) =>
  `${JSON.stringify({ executable: '/usr/bin/python3', version: '3.11.2', packages: {}, runner: RUNNER, ...extra })}\n`;

interface Script {
  stdout?: string;
  stderr?: string;
  exitCode?: number;
  ms?: number;
}

/**
 * A stand-in for dockerode with just what the runtime uses. A container with
 * stdin waits for "go KEY" on it; then it "runs" for `ms`, prints its script
 * (which signs its messages with the key) and auto-removes itself, as an
 * engine would.
 */
function fakeDocker(
  script: (cmd: string[], key: Buffer) => Script,
  options: { images?: string[]; probe?: (cmd: string[]) => Script; engine?: 'podman' | 'docker' } = {},
) {
  const live = new Map<string, { killed: boolean }>();
  const created: Docker.ContainerCreateOptions[] = [];
  let running = 0;
  let maxRunning = 0;
  let alive = 0;
  let maxAlive = 0;
  let n = 0;
  const notFound = () => Object.assign(new Error('(HTTP code 404) no such container'), { statusCode: 404 });
  const docker = {
    modem: {
      demuxStream(stream: Duplex, out: NodeJS.WritableStream, err: NodeJS.WritableStream) {
        stream.on('data', (chunk: { fd: 1 | 2; text: string }) => (chunk.fd === 1 ? out : err).write(chunk.text));
      },
    },
    getImage(name: string) {
      return {
        inspect: async () => {
          if (!(options.images ?? ['img']).includes(name))
            throw Object.assign(new Error('no such image'), { statusCode: 404 });
          return { Id: 'sha256:feedface', Size: 1 };
        },
      };
    },
    getContainer(id: string) {
      return {
        id,
        inspect: async () => {
          if (!live.has(id)) throw notFound();
          return {};
        },
        remove: async () => {
          if (!live.delete(id)) throw notFound();
        },
      };
    },
    listContainers: async () => [],
    // Podman names its engine component so; Docker's is "Engine".
    version: async () => ({
      Components: [{ Name: options.engine === 'docker' ? 'Engine' : 'Podman Engine', Version: '4.3.1' }],
    }),
    async createContainer(opts: Docker.ContainerCreateOptions) {
      created.push(opts);
      const id = `c${++n}`;
      const state = { killed: false };
      live.set(id, state);
      let exit!: (code: number) => void;
      const exited = new Promise<number>((r) => (exit = r));
      let timer: NodeJS.Timeout | undefined;
      let isRunning = false;
      let ended = false;
      let go: (key: Buffer) => void = () => undefined;
      const stream = new Duplex({
        objectMode: true,
        read: () => undefined,
        write(chunk: Buffer | string, _enc, cb) {
          const line = String(chunk)
            .split('\n')
            .find((l) => /^go [0-9a-f]{64}$/.test(l));
          if (line) go(Buffer.from(line.slice(3), 'hex'));
          cb();
        },
      });
      const finish = (code: number) => {
        if (ended) return;
        ended = true;
        if (timer) clearTimeout(timer);
        timer = undefined;
        if (isRunning) running--;
        alive--;
        stream.push(null);
        if (opts.HostConfig?.AutoRemove) live.delete(id);
        exit(code);
      };
      return {
        id,
        attach: async () => stream,
        wait: () => exited.then((StatusCode) => ({ StatusCode })),
        start: async () => {
          alive++;
          maxAlive = Math.max(maxAlive, alive);
          go = (key: Buffer) => {
            if (isRunning || ended) return;
            isRunning = true;
            running++;
            maxRunning = Math.max(maxRunning, running);
            // The runner's probe (describe(), and the runner check before a first run) answers as an image of this checkout would.
            const cmd = opts.Cmd as string[];
            const s: Script = cmd.includes('probe')
              ? (options.probe ?? (() => ({ stdout: probeLine() })))(cmd)
              : script(cmd, key);
            timer = setTimeout(() => {
              if (s.stdout) stream.push({ fd: 1, text: s.stdout });
              if (s.stderr) stream.push({ fd: 2, text: s.stderr });
              finish(s.exitCode ?? 0);
            }, s.ms ?? 5);
          };
          if (!opts.OpenStdin) go(Buffer.alloc(32));
        },
        kill: async () => {
          state.killed = true;
          finish(137);
        },
        inspect: async () => {
          if (!live.has(id)) throw notFound();
          return { State: { Running: !ended } };
        },
        remove: async () => {
          if (!live.delete(id)) throw notFound();
        },
      };
    },
  };
  return { docker: docker as unknown as Docker, created, live, stats: () => ({ maxRunning, maxAlive }) };
}

// Real instance folders: the runtime stages a view of each for its container's mount.
const instances = mkdtempSync(path.join(os.tmpdir(), 'jb-fake-engine-'));
afterAll(() => rmSync(instances, { recursive: true, force: true }));
const instanceOf = (id: string) => {
  mkdirSync(path.join(instances, id), { recursive: true });
  writeFileSync(path.join(instances, id, 'fixed.ipynb'), '{}');
  return path.join(instances, id);
};
const runOf = (id: string, extra: Partial<NotebookRun> = {}): NotebookRun => ({
  id,
  instanceDir: instanceOf(id),
  notebook: 'fixed.ipynb',
  cells: [0],
  cellTimeoutSeconds: 10,
  timeoutSeconds: 20,
  ...extra,
});

const planOf = (cmd: string[]) => JSON.parse(cmd[cmd.length - 1]!) as { id: string };
const okResult = (cmd: string[], key: Buffer) => {
  const id = planOf(cmd).id;
  return `${signMessage({ type: 'result', id, result: { id, status: 'completed', cells: [{ index: 0, status: 'ok', durationMs: 1 }], durationMs: 3 } }, key)}\n`;
};

describe('createContainerRuntime (fake engine, fresh containers)', () => {
  it('runs `jobs` containers at once, returns results in the order of the runs and leaves no container', async () => {
    const fake = fakeDocker((cmd, key) => ({
      stdout: `${okResult(cmd, key)}\njunobench-container: exit=0 oom_kill=0\n`,
      ms: planOf(cmd).id === 'a' ? 400 : 10,
    }));
    const runtime = createContainerRuntime({ docker: fake.docker, image: 'img', fork: false, memory: '1g', cpus: 0.5 });
    const seen: string[] = [];
    const results = await runtime.run([runOf('a'), runOf('b'), runOf('c'), runOf('d')], {
      jobs: 2,
      onResult: (r) => seen.push(r.id),
    });
    expect(results.map((r) => r.id)).toEqual(['a', 'b', 'c', 'd']);
    expect(results.every((r) => r.status === 'completed')).toBe(true);
    expect([...seen].sort()).toEqual(['a', 'b', 'c', 'd']);
    // Two notebooks run at once; the next two wait, started, for their turn.
    expect(fake.stats()).toEqual({ maxRunning: 2, maxAlive: 4 });
    expect(fake.live.size).toBe(0);
    // The first container is the runner check's probe; then one per notebook.
    const notebooks = fake.created.filter((c) => !(c.Cmd as string[]).includes('probe'));
    expect(fake.created.length - notebooks.length).toBe(1);
    expect(notebooks).toHaveLength(4);
    const host = notebooks[0]!.HostConfig!;
    expect(host).toMatchObject({
      AutoRemove: true,
      NetworkMode: 'none',
      Memory: 1024 ** 3,
      MemorySwap: 1024 ** 3,
      NanoCpus: 5e8,
      Mounts: [
        {
          Type: 'bind',
          Source: expect.stringMatching(/\/junobench-s-[^/]+\/i-[^/]+$/),
          Target: '/instance',
          ReadOnly: true,
        },
      ],
      CapDrop: ['ALL'],
    });
    expect(notebooks[0]!.NetworkDisabled).toBe(true);
    await runtime.close();
  });

  it('kills a container at its wall-clock limit and reports a timeout', async () => {
    const fake = fakeDocker(() => ({ ms: 60_000 }));
    const runtime = createContainerRuntime({
      docker: fake.docker,
      image: 'img',
      fork: false,
      wallClockSeconds: () => 0.05,
    });
    const [r] = await runtime.run([runOf('loop')]);
    expect(r).toMatchObject({ id: 'loop', status: 'timeout' });
    expect(fake.live.size).toBe(0);
  });

  it('a missing image is an environment error that names the build command', async () => {
    const fake = fakeDocker(() => ({}));
    const runtime = createContainerRuntime({ docker: fake.docker, image: 'junobench/benchmark:nope' });
    const err = await runtime.run([runOf('a')]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JunoError);
    expect(err).toMatchObject({ code: 'E_ENV_ENGINE', hint: expect.stringContaining('junobench image build') });
    expect(fake.created).toHaveLength(0);
  });

  it('describe() probes the image once per module set and reports the image id', async () => {
    let probes = 0;
    const fake = fakeDocker(() => ({}), {
      probe: () => {
        probes++;
        return { stdout: probeLine({ packages: { numpy: '1.24.2', tensorflow: null } }) };
      },
    });
    const runtime = createContainerRuntime({ docker: fake.docker, image: 'img', fork: false });
    const id = await runtime.describe(['tensorflow', 'numpy']);
    expect(id).toEqual({
      kind: 'docker',
      image: 'img',
      imageId: 'sha256:feedface',
      python: '/usr/bin/python3',
      pythonVersion: '3.11.2',
      packages: { numpy: '1.24.2', tensorflow: null },
      kernelStart: 'launch',
      threads: 1,
    });
    await runtime.describe(['numpy', 'tensorflow']);
    expect(probes).toBe(1);
  });

  it('with a probe cache, a later runtime on the same image id starts no probe container for modules that imported', async () => {
    const probed: string[][] = [];
    const fake = fakeDocker(() => ({}), {
      probe: (cmd) => {
        const mods = cmd.slice(cmd.indexOf('probe') + 1);
        probed.push(mods);
        const known: Record<string, string> = { numpy: '1.24.2', pandas: '1.5.3' };
        return { stdout: probeLine({ packages: Object.fromEntries(mods.map((m) => [m, known[m] ?? null])) }) };
      },
    });
    const probeCacheDir = mkdtempSync(path.join(os.tmpdir(), 'jb-docker-probes-'));
    try {
      const first = createContainerRuntime({ docker: fake.docker, image: 'img', fork: false, probeCacheDir });
      const id = await first.describe(['tensorflow', 'numpy']);
      await first.close();
      const second = createContainerRuntime({ docker: fake.docker, image: 'img', fork: false, probeCacheDir });
      expect(await second.describe(['numpy'])).toEqual({ ...id, packages: { numpy: '1.24.2' } });
      // tensorflow did not import: asked again; pandas is new: asked; numpy is known.
      expect((await second.describe(['numpy', 'pandas', 'tensorflow'])).packages).toEqual({
        numpy: '1.24.2',
        pandas: '1.5.3',
        tensorflow: null,
      });
      await second.close();
      expect(probed).toEqual([
        ['numpy', 'tensorflow'],
        ['pandas', 'tensorflow'],
      ]);

      // A record made by another runner is not used: the probe runs (and checks the image's runner) again.
      const file = readdirSync(probeCacheDir)[0]!;
      const kept = JSON.parse(readFileSync(path.join(probeCacheDir, file), 'utf8'));
      kept.record.runner = '0'.repeat(64);
      writeFileSync(path.join(probeCacheDir, file), JSON.stringify(kept));
      const third = createContainerRuntime({ docker: fake.docker, image: 'img', fork: false, probeCacheDir });
      await third.describe(['numpy']);
      await third.close();
      expect(probed).toHaveLength(3);
    } finally {
      rmSync(probeCacheDir, { recursive: true, force: true });
    }
  });

  it("refuses an image whose runner is not this toolchain's, before any notebook container (exit 3)", async () => {
    for (const runner of ['0'.repeat(64), undefined]) {
      const fake = fakeDocker(() => ({}), { probe: () => ({ stdout: probeLine({ runner }) }) });
      const runtime = createContainerRuntime({ docker: fake.docker, image: 'img', fork: false });
      const refused = { code: 'E_ENV_IMAGE', exitCode: 3, hint: expect.stringContaining('junobench image build') };
      await expect(runtime.run([runOf('a')])).rejects.toMatchObject(refused);
      await expect(runtime.describe(['numpy'])).rejects.toMatchObject(refused);
      // Only the probes ran: no notebook's container was created.
      expect(fake.created.every((c) => (c.Cmd as string[]).includes('probe'))).toBe(true);
    }
  });

  it('gives every container (probe and notebooks) our seccomp profile: a file for Podman, removed at close; the text for Docker', async () => {
    const profile = formatSeccompProfile();
    for (const engine of ['podman', 'docker'] as const) {
      const fake = fakeDocker((cmd, key) => ({ stdout: okResult(cmd, key) }), { engine });
      const runtime = createContainerRuntime({ docker: fake.docker, image: 'img', fork: false });
      await runtime.run([runOf('a')]);
      expect(fake.created).toHaveLength(2);
      const options = fake.created.map((c) =>
        c.HostConfig!.SecurityOpt!.find((o: string) => o.startsWith('seccomp='))!.slice('seccomp='.length),
      );
      expect(new Set(options).size).toBe(1);
      if (engine === 'docker') expect(options[0]).toBe(profile);
      else {
        expect(path.isAbsolute(options[0]!)).toBe(true);
        expect(readFileSync(options[0]!, 'utf8')).toBe(profile);
      }
      await runtime.close();
      if (engine === 'podman') expect(existsSync(options[0]!)).toBe(false);
    }
  });

  it('a cancelled run kills its container and reports "cancelled"', async () => {
    const fake = fakeDocker(() => ({ ms: 60_000 }));
    const runtime = createContainerRuntime({ docker: fake.docker, image: 'img', fork: false });
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(), 30);
    const results = await runtime.run([runOf('a'), runOf('b')], { signal: ctl.signal });
    expect(results.map((r) => [r.id, r.status, r.reason])).toEqual([
      ['a', 'failed', 'cancelled'],
      ['b', 'failed', 'cancelled'],
    ]);
    expect(fake.live.size).toBe(0);
  });
});
