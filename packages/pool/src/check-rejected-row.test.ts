import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JunoError, checkSchema, type CrashRecord } from '@junobench/core';
import { checkRejectedRow, type RejectedRow } from './check-rejected-row.js';
import { importPool } from './import-pool.js';
import { EMPIRICAL_COLUMNS } from './sheet-formats.js';

let dir: string;
let lines: RejectedRow[];

const q = (s: string) => `"${s.replace(/"/g, '""')}"`;
const record = (id: string): CrashRecord => ({
  id,
  notebook: `${id}.ipynb`,
  source: 'kaggle',
  ename: 'KeyError',
  evalue: "'a'",
  traceback: ["KeyError: 'a'"],
  columns: {},
});

// One real import whose inputs are rejected every way importPool knows: sheet cells, JSONL lines, records, duplicates,
// notebooks.
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'pool-rejects-'));
  const good = {
    fname: 'nb.ipynb',
    ename: 'keyerror',
    evalue: "'a'",
    traceback: "['KeyError: a']",
    nb_source: '1',
    'Libs-cause': 'pandas',
  };
  const sheet = [
    EMPIRICAL_COLUMNS.join(','),
    ...[
      { eid: 's1' },
      { eid: 's2', traceback: "['unclosed', 3]" },
      { eid: 's3', nb_source: 'kaggle-ish' },
      { eid: 's4', ename: '' },
    ].map((r) => EMPIRICAL_COLUMNS.map((c) => q(({ ...good, ...r } as Record<string, string>)[c] ?? '')).join(',')),
  ];
  await writeFile(path.join(dir, 'sheet.csv'), `${sheet.join('\n')}\n`);
  const jsonl = [
    JSON.stringify(record('j1')),
    '{ not json',
    JSON.stringify({ ...record('j2'), source: 7 }),
    JSON.stringify(record('j1')),
    JSON.stringify({ id: 'j3' }),
  ];
  await writeFile(path.join(dir, 'pool.jsonl'), `${jsonl.join('\n')}\n`);
  await mkdir(path.join(dir, 'nbs'));
  await writeFile(path.join(dir, 'nbs', 'broken.ipynb'), '{ not json');
  const report = await importPool([path.join(dir, 'sheet.csv'), path.join(dir, 'pool.jsonl'), path.join(dir, 'nbs')], {
    output: path.join(dir, 'out', 'pool.jsonl'),
  });
  expect(report.total).toMatchObject({ imported: 2, rejected: 8 });
  lines = (await readFile(report.rejects, 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as RejectedRow);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the pool import --rejects file', () => {
  it('has one line per reject, each valid against pool-reject', () => {
    expect(lines.map((l) => [path.basename(l.file), l.row, l.field])).toEqual([
      ['sheet.csv', 3, 'traceback'],
      ['sheet.csv', 4, 'nb_source'],
      ['sheet.csv', 5, 'ename'],
      ['pool.jsonl', 2, undefined],
      ['pool.jsonl', 3, 'source'],
      ['pool.jsonl', 4, 'id'],
      ['pool.jsonl', 5, undefined],
      ['broken.ipynb', 0, undefined],
    ]);
    for (const [i, l] of lines.entries()) expect(checkSchema('pool-reject', l), `line ${i + 1}`).toEqual([]);
  });

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- rejects are broken on purpose, field by field
  type Reject = any;
  // Broken copies of real rejects: each is an internal error naming the rejects file, its line and the field.
  it.each([
    [0, 'a negative row', (r: Reject) => (r.row = -1), 'row must be >= 0'],
    [1, 'a fractional row', (r: Reject) => (r.row = 1.5), 'row'],
    [2, 'no reason', (r: Reject) => delete r.reason, 'missing required property "reason"'],
    [3, 'an empty reason', (r: Reject) => (r.reason = ''), 'reason'],
    [4, 'an empty field', (r: Reject) => (r.field = ''), 'field'],
    [5, 'columns that are a list', (r: Reject) => (r.columns = ['x']), 'columns'],
    [0, 'a cell that is an object', (r: Reject) => (r.columns.eid = { nested: true }), 'columns.eid'],
    [7, 'no columns', (r: Reject) => delete r.columns, 'missing required property "columns"'],
    [6, 'an extra property', (r: Reject) => (r.original = {}), 'unknown property "original"'],
  ])('%#: %s fails (%s)', (i, _what, breakIt, named) => {
    const reject = structuredClone(lines[i]!) as Reject;
    expect(checkRejectedRow(reject, { file: 'pool.rejects.jsonl', line: i + 1 })).toBe(reject);
    breakIt(reject);
    let error: unknown;
    try {
      checkRejectedRow(reject, { file: 'pool.rejects.jsonl', line: i + 1 });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(JunoError);
    expect(error).toMatchObject({
      code: 'E_INTERNAL',
      exitCode: 70,
      location: { file: 'pool.rejects.jsonl', line: i + 1 },
    });
    expect((error as JunoError).message).toContain('not a valid pool-reject: ');
    expect((error as JunoError).message).toContain(named);
  });
});
