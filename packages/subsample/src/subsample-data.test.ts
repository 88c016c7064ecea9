import { lstat, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { checkSchema, listTree, type SubsampleSpec } from '@junobench/core';
import { writeZip } from '../test-helpers/archive-fixtures.js';
import { generateSource } from './generate-source.js';
import { parseSubsampleSpec } from './spec.js';
import { subsampleData } from './subsample-data.js';
import { summarizeSubsampleReports } from './summarize-reports.js';
import { useTempDirs } from '../test-helpers/temp-dirs.js';

// Generated fixtures and real encoders: slow on a loaded machine, so a generous per-test limit.
vi.setConfig({ testTimeout: 60_000 });

const tempDir = useTempDirs();

async function fullData(dir: string): Promise<string> {
  const src = path.join(dir, 'full');
  await mkdir(path.join(src, 'extra'), { recursive: true });
  await writeFile(
    path.join(src, 'train.csv'),
    `a,b\n${Array.from({ length: 1000 }, (_, i) => `${i},${i % 3}`).join('\n')}\n`,
  );
  await writeFile(
    path.join(src, 'private.csv'),
    `x,y\n${Array.from({ length: 50 }, (_, i) => `${i},v${i % 4}`).join('\n')}\n`,
  );
  await writeFile(path.join(src, 'extra/notes.txt'), 'hello\n');
  await writeFile(path.join(src, 'big.bin'), Buffer.alloc(1000));
  await writeZip(
    path.join(src, 'imgs.zip'),
    Array.from({ length: 30 }, (_, i) => ({ path: `${['a', 'b'][i % 2]}/${i}.txt` })),
  );
  return src;
}

const spec: SubsampleSpec = {
  seed: 11,
  source: { kind: 'local' },
  others: 'copy',
  steps: [
    { path: 'train.csv', method: 'table', parameters: { rows: 100, stratifyBy: 'b' } },
    {
      path: 'private.csv',
      method: 'synthetic-table',
      parameters: { reason: 'no redistribution', license: 'Proprietary' },
    },
    { path: 'imgs.zip', method: 'archive', parameters: { fraction: 0.1 } },
    { path: 'big.bin', method: 'drop' },
  ],
};

describe('subsampleData', () => {
  it('applies each step, copies the rest, and hashes the result reproducibly', async () => {
    const dir = await tempDir();
    const src = await fullData(dir);
    const a = await subsampleData({ sourceDir: src, outDir: path.join(dir, 'a'), spec });
    const b = await subsampleData({ sourceDir: src, outDir: path.join(dir, 'b'), spec });
    expect(a.result).toEqual(b.result);
    expect(await listTree(path.join(dir, 'a'))).toEqual(['extra/notes.txt', 'imgs.zip', 'private.csv', 'train.csv']);
    expect(a.filesDropped).toBe(1);
    expect(a.filesKept).toBe(4);
    expect(a.after.bytes).toBeLessThan(a.before.bytes);
    expect(a.steps.map((s) => s.method)).toEqual(['table', 'synthetic-table', 'archive', 'drop']);
    expect(a.steps[0]!.table!.rowsAfter).toBe(100);
    expect(a.steps[2]!.archive!.filesAfter).toBe(4);
    expect(await readFile(path.join(dir, 'a/extra/notes.txt'), 'utf8')).toBe('hello\n');
    const other = await subsampleData({ sourceDir: src, outDir: path.join(dir, 'c'), spec: { ...spec, seed: 12 } });
    expect(other.result.sha256).not.toBe(a.result.sha256);
  });

  it('names a step path missing from the full data and leaves no output', async () => {
    const dir = await tempDir();
    const src = await fullData(dir);
    const bad: SubsampleSpec = { ...spec, steps: [{ path: 'trian.csv', method: 'table', parameters: { rows: 1 } }] };
    await expect(subsampleData({ sourceDir: src, outDir: path.join(dir, 'o'), spec: bad })).rejects.toMatchObject({
      code: 'E_SUBSAMPLE',
      hint: expect.stringContaining('train.csv'),
    });
    expect((await listTree(dir)).some((f) => f.startsWith('o'))).toBe(false);
  });

  it('reads the full data under the link rule: a link inside is its content, a link outside is refused by name', async () => {
    const dir = await tempDir();
    const src = await fullData(dir);
    await symlink('extra/notes.txt', path.join(src, 'notes-link.txt'));
    const a = await subsampleData({ sourceDir: src, outDir: path.join(dir, 'a'), spec });
    expect((await lstat(path.join(dir, 'a/notes-link.txt'))).isSymbolicLink()).toBe(false);
    expect(await readFile(path.join(dir, 'a/notes-link.txt'), 'utf8')).toBe('hello\n');
    expect(a.filesKept).toBe(5);
    await writeFile(path.join(dir, 'secret.txt'), 'outside\n');
    await symlink(path.join(dir, 'secret.txt'), path.join(src, 'extra/leak.txt'));
    await expect(subsampleData({ sourceDir: src, outDir: path.join(dir, 'b'), spec })).rejects.toMatchObject({
      code: 'E_INSTANCE',
      message: expect.stringMatching(/^extra\/leak\.txt is a symbolic link to a path outside/),
    });
    expect((await listTree(dir)).some((f) => f.startsWith('b'))).toBe(false);
  });

  it('summarizes reports for curated/', async () => {
    const dir = await tempDir();
    const src = await fullData(dir);
    const data = await subsampleData({ sourceDir: src, outDir: path.join(dir, 'a'), spec });
    const s = summarizeSubsampleReports([
      { instance: 'b_2', status: 'refused', data, durationMs: 5, reason: 'x' },
      { instance: 'a_1', status: 'applied', data, durationMs: 7 },
    ]);
    expect(s).toMatchObject({
      instances: 2,
      applied: 1,
      refused: 1,
      before: data.before,
      after: data.after,
      filesDropped: 1,
      durationMs: 12,
    });
    expect(s.perInstance.map((p) => p.instance)).toEqual(['a_1', 'b_2']);
    expect(s.ratio).toBeCloseTo(data.after.bytes / data.before.bytes, 5);
    expect(checkSchema('subsample-summary', s)).toEqual([]);
  });
});

describe('parseSubsampleSpec', () => {
  it.each([
    [
      { seed: 1, source: { kind: 'local' }, steps: [{ path: 'a.csv', method: 'tabel', parameters: {} }] },
      /unknown subsampling method "tabel"/,
    ],
    [
      { seed: 1, source: { kind: 'local' }, steps: [{ path: 'a.csv', method: 'table', parameters: {} }] },
      /needs one of rows or fraction/,
    ],
    [
      {
        seed: 1,
        source: { kind: 'local' },
        steps: [{ path: 'a.csv', method: 'table', parameters: { rows: 1, fraction: 0.5 } }],
      },
      /both rows and fraction/,
    ],
    [{ seed: 1, source: { kind: 'local' }, steps: [{ path: '../a.csv', method: 'copy' }] }, /steps\[0\]\.path|pattern/],
    [{ seed: 1, source: { kind: 'generator' }, steps: [{ path: 'a', method: 'copy' }] }, /generator name/],
    [
      {
        seed: 1,
        source: { kind: 'local' },
        steps: [
          { path: 'a', method: 'copy' },
          { path: './a/', method: 'drop' },
        ],
      },
      /same path "a"/,
    ],
  ])('rejects %j', (value, msg) => {
    let err: unknown;
    try {
      parseSubsampleSpec(value, { file: 'spec.json' });
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ code: 'E_SCHEMA' });
    const e = err as { message: string; location: { field?: string } };
    expect(`${e.message} ${e.location.field ?? ''}`).toMatch(msg);
  });
});

describe('generateSource', () => {
  it('generates once into the cache and reuses it, byte for byte', async () => {
    const dir = await tempDir();
    const a = await generateSource(dir, 'retail-sales', { rows: 2000 }, 3);
    const b = await generateSource(dir, 'retail-sales', { rows: 2000 }, 3);
    expect(a.cached).toBe(false);
    expect(b.cached).toBe(true);
    expect(b.sha256).toBe(a.sha256);
    const other = await generateSource(path.join(dir, 'other'), 'retail-sales', { rows: 2000 }, 3);
    expect(other.sha256).toBe(a.sha256);
    const text = await readFile(path.join(a.dir, 'sales.csv'), 'utf8');
    expect(text.split('\n')[0]).toBe(
      'order_id,order_date,region,store_id,category,product,unit_price,units,discount,customer_segment,payment_method,returned',
    );
    expect(text.trim().split('\n')).toHaveLength(2001);
    await expect(generateSource(dir, 'nope')).rejects.toMatchObject({
      code: 'E_SUBSAMPLE',
      hint: expect.stringContaining('retail-sales'),
    });
  });
});
