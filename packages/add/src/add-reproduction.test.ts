// writeDerivedTable in a temporary folder: each file type the code reads, written by the synthetic-table machinery.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DerivedTable } from '@junobench/reproduce';
import { writeDerivedTable } from './add-reproduction.js';

const table = (over: Partial<DerivedTable>): DerivedTable => ({
  rows: 5,
  delimiter: ',',
  header: true,
  derived: [],
  columns: [
    {
      name: 'day',
      kind: 'date',
      missing: 0,
      present: 5,
      naText: '',
      min: '2020-01-01',
      max: '2020-12-31',
      dateLayout: 'YYYY-MM-DD',
      unique: false,
      ordered: true,
    },
    {
      name: 'x',
      kind: 'float',
      missing: 0,
      present: 5,
      naText: '',
      min: '1.0',
      max: '9.0',
      decimals: 1,
      unique: false,
    },
  ],
  ...over,
});

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'jb-derived-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('writeDerivedTable', () => {
  it('CSV, with an ordered column sorted down the file', async () => {
    await writeDerivedTable(table({}), path.join(dir, 'a.csv'), 'seed');
    const lines = (await readFile(path.join(dir, 'a.csv'), 'utf8')).trim().split('\n');
    expect(lines[0]).toBe('day,x');
    const days = lines.slice(1).map((l) => l.split(',')[0]!);
    expect(days).toEqual([...days].sort());
  });

  it('JSON records with numbers as numbers, and JSON lines', async () => {
    await writeDerivedTable(table({ format: 'json' }), path.join(dir, 'a.json'), 'seed');
    const records = JSON.parse(await readFile(path.join(dir, 'a.json'), 'utf8')) as Record<string, unknown>[];
    expect(records).toHaveLength(5);
    expect(typeof records[0]!.x).toBe('number');
    await writeDerivedTable(table({ format: 'json', lines: true }), path.join(dir, 'b.json'), 'seed');
    expect((await readFile(path.join(dir, 'b.json'), 'utf8')).trim().split('\n')).toHaveLength(5);
  });

  it('an Excel workbook: one sheet, the header then the rows', async () => {
    await writeDerivedTable(table({ format: 'excel' }), path.join(dir, 'a.xlsx'), 'seed');
    const book = new ExcelJS.Workbook();
    await book.xlsx.readFile(path.join(dir, 'a.xlsx'));
    const sheet = book.worksheets[0]!;
    expect(sheet.rowCount).toBe(6);
    expect(sheet.getRow(1).values).toEqual([undefined, 'day', 'x']);
  });
});
