import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it, vi } from 'vitest';
import { createRng, sha256 } from '@junobench/core';
import { isMissingValue } from './missing-values.js';
import { profileTable, scrambleText, synthesizeTable } from './synthesize-table.js';
import { useTempDirs } from '../test-helpers/temp-dirs.js';

// Generated fixtures and real encoders: slow on a loaded machine, so a generous per-test limit.
vi.setConfig({ testTimeout: 60_000 });

const tempDir = useTempDirs();

async function fixture(): Promise<{ dir: string; input: string }> {
  const dir = await tempDir();
  const rng = createRng('synth');
  const lines = ['PassengerId,Survived,Pclass,Name,Sex,Age,Fare,Embarked,Cabin,Joined,VIP'];
  for (let i = 1; i <= 2000; i++) {
    const age = rng.next() < 0.2 ? '' : (1 + rng.next() * 79).toFixed(1);
    const embarked = rng.next() < 0.01 ? '' : ['S', 'C', 'Q'][rng.int(3)]!;
    const cabin = rng.next() < 0.7 ? '' : `${'ABCDE'[rng.int(5)]}${rng.int(120)}`;
    const date = `2023-0${1 + rng.int(9)}-${String(1 + rng.int(28)).padStart(2, '0')}`;
    lines.push(
      `${i},${rng.int(2)},${1 + rng.int(3)},"Smith, Mr. John ${i}",${rng.next() < 0.6 ? 'male' : 'female'},${age},${(5 + rng.next() * 500).toFixed(4)},${embarked},${cabin},${date},${rng.next() < 0.1 ? 'True' : 'False'}`,
    );
  }
  const input = path.join(dir, 'titanic.csv');
  await writeFile(input, `${lines.join('\n')}\n`);
  return { dir, input };
}

describe('synthesizeTable', () => {
  it('keeps columns, dtypes, ranges, categories and missing shares, with new values', async () => {
    const { dir, input } = await fixture();
    const out = path.join(dir, 'synthetic.csv');
    const r = await synthesizeTable(input, out, { seed: 1 });
    const src = parse(await readFile(input, 'utf8')) as string[][];
    const got = parse(await readFile(out, 'utf8')) as string[][];
    expect(got[0]).toEqual(src[0]);
    expect(got).toHaveLength(src.length);
    const col = (t: string[][], name: string) => t.slice(1).map((row) => row[t[0]!.indexOf(name)]!);
    const kinds = Object.fromEntries(r.columns.map((c) => [c.name, c.kind]));
    expect(kinds).toMatchObject({
      PassengerId: 'int',
      Survived: 'category',
      Pclass: 'category',
      Name: 'text',
      Sex: 'category',
      Age: 'float',
      Fare: 'float',
      Embarked: 'category',
      Joined: 'date',
      VIP: 'bool',
    });
    for (const name of ['Survived', 'Pclass', 'Sex', 'Embarked', 'VIP']) {
      expect(new Set(col(got, name))).toEqual(new Set(col(src, name)));
    }
    const nums = (t: string[][], name: string) =>
      col(t, name)
        .filter((v) => !isMissingValue(v))
        .map(Number);
    for (const name of ['Age', 'Fare', 'PassengerId']) {
      expect(Math.min(...nums(got, name))).toBe(Math.min(...nums(src, name)));
      expect(Math.max(...nums(got, name))).toBe(Math.max(...nums(src, name)));
    }
    // Text form: "12.0"-style floats keep their decimals; ids stay unique.
    expect(col(got, 'Fare').every((v) => /^\d+\.\d{4}$/.test(v))).toBe(true);
    expect(new Set(col(got, 'PassengerId')).size).toBe(2000);
    for (const c of r.columns) expect(Math.abs(c.missingAfter - c.missingBefore)).toBeLessThan(0.04);
    // Names are generated, not copied.
    const srcNames = new Set(col(src, 'Name'));
    expect(col(got, 'Name').filter((n) => srcNames.has(n)).length).toBeLessThan(5);
    const again = path.join(dir, 'again.csv');
    await synthesizeTable(input, again, { seed: 1 });
    expect(sha256(await readFile(again))).toBe(sha256(await readFile(out)));
  });

  it('generates the number of rows asked for', async () => {
    const { dir, input } = await fixture();
    const r = await synthesizeTable(input, path.join(dir, 's.csv'), { seed: 2, rows: 100 });
    expect(r.rowsAfter).toBe(100);
    expect((parse(await readFile(path.join(dir, 's.csv'), 'utf8')) as string[][]).length).toBe(101);
  });

  it('profiles without keeping real values in the profile', async () => {
    const { input } = await fixture();
    const p = await profileTable(input);
    expect(JSON.stringify(p)).not.toContain('Smith');
  });

  it('scrambles text keeping its shape', () => {
    const s = scrambleText('Ab-12 x', createRng(1));
    expect(s).toMatch(/^[A-Z][a-z]-\d\d [a-z]$/);
  });
});
