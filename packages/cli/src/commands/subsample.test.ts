import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  checkSchema,
  formatJson,
  hashTree,
  type Instance,
  type InstanceVerification,
  type VersionResult,
} from '@junobench/core';
import { main } from '../main.js';
import { createTestContext } from '../../test-helpers/test-context.js';
import { parseRowFilter, specFromFlags, type SubsampleFlags } from './subsample.js';

// Generated fixtures and real encoders: slow on a loaded machine, so a generous per-test limit.
vi.setConfig({ testTimeout: 60_000 });

const made: string[] = [];
afterEach(async () => {
  await Promise.all(made.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

const base: SubsampleFlags = {
  instances: 'raw/instances',
  keep: [],
  index: [],
  sidecars: [],
  missingPattern: true,
  runtime: 'local',
};

describe('parseRowFilter', () => {
  it.each([
    ['units:missing', { column: 'units', isMissing: true }],
    ['units:present', { column: 'units', isMissing: false }],
    ['region=Islands', { column: 'region', equals: 'Islands' }],
    ['a=b=c', { column: 'a', equals: 'b=c' }],
    ['name~^Sm', { column: 'name', matches: '^Sm' }],
  ])('%s', (text, want) => expect(parseRowFilter(text)).toEqual(want));

  it('explains a bad filter', () => expect(() => parseRowFilter('units')).toThrow(/not a row filter/));
});

describe('specFromFlags', () => {
  it('builds a one-step table spec', async () => {
    const spec = await specFromFlags(
      {
        ...base,
        method: 'table',
        path: 'sales.csv',
        rows: 100,
        stratify: 'region',
        keep: ['units:missing'],
        seed: '7',
      },
      { cwd: '/' },
    );
    expect(spec).toEqual({
      seed: 7,
      source: { kind: 'local' },
      steps: [
        {
          path: 'sales.csv',
          method: 'table',
          parameters: { rows: 100, stratifyBy: 'region', keep: [{ column: 'units', isMissing: true }] },
        },
      ],
    });
  });

  it('builds an images spec', async () => {
    const spec = await specFromFlags(
      { ...base, method: 'images', path: 'train', perClass: 5, maxSide: 128, index: ['train.csv'] },
      { cwd: '/' },
    );
    expect(spec!.steps[0]).toEqual({
      path: 'train',
      method: 'images',
      parameters: { perClass: 5, maxSide: 128, indexFiles: ['train.csv'] },
    });
  });

  it.each([
    [{ method: 'table' as const }, /needs --path/],
    [{ method: 'table' as const, path: 'a.csv' }, /rows or fraction/],
    [{ method: 'archive' as const, path: 'a.zip' }, /needs --fraction/],
    [{ method: 'synthetic-table' as const, path: 'a.csv' }, /--reason/],
    [{ seed: '3' }, /--seed needs --spec or --method/],
  ])('refuses %j', async (flags, msg) => {
    await expect(specFromFlags({ ...base, ...flags }, { cwd: '/' })).rejects.toThrow(msg);
  });

  it('is undefined without --spec or --method (the saved spec is redone)', async () => {
    expect(await specFromFlags(base, { cwd: '/' })).toBeUndefined();
  });
});

async function instanceFolder(): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), 'junobench-cli-subsample-'));
  made.push(root);
  const dir = path.join(root, 'instances', 'x_1');
  await mkdir(path.join(dir, 'data'), { recursive: true });
  const instance: Instance = {
    id: 'x_1',
    source: { platform: 'local', datasets: [] },
    crash: { ename: 'KeyError', evalue: "'a'", match: 'exact', cell: 0 },
    execution: { order: 'file' },
    requires: [],
    labels: { library: 'pandas', crashType: 'key error', rootCause: 'API misuse', pipelineStage: 'data preparation' },
  };
  await writeFile(path.join(dir, 'instance.json'), formatJson(instance));
  await writeFile(
    path.join(dir, 'data/t.csv'),
    `a,b\n${Array.from({ length: 300 }, (_, i) => `${i},${i % 5}`).join('\n')}\n`,
  );
  return root;
}

describe('junobench subsample', () => {
  it('reports a dry run without changing anything', async () => {
    const root = await instanceFolder();
    const before = await hashTree(path.join(root, 'instances'));
    const ctx = createTestContext(root);
    const code = await main(
      [
        'subsample',
        'x_1',
        '--instances',
        'instances',
        '--method',
        'table',
        '--path',
        't.csv',
        '--rows',
        '10',
        '--dry-run',
        '--json',
        'r.json',
        '--cache-dir',
        'c',
      ],
      ctx,
    );
    expect(ctx.stderr.join('\n')).toBe('');
    expect(code).toBe(0);
    expect(ctx.stdout.join('\n')).toMatch(/rows 300 → 10/);
    expect(ctx.stdout.join('\n')).toMatch(/dry run — nothing changed/);
    expect(JSON.parse(await readFile(path.join(root, 'r.json'), 'utf8'))).toMatchObject({
      status: 'dry-run',
      instance: 'x_1',
    });
    expect(await hashTree(path.join(root, 'instances'))).toBe(before);
  });

  it('exits 2 with the file and field of a bad spec', async () => {
    const root = await instanceFolder();
    await writeFile(
      path.join(root, 'spec.json'),
      JSON.stringify({ seed: 1, source: { kind: 'local' }, steps: [{ path: 't.csv', method: 'tabel' }] }),
    );
    const ctx = createTestContext(root);
    const code = await main(['subsample', 'x_1', '--instances', 'instances', '--spec', 'spec.json', '--dry-run'], ctx);
    expect(code).toBe(2);
    expect(ctx.stderr.join('\n')).toMatch(/spec\.json, field "steps\[0\]\.method": unknown subsampling method "tabel"/);
  });

  it.each([
    ['a dry run', ['--method', 'table', '--path', 't.csv', '--rows', '10', '--dry-run']],
    ['--check', ['--check']],
  ])(
    'refuses an instance id that leaves --instances (%s): exit 2 naming the id, nothing read or written outside',
    async (_name, flags) => {
      const root = await instanceFolder();
      // The same instance one folder up, outside --instances: `../outside/x_1` must not reach it.
      await rm(path.join(root, 'outside'), { recursive: true, force: true });
      await mkdir(path.join(root, 'outside'));
      const { cp } = await import('node:fs/promises');
      await cp(path.join(root, 'instances', 'x_1'), path.join(root, 'outside', 'x_1'), { recursive: true });
      const before = await hashTree(path.join(root, 'outside'));
      for (const id of ['../outside/x_1', '/abs/x_1', 'a/b', '..']) {
        const ctx = createTestContext(root);
        expect(await main(['subsample', id, '--instances', 'instances', '--cache-dir', 'c', ...flags], ctx), id).toBe(
          2,
        );
        expect(ctx.stderr.join('\n')).toContain(`"${id}" is not a valid instance id`);
      }
      expect(await hashTree(path.join(root, 'outside'))).toBe(before);
    },
  );

  it('exits 2 when the instance has no spec to redo', async () => {
    const root = await instanceFolder();
    const ctx = createTestContext(root);
    expect(await main(['subsample', 'x_1', '--instances', 'instances', '--dry-run'], ctx)).toBe(2);
    expect(ctx.stderr.join('\n')).toMatch(/no subsampling spec for instance x_1/);
  });

  // The --json files: the real subsampleInstance (with an injected verification, no kernel) and the real --check.
  const version = (v: 'reproduced' | 'fixed', outcome: VersionResult['outcome']): VersionResult => ({
    version: v,
    outcome,
    cells: [],
    durationMs: 1,
    runtime: { kind: 'local', packages: {} },
  });
  const verification = (ok: boolean): InstanceVerification => ({
    instance: 'x_1',
    status: ok ? 'verified' : 'not-verified',
    verified: ok,
    flaky: false,
    reproduced: version('reproduced', ok ? 'crash-reproduced' : 'no-crash'),
    fixed: version('fixed', 'fixed-ok'),
    contentHash: 'x',
    cached: false,
  });

  it.each([
    ['applied', true],
    ['refused', false],
  ])(
    '%s: the subsampling reports in the subsample-report format (and, applied, --check --json in subsample-check-report)',
    async (status, ok) => {
      const root = await instanceFolder();
      const { subsampleInstance } = await import('@junobench/subsample');
      const { writeSubsampleReport } = await import('@junobench/subsample');
      const result = await subsampleInstance({
        instanceDir: path.join(root, 'instances', 'x_1'),
        spec: {
          seed: 1,
          source: { kind: 'local' },
          steps: [{ path: 't.csv', method: 'table', parameters: { rows: 10, stratifyBy: 'b' } }],
        },
        cacheDir: path.join(root, 'c'),
        verify: async () => verification(ok),
      });
      expect(result.status).toBe(status);
      expect(checkSchema('subsample-report', result)).toEqual([]);
      await writeSubsampleReport(path.join(root, 'r.json'), result);
      expect(checkSchema('subsample-report', JSON.parse(await readFile(path.join(root, 'r.json'), 'utf8')))).toEqual(
        [],
      );
      if (!ok) return;
      const ctx = createTestContext(root);
      // The full data of a local source went to the cache when the reduced data replaced it.
      expect(result.originalDataKeptAt).toBeDefined();
      const code = await main(
        [
          'subsample',
          'x_1',
          '--instances',
          'instances',
          '--check',
          '--json',
          'check.json',
          '--cache-dir',
          'c',
          '--source',
          result.originalDataKeptAt!,
        ],
        ctx,
      );
      expect(ctx.stderr.join('\n')).toBe('');
      expect(code).toBe(0);
      const check = JSON.parse(await readFile(path.join(root, 'check.json'), 'utf8'));
      expect(check).toMatchObject({ instance: 'x_1', matches: true, expected: result.spec.result });
      expect(checkSchema('subsample-check-report', check)).toEqual([]);
    },
  );

  it('a dry run --json is in the subsample-report format', async () => {
    const root = await instanceFolder();
    const ctx = createTestContext(root);
    expect(
      await main(
        [
          'subsample',
          'x_1',
          '--instances',
          'instances',
          '--method',
          'table',
          '--path',
          't.csv',
          '--rows',
          '10',
          '--dry-run',
          '--json',
          'r.json',
          '--cache-dir',
          'c',
        ],
        ctx,
      ),
    ).toBe(0);
    expect(checkSchema('subsample-report', JSON.parse(await readFile(path.join(root, 'r.json'), 'utf8')))).toEqual([]);
  });
});
