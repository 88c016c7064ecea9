// writeDerivedTable in a temporary folder: each file type the code reads, written by the synthetic-table machinery.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Instance, InstanceVerification } from '@junobench/core';
import type { DerivedTable } from '@junobench/reproduce';
import { matchNewerWording, writeDerivedTable } from './add-reproduction.js';

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

  it('dates at a regular step: the sequence from the first, month by month', async () => {
    const t = table({});
    Object.assign(t.columns[0]!, { min: '1949-01-01', every: { months: 1 } });
    await writeDerivedTable(t, path.join(dir, 'm.csv'), 'seed');
    const lines = (await readFile(path.join(dir, 'm.csv'), 'utf8')).trim().split('\n');
    expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual([
      '1949-01-01',
      '1949-02-01',
      '1949-03-01',
      '1949-04-01',
      '1949-05-01',
    ]);
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

describe('matchNewerWording: the same failure site, another wording', () => {
  const savedMsg = 'only list-like objects are allowed to be passed to isin(), you passed a [int64]';
  const nowMsg = 'only list-like objects are allowed to be passed to isin(), you passed a [int]';
  const stmt = "df[df['period'].isin(df.period.max())]";
  const savedTraceback = [
    'TypeError                                 Traceback (most recent call last)',
    `<ipython-input-7-ab12> in <module>()\n----> 1 ${stmt}\n`,
    '/usr/local/lib/python2.7/dist-packages/pandas/core/algorithms.pyc in isin(comps, values)\n--> 393         raise TypeError(msg)\n',
    `TypeError: ${savedMsg}`,
  ];
  const runTraceback = [
    'TypeError                                 Traceback (most recent call last)',
    `Cell In[2], line 1\n----> 1 ${stmt}\n`,
    'File /usr/lib/python3/dist-packages/pandas/core/algorithms.py:457, in isin(comps, values)\n--> 457     raise TypeError(\n',
    `TypeError: ${nowMsg}`,
  ];
  const version = (outcome: 'crash-mismatch' | 'crash-reproduced') =>
    ({
      version: 'reproduced',
      outcome,
      observed: { ename: 'TypeError', evalue: nowMsg, cell: 1 },
      cells: [
        { index: 0, status: 'ok', durationMs: 1 },
        { index: 1, status: 'error', ename: 'TypeError', evalue: nowMsg, traceback: runTraceback, durationMs: 1 },
      ],
      durationMs: 2,
      runtime: { kind: 'local' },
    }) as unknown as InstanceVerification['reproduced'];
  const verification = (outcome: 'crash-mismatch' | 'crash-reproduced') =>
    ({ instance: 'd', status: 'not-verified', reproduced: version(outcome) }) as unknown as InstanceVerification;

  it('matches either wording, records why, and runs the draft again; without the saved traceback it does not', async () => {
    const staging = await mkdtemp(path.join(dir, 'site-'));
    const instance = {
      id: 'd',
      status: 'draft',
      crash: { ename: 'TypeError', evalue: savedMsg, match: 'exact', cell: 1 },
      execution: { order: 'file' },
    } as unknown as Instance;
    // The run again: what the draft's instance.json now expects, against what the runtime said.
    const verify = async (at: string) => {
      const { crash } = JSON.parse(await readFile(path.join(at, 'instance.json'), 'utf8')) as Instance;
      const ok = crash.match === 'regex' && new RegExp(crash.evalue).test(nowMsg);
      return verification(ok ? 'crash-reproduced' : 'crash-mismatch');
    };
    const none = await matchNewerWording(staging, instance, verification('crash-mismatch'), verify);
    expect(none.verification.reproduced.outcome).toBe('crash-mismatch');
    const got = await matchNewerWording(staging, instance, verification('crash-mismatch'), verify, savedTraceback);
    expect(got.verification.reproduced.outcome).toBe('crash-reproduced');
    expect(new RegExp(got.instance.crash.evalue).test(savedMsg)).toBe(true);
    expect(got.instance.reproduction?.edits?.at(-1)).toMatchObject({ kind: 'match', from: savedMsg });
    expect(got.instance.reproduction?.edits?.at(-1)?.why).toMatch(
      /the same statement .*pandas's code raising TypeError/,
    );
  });
});

describe('matchNewerWording: a conversion that met another value of synthetic data', () => {
  const saved = "could not convert string to float: 'Semiurban'";
  const seen = "could not convert string to float: 'Urban'";
  const verification = (outcome: 'crash-mismatch' | 'crash-reproduced') =>
    ({
      instance: 'd',
      status: 'not-verified',
      reproduced: {
        version: 'reproduced',
        outcome,
        observed: { ename: 'ValueError', evalue: seen, cell: 3 },
        cells: [{ index: 3, status: 'error', ename: 'ValueError', evalue: seen, traceback: [], durationMs: 1 }],
        durationMs: 1,
        runtime: { kind: 'local' },
      },
    }) as unknown as InstanceVerification;
  const instance = (synthetic: boolean) =>
    ({
      id: 'd',
      status: 'draft',
      crash: { ename: 'ValueError', evalue: saved, match: 'exact', cell: 3 },
      execution: { order: 'file' },
      ...(synthetic ? { data: { synthetic: { reason: 'gone', files: ['data/t.csv'], derived: [] } } } : {}),
    }) as unknown as Instance;
  const verify = async (at: string) => {
    const { crash } = JSON.parse(await readFile(path.join(at, 'instance.json'), 'utf8')) as Instance;
    return verification(
      crash.match === 'regex' && new RegExp(crash.evalue).test(seen) ? 'crash-reproduced' : 'crash-mismatch',
    );
  };

  it('matches any quoted value when the data is synthetic, and records why; not on the real data', async () => {
    const got = await matchNewerWording(
      await mkdtemp(path.join(dir, 'value-')),
      instance(true),
      verification('crash-mismatch'),
      verify,
    );
    expect(got.verification.reproduced.outcome).toBe('crash-reproduced');
    expect(got.instance.reproduction?.edits?.at(-1)?.why).toMatch(
      /the data is synthetic and the conversion met another of its values/,
    );
    const real = await matchNewerWording(
      await mkdtemp(path.join(dir, 'value-')),
      instance(false),
      verification('crash-mismatch'),
      verify,
    );
    expect(real.verification.reproduced.outcome).toBe('crash-mismatch');
  });
});
