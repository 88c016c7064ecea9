import { lstat, mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  formatJson,
  hashTree,
  listTree,
  type Instance,
  type InstanceVerification,
  type Outcome,
  type SubsampleSpec,
  type VersionResult,
} from '@junobench/core';
import { describeVerificationChange, subsampleInstance } from './subsample-instance.js';

// Generated fixtures and real encoders: slow on a loaded machine, so a generous per-test limit.
vi.setConfig({ testTimeout: 60_000 });

const made: string[] = [];
afterEach(async () => {
  await Promise.all(made.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

const INSTANCE: Instance = {
  id: 'pandas_9',
  source: { platform: 'local', datasets: [] },
  crash: { ename: 'KeyError', evalue: "'rare'", match: 'exact', cell: 2 },
  execution: { order: 'file' },
  requires: ['pandas'],
  labels: { library: 'pandas', crashType: 'key error', rootCause: 'data confusion', pipelineStage: 'data preparation' },
};

const SPEC: SubsampleSpec = {
  seed: 1,
  source: { kind: 'local' },
  steps: [{ path: 'table.csv', method: 'table', parameters: { rows: 20, stratifyBy: 'kind' } }],
};

async function makeInstance(): Promise<{ root: string; dir: string; cache: string }> {
  const root = await mkdtemp(path.join(tmpdir(), 'junobench-pipeline-test-'));
  made.push(root);
  const dir = path.join(root, 'instances', INSTANCE.id);
  await mkdir(path.join(dir, 'data'), { recursive: true });
  await writeFile(path.join(dir, 'instance.json'), formatJson(INSTANCE));
  await writeFile(path.join(dir, 'reproduced.ipynb'), '{}');
  await writeFile(path.join(dir, 'fixed.ipynb'), '{}');
  const rows = Array.from({ length: 500 }, (_, i) => `${i},${i === 7 ? 'rare' : i % 2 ? 'odd' : 'even'}`);
  await writeFile(path.join(dir, 'data/table.csv'), `id,kind\n${rows.join('\n')}\n`);
  return { root, dir, cache: path.join(root, 'cache') };
}

function version(v: 'reproduced' | 'fixed', outcome: Outcome, observed?: VersionResult['observed']): VersionResult {
  return {
    version: v,
    outcome,
    cells: [],
    durationMs: 1,
    runtime: { kind: 'local', packages: {} },
    ...(observed ? { observed } : {}),
  };
}

function verification(ok: boolean): InstanceVerification {
  return {
    instance: INSTANCE.id,
    status: ok ? 'verified' : 'not-verified',
    verified: ok,
    flaky: false,
    reproduced: ok
      ? version('reproduced', 'crash-reproduced')
      : version('reproduced', 'crash-mismatch', { ename: 'ValueError', evalue: 'bad shape', cell: 1 }),
    fixed: version('fixed', 'fixed-ok'),
    contentHash: 'x',
    cached: false,
  };
}

describe('subsampleInstance', () => {
  it('verifies the reduced copy, then swaps data/ in and saves the spec', async () => {
    const { root, dir, cache } = await makeInstance();
    const originalHash = await hashTree(path.join(dir, 'data'));
    const seen: string[] = [];
    const r = await subsampleInstance({
      instanceDir: dir,
      spec: SPEC,
      cacheDir: cache,
      verify: async (staged) => {
        seen.push(staged);
        expect(path.basename(staged)).toBe(INSTANCE.id);
        const inst = JSON.parse(await readFile(path.join(staged, 'instance.json'), 'utf8')) as Instance;
        expect(inst.data?.subsample?.steps).toEqual(SPEC.steps);
        expect((await readFile(path.join(staged, 'data/table.csv'), 'utf8')).trim().split('\n')).toHaveLength(21);
        expect(await readFile(path.join(staged, 'reproduced.ipynb'), 'utf8')).toBe('{}');
        return verification(true);
      },
    });
    expect(seen).toHaveLength(1);
    expect(r.status).toBe('applied');
    const csv = (await readFile(path.join(dir, 'data/table.csv'), 'utf8')).trim().split('\n');
    expect(csv).toHaveLength(21);
    expect(csv).toContain('7,rare');
    const saved = JSON.parse(await readFile(path.join(dir, 'instance.json'), 'utf8')) as Instance;
    expect(saved.data?.subsample?.source.sha256).toBe(originalHash);
    expect(saved.data?.subsample?.result?.sha256).toBe(await hashTree(path.join(dir, 'data')));
    // Nothing lost: the full data is kept in the cache; nothing left beside the instance.
    expect(await hashTree(r.originalDataKeptAt!)).toBe(originalHash);
    expect((await readdir(path.join(root, 'instances'))).sort()).toEqual([INSTANCE.id]);
    expect((await readdir(dir)).sort()).toEqual(['data', 'fixed.ipynb', 'instance.json', 'reproduced.ipynb']);
  });

  it('refuses a subsampling that loses the crash and leaves the instance untouched', async () => {
    const { root, dir, cache } = await makeInstance();
    const before = await hashTree(dir);
    const r = await subsampleInstance({
      instanceDir: dir,
      spec: SPEC,
      cacheDir: cache,
      verify: async () => verification(false),
    });
    expect(r.status).toBe('refused');
    expect(r.reason).toMatch(
      /expected KeyError: 'rare' \(cell 2\), got crash-mismatch — ValueError: bad shape \(cell 1\)/,
    );
    expect(await hashTree(dir)).toBe(before);
    expect(await readdir(path.join(root, 'instances'))).toEqual([INSTANCE.id]);
  });

  it('leaves the instance untouched when verification fails', async () => {
    const { root, dir, cache } = await makeInstance();
    const before = await hashTree(dir);
    await expect(
      subsampleInstance({
        instanceDir: dir,
        spec: SPEC,
        cacheDir: cache,
        verify: async () => Promise.reject(new Error('kernel exploded')),
      }),
    ).rejects.toThrow('kernel exploded');
    expect(await hashTree(dir)).toBe(before);
    expect(await readdir(path.join(root, 'instances'))).toEqual([INSTANCE.id]);
  });

  it('reports sizes on a dry run without verifying or changing anything', async () => {
    const { dir, cache } = await makeInstance();
    const before = await hashTree(dir);
    const r = await subsampleInstance({
      instanceDir: dir,
      spec: SPEC,
      cacheDir: cache,
      dryRun: true,
      verify: () => Promise.reject(new Error('not called')),
    });
    expect(r.status).toBe('dry-run');
    expect(r.data.steps[0]!.table!.rowsAfter).toBe(20);
    expect(r.data.after.bytes).toBeLessThan(r.data.before.bytes);
    expect(await hashTree(dir)).toBe(before);
  });

  it('redoes the saved spec from the kept full data, and needs a spec', async () => {
    const { dir, cache } = await makeInstance();
    await expect(
      subsampleInstance({ instanceDir: dir, cacheDir: cache, verify: async () => verification(true) }),
    ).rejects.toMatchObject({ code: 'E_USAGE' });
    const first = await subsampleInstance({
      instanceDir: dir,
      spec: SPEC,
      cacheDir: cache,
      verify: async () => verification(true),
    });
    const again = await subsampleInstance({
      instanceDir: dir,
      sourceDir: first.originalDataKeptAt,
      cacheDir: cache,
      verify: async () => verification(true),
    });
    expect(again.data.result).toEqual(first.data.result);
    expect(await listTree(path.join(dir, 'data'))).toEqual(['table.csv']);
  });

  it('records synthetic data in data.synthetic', async () => {
    const { dir, cache } = await makeInstance();
    await subsampleInstance({
      instanceDir: dir,
      cacheDir: cache,
      spec: {
        seed: 'x',
        source: { kind: 'local' },
        steps: [
          {
            path: 'table.csv',
            method: 'synthetic-table',
            parameters: { reason: 'licence forbids sharing', license: 'CC BY-NC-ND 4.0' },
          },
        ],
      },
      verify: async () => verification(true),
    });
    const saved = JSON.parse(await readFile(path.join(dir, 'instance.json'), 'utf8')) as Instance;
    expect(saved.data?.synthetic).toEqual({
      reason: 'licence forbids sharing',
      license: 'CC BY-NC-ND 4.0',
      files: ['data/table.csv'],
      seed: 'x',
    });
  });
});

describe('describeVerificationChange', () => {
  it('says what the fixed notebook did', () => {
    const v = {
      ...verification(true),
      verified: false,
      fixed: version('fixed', 'fixed-crashed', { ename: 'KeyError', evalue: "'rare'", cell: 2 }),
    };
    expect(describeVerificationChange(INSTANCE.crash, v)).toBe(
      "fixed: fixed-crashed — KeyError: 'rare' (cell 2); data/ was left as it was",
    );
  });
});

describe('links in the instance (the one link rule)', () => {
  it('stages links inside the instance as copies of their content: no link in staging points back into the instance', async () => {
    const { dir, cache } = await makeInstance();
    await writeFile(path.join(dir, 'notes.txt'), 'notes\n');
    await symlink('notes.txt', path.join(dir, 'notes-link.txt'));
    let staged: { link: boolean; text: string } | undefined;
    const r = await subsampleInstance({
      instanceDir: dir,
      spec: SPEC,
      cacheDir: cache,
      verify: async (staging) => {
        const st = await lstat(path.join(staging, 'notes-link.txt'));
        staged = { link: st.isSymbolicLink(), text: await readFile(path.join(staging, 'notes-link.txt'), 'utf8') };
        return verification(true);
      },
    });
    expect(r.status).toBe('applied');
    expect(staged).toEqual({ link: false, text: 'notes\n' });
  });

  it.each([
    ['an instance file', 'leak.txt'],
    ['a data file', 'data/leak.csv'],
  ])('refuses %s that links outside the instance, naming it, and changes nothing', async (_n, rel) => {
    const { root, dir, cache } = await makeInstance();
    await writeFile(path.join(root, 'secret.txt'), 'outside\n');
    await symlink(path.join(root, 'secret.txt'), path.join(dir, rel));
    const before = await hashTree(path.join(root, 'instances'), {
      ignore: (p) => p.endsWith('leak.txt') || p.endsWith('leak.csv'),
    });
    const verify = vi.fn(async () => verification(true));
    const err = await subsampleInstance({ instanceDir: dir, spec: SPEC, cacheDir: cache, verify }).catch(
      (e: unknown) => e,
    );
    expect(err).toMatchObject({
      code: 'E_INSTANCE',
      message: expect.stringMatching(/leak\.(txt|csv) is a symbolic link to a path outside/),
    });
    expect(verify).not.toHaveBeenCalled();
    expect(
      await hashTree(path.join(root, 'instances'), { ignore: (p) => p.endsWith('leak.txt') || p.endsWith('leak.csv') }),
    ).toBe(before);
  });
});
