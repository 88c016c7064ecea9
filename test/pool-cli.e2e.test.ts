import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { MAX_LINE_CHARS } from '@junobench/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, runJunobench, type CliRun } from './run-cli.js';

// The real `junobench` binary on fixtures the project owns (test/fixtures/pool, raw/).
const root = repoRoot;
const fixtures = path.join(root, 'test/fixtures/pool');

function junobench(args: string[]): Promise<CliRun> {
  return runJunobench(args);
}

const lines = async (file: string) => (await readFile(file, 'utf8')).split('\n').filter(Boolean);

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'pool-e2e-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('junobench pool (end to end)', () => {
  it.each(['import', 'filter', 'libcause', 'resample'])('pool %s --help lists its flags', async (verb) => {
    const r = await junobench(['pool', verb, '--help']);
    expect(r.code).toBe(0);
    const flags: Record<string, string[]> = {
      import: ['--output', '--format', '--rejects', 'auto|empirical|benchmark|jsonl|csv|notebooks'.split('|')[1]!],
      filter: ['--input', '--criteria', '--output', '--report'],
      libcause: ['--input', '--output', '--eval'],
      resample: ['--input', '--per-library', '--libraries', '--seed', '--output'],
    };
    for (const f of flags[verb]!) expect(r.stdout).toContain(f);
  });

  it('imports sheets (.csv, .xlsx) and notebooks, rejects bad rows with row and reason, then filters, estimates and resamples', async () => {
    const xlsx = path.join(dir, 'benchmark.xlsx');
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('Sheet1');
    const csvRows = (await readFile(path.join(fixtures, 'benchmark-small.csv'), 'utf8')).split('\n');
    ws.addRow(csvRows[0]!.split(','));
    ws.addRow([
      'seaborn_1',
      'x-1',
      'typeerror',
      "countplot() got multiple values for argument 'data'",
      `['Cell In[3], line 1\\n----> 1 sns.countplot("Pclass", data=train)\\n', "TypeError: countplot() got multiple values for argument 'data'"]`,
      'API misuse',
      'invalid argument',
      'data visualization',
      'ML bug',
    ]);
    await wb.xlsx.writeFile(xlsx);

    const pool = path.join(dir, 'pool.jsonl');
    const imp = await junobench([
      'pool',
      'import',
      'test/fixtures/pool/empirical-small.csv',
      'test/fixtures/pool/benchmark-small.csv',
      xlsx,
      'test/fixtures/pool/notebooks',
      '-o',
      pool,
    ]);
    expect(imp.code).toBe(0);
    expect(imp.stdout).toContain(
      'test/fixtures/pool/empirical-small.csv (empirical, csv): read 5, imported 3, rejected 2',
    );
    expect(imp.stdout).toContain(
      'test/fixtures/pool/benchmark-small.csv (benchmark, csv): read 6, imported 6, rejected 0',
    );
    expect(imp.stdout).toContain('(benchmark, xlsx): read 1, imported 1, rejected 0');
    expect(imp.stdout).toContain('test/fixtures/pool/notebooks (notebooks, folder): read 3, imported 3, rejected 0');
    expect(imp.stdout).toContain('total: read 15, imported 13, rejected 2');
    expect(await lines(pool)).toHaveLength(13);
    const rejects = (await lines(path.join(dir, 'pool.rejects.jsonl'))).map(
      (l) => JSON.parse(l) as { row: number; reason: string; columns: Record<string, unknown> },
    );
    expect(rejects.map((r) => [r.row, r.reason.split(':')[0]])).toEqual([
      [4, 'unparseable traceback'],
      [5, 'wrong type'],
    ]);
    expect(rejects[1]!.columns.fname).toBe('4d5e6f_wrong-source.ipynb');

    const kept = path.join(dir, 'kept.jsonl');
    const filter = await junobench([
      'pool',
      'filter',
      '-i',
      pool,
      '--criteria',
      'raw/criteria/junobench.json',
      '-o',
      kept,
      '--report',
      path.join(dir, 'funnel.json'),
    ]);
    expect(filter.code).toBe(0);
    expect(filter.stdout).toMatch(/1\. Kaggle notebooks only\s+keep\s+13\s+8\s+5/);
    const funnel = JSON.parse(await readFile(path.join(dir, 'funnel.json'), 'utf8')) as { input: number; kept: number };
    expect(funnel).toMatchObject({ input: 13 });
    expect(await lines(kept)).toHaveLength(funnel.kept);

    const lib = path.join(dir, 'lib.jsonl');
    const libcause = await junobench(['pool', 'libcause', '-i', pool, '-o', lib, '--eval']);
    expect(libcause.code).toBe(0);
    const out = libcause.stdout.trimEnd().split('\n');
    expect(out.at(-1)).toMatch(/^accuracy: \d\.\d{3} \(\d+\/\d+\)$/);
    expect(out.at(-1)).toBe('accuracy: 1.000 (10/10)');
    expect(libcause.stdout).toContain('labelled \\ predicted');
    expect(libcause.stdout).toMatch(/baseline \(keyword counting over the traceback, crash line ×3\): \d\.\d{3}/);
    const predicted = (await lines(lib)).map((l) => (JSON.parse(l) as { predictedLibrary: string }).predictedLibrary);
    expect(predicted).toHaveLength(13);

    const args = ['pool', 'resample', '-i', lib, '--per-library', '2', '--seed', '2026'];
    const a = await junobench([...args, '-o', path.join(dir, 'a.jsonl')]);
    const b = await junobench([...args, '--libraries', 'pandas,numpy,torch,xgboost', '-o', path.join(dir, 'b.jsonl')]);
    expect(a.code).toBe(0);
    expect(a.stdout).toMatch(/selected \d+ of 13 records \(seed 2026\)/);
    expect(b.stdout).toContain('short of 2: ');
    expect(b.stdout).toContain('xgboost (0 available)');
    const again = await junobench([...args, '-o', path.join(dir, 'a2.jsonl')]);
    expect(again.code).toBe(0);
    expect(await readFile(path.join(dir, 'a2.jsonl'), 'utf8')).toBe(await readFile(path.join(dir, 'a.jsonl'), 'utf8'));
  });

  it('imports the embedded raw pool with no rejects, and the shipped criteria filter it visibly', async () => {
    const pool = path.join(dir, 'raw.jsonl');
    const imp = await junobench(['pool', 'import', 'raw/pool/empirical-study.csv', '-o', pool]);
    expect(imp.code).toBe(0);
    expect(imp.stdout).toMatch(/rejected 0\n/);
    const filter = await junobench([
      'pool',
      'filter',
      '-i',
      pool,
      '--criteria',
      'raw/criteria/junobench.json',
      '-o',
      path.join(dir, 'raw-kept.jsonl'),
    ]);
    expect(filter.code).toBe(0);
    const removed = [...filter.stdout.matchAll(/^\d\. .*?\s+(?:keep|drop)\s+\d+\s+\d+\s+(\d+)$/gm)].map((m) =>
      Number(m[1]),
    );
    expect(removed).toHaveLength(3);
    expect(removed.every((n) => n > 0)).toBe(true);
  });

  it('refuses an output that is the input, and -o and --report at one path (exit 2, the input untouched)', async () => {
    const pool = path.join(dir, 'same.jsonl');
    expect((await junobench(['pool', 'import', 'raw/pool/empirical-study.csv', '-o', pool])).code).toBe(0);
    const before = await readFile(pool, 'utf8');
    const r = await junobench(['pool', 'filter', '-i', pool, '--criteria', 'raw/criteria/junobench.json', '-o', pool]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`-o ${pool} is also an input of this command`);
    const twin = path.join(dir, 'twin.jsonl');
    const t = await junobench(['pool', 'libcause', '-i', pool, '-o', twin, '--report', twin]);
    expect(t.code, t.stderr).toBe(2);
    expect(t.stderr).toContain('-o and --report name the same file');
    expect(await readFile(pool, 'utf8')).toBe(before);
  });

  it('rejects a JSONL line too long to hold by its line and length, and imports the lines around it', async () => {
    const base = path.join(dir, 'long-base.jsonl');
    expect((await junobench(['pool', 'import', 'raw/pool/empirical-study.csv', '-o', base])).code).toBe(0);
    const [a, b] = await lines(base);
    const file = path.join(dir, 'long.jsonl');
    // One byte over the cap; a line of hundreds of megabytes used to crash the reader (V8's string limit).
    await writeFile(file, `${a}\n{"id":"${'x'.repeat(MAX_LINE_CHARS)}"}\n${b}\n`);
    const out = path.join(dir, 'long-pool.jsonl');
    const r = await junobench(['pool', 'import', file, '-o', out, '--rejects', path.join(dir, 'long.rejects.jsonl')]);
    expect(r.code, r.stderr).toBe(0);
    expect(await lines(out)).toHaveLength(2);
    const rejects = (await lines(path.join(dir, 'long.rejects.jsonl'))).map(
      (l) => JSON.parse(l) as { row: number; reason: string; columns: { line: string } },
    );
    expect(rejects).toHaveLength(1);
    expect(rejects[0]).toMatchObject({
      row: 2,
      reason: `a line of ${MAX_LINE_CHARS + 9} characters, longer than the ${MAX_LINE_CHARS} a JSONL line may be`,
    });
    expect(rejects[0]!.columns.line.length).toBeLessThan(300);
  }, 120_000);

  it.each([
    [
      'a missing column',
      'missing-column.csv',
      /missing-column\.csv.*missing required column "traceback" for an empirical-study sheet/s,
    ],
    ['an empty file', 'empty.csv', /empty\.csv.*the file is empty/s],
    [
      'a non-xlsx file named .xlsx',
      'not-a-workbook.xlsx',
      /not-a-workbook\.xlsx.*is not an Excel workbook.*hint: .*--format csv/s,
    ],
  ])('exits 2 on %s, naming the file and what to do, and writes nothing', async (_name, file, message) => {
    const out = path.join(dir, `bad-${file}`, 'pool.jsonl');
    const r = await junobench(['pool', 'import', `test/fixtures/pool/${file}`, '-o', out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(await readdir(path.dirname(out)).catch(() => [])).toEqual([]);
  });

  it('exits 2 on a criteria file with a typo in a predicate name, pointing at the step', async () => {
    const r = await junobench([
      'pool',
      'filter',
      '-i',
      'test/fixtures/pool/empty.csv',
      '--criteria',
      'test/fixtures/pool/criteria-typo.json',
      '-o',
      path.join(dir, 'never.jsonl'),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('steps[1].keep.any[1]: unknown predicate "startswith" — did you mean "startsWith"?');
    expect(r.stderr).toContain('criteria-typo.json');
  });

  it('exits 2 on bad usage', async () => {
    const r = await junobench([
      'pool',
      'resample',
      '-i',
      'x.jsonl',
      '--per-library',
      'many',
      '--seed',
      '1',
      '-o',
      path.join(dir, 'x.jsonl'),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--per-library/);
  });
});
