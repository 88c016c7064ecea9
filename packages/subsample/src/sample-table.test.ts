import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it, vi } from 'vitest';
import { createRng, sha256 } from '@junobench/core';
import { isMissingValue } from './missing-values.js';
import { sampleTable } from './sample-table.js';
import { useTempDirs } from '../test-helpers/temp-dirs.js';

// Generated fixtures and real encoders: slow on a loaded machine, so a generous per-test limit.
vi.setConfig({ testTimeout: 60_000 });

const tempDir = useTempDirs();

/** 10,000 rows: a skewed class column with a rare value, float texts like "1.0", missing values in two columns. */
function makeCsv(eol = '\n', bom = false): string {
  const rng = createRng('fixture');
  const lines = ['id,label,score,ratio,note,city'];
  for (let i = 0; i < 10_000; i++) {
    const label = i === 4321 ? 'rare' : rng.next() < 0.7 ? 'cat' : 'dog';
    const score = rng.next() < 0.1 ? '' : `${rng.int(5)}.0`;
    const ratio = rng.next() < 0.02 ? 'NA' : rng.next().toFixed(3);
    const note = i % 1000 === 0 ? '"multi\nline, quoted"' : `n${i}`;
    lines.push(`${i},${label},${score},${ratio},${note},${i === 777 ? 'Atlantis' : 'Oslo'}`);
  }
  return (bom ? '\ufeff' : '') + lines.join(eol) + eol;
}

async function fixture(text = makeCsv()): Promise<{ dir: string; input: string }> {
  const dir = await tempDir();
  const input = path.join(dir, 'in.csv');
  await writeFile(input, text);
  return { dir, input };
}

const rows = (text: string) => parse(text, { bom: true }) as string[][];

describe('sampleTable', () => {
  it("keeps the header, column order and every value's exact text", async () => {
    const { dir, input } = await fixture();
    const out = path.join(dir, 'out.csv');
    const r = await sampleTable(input, out, { rows: 500, seed: 1 });
    const src = rows(await readFile(input, 'utf8'));
    const got = rows(await readFile(out, 'utf8'));
    expect(got[0]).toEqual(src[0]);
    expect(r.rowsBefore).toBe(10_000);
    expect(r.rowsAfter).toBe(500);
    expect(got).toHaveLength(501);
    const byId = new Map(src.slice(1).map((row) => [row[0], row]));
    for (const row of got.slice(1)) expect(row).toEqual(byId.get(row[0]));
    expect(got.slice(1).some((row) => row[2] === '1.0' || row[2] === '0.0')).toBe(true);
    // Rows stay in file order.
    const ids = got.slice(1).map((row) => Number(row[0]));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  it('stratifies: value shares are kept and a rare value keeps its row', async () => {
    const { dir, input } = await fixture();
    const out = path.join(dir, 'out.csv');
    await sampleTable(input, out, { rows: 300, stratifyBy: 'label', seed: 2 });
    const got = rows(await readFile(out, 'utf8')).slice(1);
    const share = (v: string) => got.filter((r) => r[1] === v).length / got.length;
    const src = rows(await readFile(input, 'utf8')).slice(1);
    const srcShare = (v: string) => src.filter((r) => r[1] === v).length / src.length;
    expect(got.filter((r) => r[1] === 'rare')).toHaveLength(1);
    expect(Math.abs(share('cat') - srcShare('cat'))).toBeLessThan(0.01);
  });

  it('keeps the share of missing values per column', async () => {
    const { dir, input } = await fixture();
    const out = path.join(dir, 'out.csv');
    const r = await sampleTable(input, out, { fraction: 0.05, seed: 3 });
    const score = r.missing.find((m) => m.column === 'score')!;
    const ratio = r.missing.find((m) => m.column === 'ratio')!;
    expect(Math.abs(score.after - score.before)).toBeLessThan(0.005);
    expect(Math.abs(ratio.after - ratio.before)).toBeLessThan(0.005);
    expect(r.missingPattern).toBe('full');
    const got = rows(await readFile(out, 'utf8')).slice(1);
    expect(got.filter((row) => isMissingValue(row[2])).length / got.length).toBeCloseTo(score.after, 5);
  });

  it('always keeps the rows the keep filters match', async () => {
    const { dir, input } = await fixture();
    const out = path.join(dir, 'out.csv');
    const r = await sampleTable(input, out, {
      rows: 50,
      seed: 4,
      keep: [
        { column: 'city', equals: 'Atlantis' },
        { column: 'id', in: ['9999'] },
      ],
    });
    const got = rows(await readFile(out, 'utf8')).slice(1);
    expect(r.keptByFilter).toBe(2);
    expect(got.map((row) => row[0])).toEqual(expect.arrayContaining(['777', '9999']));
    expect(got).toHaveLength(50);
  });

  it('gives the same bytes for the same seed and other rows for another', async () => {
    const { dir, input } = await fixture();
    const a = path.join(dir, 'a.csv');
    const b = path.join(dir, 'b.csv');
    const c = path.join(dir, 'c.csv');
    await sampleTable(input, a, { rows: 200, stratifyBy: 'label', seed: 'x' });
    await sampleTable(input, b, { rows: 200, stratifyBy: 'label', seed: 'x' });
    await sampleTable(input, c, { rows: 200, stratifyBy: 'label', seed: 'y' });
    expect(sha256(await readFile(a))).toBe(sha256(await readFile(b)));
    expect(sha256(await readFile(a))).not.toBe(sha256(await readFile(c)));
  });

  it('keeps CRLF line endings, a BOM and quoted newlines', async () => {
    const { dir, input } = await fixture(makeCsv('\r\n', true));
    const out = path.join(dir, 'out.csv');
    await sampleTable(input, out, { fraction: 1, seed: 5 });
    const text = await readFile(out, 'utf8');
    expect(text.startsWith('\ufeffid,label')).toBe(true);
    expect(text.split('\r\n')).toHaveLength(10_002);
    expect(rows(text)).toEqual(rows(await readFile(input, 'utf8')));
  });

  it.each([
    [{ stratifyBy: 'lable' }, 'E_INPUT_COLUMNS', /did you mean "label"/],
    [{ keep: [{ column: 'citty', equals: 'x' }] }, 'E_INPUT_COLUMNS', /did you mean "city"/],
  ])('names a wrong column (%j)', async (opts, code, hint) => {
    const { dir, input } = await fixture();
    const err = await sampleTable(input, path.join(dir, 'o.csv'), { rows: 5, seed: 1, ...opts }).catch(
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code });
    expect((err as { hint: string }).hint).toMatch(hint);
  });

  it.each([
    ['t.parquet', Buffer.from('PAR1\u0000\u0001rest')],
    ['t.csv', Buffer.from('PAR1\u0000\u0001rest')],
    ['t.xlsx', Buffer.from('PK\u0003\u0004')],
    ['t.dat', Buffer.from([0x61, 0x2c, 0x62, 0x0a, 0x00, 0x01])],
  ])('refuses a binary table (%s) by name instead of sampling it as text', async (name, bytes) => {
    const dir = await tempDir();
    const input = path.join(dir, name);
    await writeFile(input, bytes);
    const out = path.join(dir, 'o.csv');
    const err = await sampleTable(input, out, { rows: 1, seed: 1 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'E_INPUT_FORMAT', location: { file: input } });
    expect((err as { hint: string }).hint).toMatch(/convert the table to CSV/);
    await expect(readFile(out)).rejects.toThrow();
  });

  it('names the file and line of a row with too many fields, and writes nothing', async () => {
    const { dir, input } = await fixture('a,b\n1,2\n3,4,5\n');
    const out = path.join(dir, 'o.csv');
    const err = await sampleTable(input, out, { rows: 1, seed: 1 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'E_INPUT_ROW', location: { file: input, line: 3 } });
    await expect(readFile(out)).rejects.toThrow();
  });

  it('refuses an empty file', async () => {
    const { dir, input } = await fixture('');
    await expect(sampleTable(input, path.join(dir, 'o.csv'), { rows: 1, seed: 1 })).rejects.toMatchObject({
      code: 'E_INPUT_EMPTY',
    });
  });
});
