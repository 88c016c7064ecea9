import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandRunner } from './find-python.js';
import { createLocalRuntime } from './local-runtime.js';
import { ProbeCache, modulesToProbe, packagesFrom } from './probe-cache.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'jb-probe-cache-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let counter = 0;
const freshDir = () => path.join(dir, `cache-${counter++}`);

describe('ProbeCache', () => {
  const record = { python: '/usr/bin/python3', pythonVersion: '3.11.2', packages: { numpy: '1.24.2', tf: null } };

  it('gives back the importable modules written for the same interpreter state, and nothing for another', async () => {
    const cache = new ProbeCache(freshDir());
    expect(await cache.read('/usr/bin/python3', 'state-a')).toBeUndefined();
    await cache.write('/usr/bin/python3', 'state-a', record);
    // tf did not import: it is not kept (a system library may be all it lacked), so it is probed again.
    expect(await cache.read('/usr/bin/python3', 'state-a')).toEqual({ ...record, packages: { numpy: '1.24.2' } });
    expect(await cache.read('/usr/bin/python3', 'state-b')).toBeUndefined();
    expect(await cache.read('/opt/python3', 'state-a')).toBeUndefined();
  });

  it('treats a damaged or foreign file as absent', async () => {
    const at = freshDir();
    const cache = new ProbeCache(at);
    await cache.write('/usr/bin/python3', 'state-a', record);
    const [file] = await readdir(at);
    for (const content of [
      '{"python": "/usr/bin/python3", "fingerprint": "state-a", "rec',
      JSON.stringify({ python: '/usr/bin/python3', fingerprint: 'state-b', record }),
      JSON.stringify({ python: '/usr/bin/python3', fingerprint: 'state-a', record: { ...record, packages: { x: 1 } } }),
      JSON.stringify({ python: '/usr/bin/python3', fingerprint: 'state-a', record: { packages: {} } }),
    ]) {
      await writeFile(path.join(at, file!), content);
      expect(await cache.read('/usr/bin/python3', 'state-a')).toBeUndefined();
    }
  });

  it('ignores a folder it cannot write to', async () => {
    // Root writes through any mode, so a folder under a plain file stands in for an unwritable one.
    await writeFile(path.join(dir, 'a-file'), '');
    const cache = new ProbeCache(path.join(dir, 'a-file', 'probes'));
    await expect(cache.write('/usr/bin/python3', 'state-a', record)).resolves.toBeUndefined();
    expect(await cache.read('/usr/bin/python3', 'state-a')).toBeUndefined();
  });

  it('answers for a set of modules only when every one is in the record, sorted as the probe sorts them', () => {
    expect(packagesFrom(record, ['tf', 'numpy', 'numpy'])).toEqual({ numpy: '1.24.2', tf: null });
    expect(Object.keys(packagesFrom(record, ['tf', 'numpy'])!)).toEqual(['numpy', 'tf']);
    expect(packagesFrom(record, ['numpy', 'torch'])).toBeUndefined();
    expect(packagesFrom(undefined, [])).toBeUndefined();
    expect(packagesFrom(record, [])).toEqual({});
    expect(modulesToProbe(record, ['numpy', 'tf', 'torch'])).toEqual(['torch']);
    expect(modulesToProbe(undefined, ['numpy'])).toEqual(['numpy']);
  });
});

/**
 * An interpreter as the local runtime's command runner sees it: it passes the
 * ipykernel check, prints `state` as its fingerprint, and answers a probe with
 * versions from `installed`. Every probe's modules are logged.
 */
function fakeInterpreter(installed: Record<string, string>, state: { fingerprint: string }) {
  const probes: string[][] = [];
  const run: CommandRunner = async (_file, args) => {
    if (args[0] === '-c') return { stdout: '/fake/python3\n', stderr: '', exitCode: 0 };
    if (args[1] === 'fingerprint') return { stdout: `${state.fingerprint}\n`, stderr: '', exitCode: 0 };
    if (args[1] === 'probe') {
      const modules = args.slice(2);
      probes.push([...modules]);
      const packages = Object.fromEntries([...modules].sort().map((m) => [m, installed[m] ?? null]));
      const line = JSON.stringify({ executable: '/fake/python3', version: '3.11.2', packages });
      return { stdout: `${line}\n`, stderr: '', exitCode: 0 };
    }
    return { stdout: '', stderr: `unexpected: ${args.join(' ')}`, exitCode: 2 };
  };
  return { run, probes };
}

describe('the local runtime with a probe cache', () => {
  const installed = { numpy: '1.24.2', pandas: '1.5.3', torch: '1.13.0' };
  const runtime = (run: CommandRunner, probeCacheDir?: string) =>
    createLocalRuntime({
      python: '/fake/python3',
      run,
      sandbox: false,
      scratchRoot: dir,
      ...(probeCacheDir ? { probeCacheDir } : {}),
    });

  it('probes a module once per interpreter state, across runtimes, and answers as a probe would', async () => {
    const state = { fingerprint: '{"distributions": "aaa"}' };
    const py = fakeInterpreter(installed, state);
    const cacheDir = freshDir();

    const first = await runtime(py.run, cacheDir);
    const probed = await first.describe(['pandas', 'numpy', 'tensorflow']);
    await first.close();
    expect(probed).toEqual({
      kind: 'local',
      python: '/fake/python3',
      pythonVersion: '3.11.2',
      packages: { numpy: '1.24.2', pandas: '1.5.3', tensorflow: null },
      kernelStart: 'fork',
      threads: 1,
    });

    // Another command later: the same answer, byte for byte; only the module that did not import is probed again.
    const second = await runtime(py.run, cacheDir);
    const cached = await second.describe(['tensorflow', 'numpy', 'pandas']);
    expect(JSON.stringify(cached)).toBe(JSON.stringify(probed));
    expect(py.probes).toEqual([['numpy', 'pandas', 'tensorflow'], ['tensorflow']]);
    const hit = await runtime(py.run, cacheDir);
    expect((await hit.describe(['pandas', 'numpy'])).packages).toEqual({ numpy: '1.24.2', pandas: '1.5.3' });
    await hit.close();
    expect(py.probes).toHaveLength(2);

    // A module not asked about before: only it is probed, and the record grows.
    expect((await second.describe(['numpy', 'torch'])).packages).toEqual({ numpy: '1.24.2', torch: '1.13.0' });
    await second.close();
    expect(py.probes).toEqual([['numpy', 'pandas', 'tensorflow'], ['tensorflow'], ['torch']]);

    // tensorflow is installed: the interpreter's fingerprint changes, so everything is probed again.
    state.fingerprint = '{"distributions": "bbb"}';
    const third = await runtime(fakeInterpreter({ ...installed, tensorflow: '2.15.0' }, state).run, cacheDir);
    expect((await third.describe(['numpy', 'tensorflow'])).packages).toEqual({ numpy: '1.24.2', tensorflow: '2.15.0' });
    await third.close();
  });

  it('without a cache folder, or when the fingerprint fails, probes as before', async () => {
    const py = fakeInterpreter(installed, { fingerprint: 'x' });
    for (let i = 0; i < 2; i++) {
      const rt = await runtime(py.run);
      await rt.describe(['numpy']);
      await rt.close();
    }
    expect(py.probes).toEqual([['numpy'], ['numpy']]);

    const failing: CommandRunner = async (file, args, options) =>
      args[1] === 'fingerprint' ? { stdout: '', stderr: 'broken', exitCode: 1 } : py.run(file, args, options);
    const cacheDir = freshDir();
    for (let i = 0; i < 2; i++) {
      const rt = await runtime(failing, cacheDir);
      expect((await rt.describe(['numpy'])).packages).toEqual({ numpy: '1.24.2' });
      await rt.close();
    }
    expect(py.probes).toHaveLength(4);
  });
});
