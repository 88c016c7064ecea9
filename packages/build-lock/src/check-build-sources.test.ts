import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkBuildSources } from './check-build-sources.js';

async function project() {
  const root = await mkdtemp(path.join(os.tmpdir(), 'jb-build-lock-'));
  await mkdir(path.join(root, 'raw'));
  await writeFile(path.join(root, 'raw', 'in.txt'), 'a');
  return root;
}

// How the build writes the lock that this reads is tested with the build (pipeline's run-build.test.ts).
describe('checkBuildSources', () => {
  it('says what it cannot tell: a lock without per-path records, an invalid lock', async () => {
    const root = await project();
    await mkdir(path.join(root, 'out'));
    await writeFile(
      path.join(root, 'out', '.lock.json'),
      JSON.stringify({ version: 1, stages: { upper: { fingerprint: 'f', outputs: 'o', summary: 's' } } }),
    );
    expect(await checkBuildSources({ root, lockFile: 'out/.lock.json', derivedDir: 'out' })).toEqual({
      lock: 'ok',
      changed: [],
      unrecorded: ['upper'],
    });
    await writeFile(path.join(root, 'out', '.lock.json'), '{');
    expect((await checkBuildSources({ root, lockFile: 'out/.lock.json', derivedDir: 'out' })).lock).toBe('invalid');
  });
});

describe('sources the caller reads afresh', () => {
  it('are not compared: a deprecation after the build does not make curated/ stale for a release', async () => {
    const root = await project();
    await mkdir(path.join(root, 'out'));
    await writeFile(path.join(root, 'raw', 'deprecated.json'), '{"instances":[]}');
    const inputs = { 'raw/in.txt': 'file:x', 'raw/deprecated.json': 'file:y' };
    await writeFile(
      path.join(root, 'out', '.lock.json'),
      JSON.stringify({ version: 1, stages: { report: { fingerprint: 'f', outputs: 'o', summary: 's', inputs } } }),
    );
    const all = await checkBuildSources({ root, lockFile: 'out/.lock.json', derivedDir: 'out' });
    expect(all.changed.map((c) => c.path)).toEqual(['raw/deprecated.json', 'raw/in.txt']);
    const check = await checkBuildSources({
      root,
      lockFile: 'out/.lock.json',
      derivedDir: 'out',
      readAfresh: ['raw/deprecated.json'],
    });
    expect(check.changed.map((c) => c.path)).toEqual(['raw/in.txt']);
  });
});
