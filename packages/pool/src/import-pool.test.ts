import { mkdtemp, readdir, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readJsonlAll, type CrashRecord } from '@junobench/core';
import { defaultRejectsPath, importPool, readPoolRecords, type ImportFormat, type RejectedRow } from './import-pool.js';
import { EMPIRICAL_COLUMNS, BENCHMARK_COLUMNS } from './sheet-formats.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'pool-import-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const q = (s: string) => `"${s.replace(/"/g, '""')}"`;
const TB = String.raw`['\x1b[0;31mKeyError\x1b[0m   Traceback (most recent call last)', "\x1b[0;31mKeyError\x1b[0m: 'a'"]`;

function empiricalCsv(rows: Array<Partial<Record<string, string>>>): string {
  const lines = [EMPIRICAL_COLUMNS.join(',')];
  for (const r of rows) {
    const full: Record<string, string> = {
      fname: 'nb.ipynb',
      ename: 'keyerror',
      evalue: "'a'",
      traceback: TB,
      nb_source: '1',
      'Libs-cause': 'pandas',
      label_if_ML_bug: 'ML/data science library related (ML imports, error raised by library)',
      ...r,
    };
    lines.push(EMPIRICAL_COLUMNS.map((c) => q(full[c] ?? '')).join(','));
  }
  return `${lines.join('\n')}\n`;
}

async function write(name: string, content: string | Buffer): Promise<string> {
  const file = path.join(dir, name);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, content);
  return file;
}

function notebook(
  outputs: Array<{ ename: string; evalue: string; traceback: string[] }>,
  source = 'import pandas as pd\nimport numpy as np',
): string {
  return JSON.stringify({
    nbformat: 4,
    nbformat_minor: 5,
    metadata: {},
    cells: [
      { cell_type: 'markdown', id: 'm1', metadata: {}, source: '# title' },
      { cell_type: 'code', id: 'c1', execution_count: 1, metadata: {}, outputs: [], source },
      {
        cell_type: 'code',
        id: 'c2',
        execution_count: 4,
        metadata: {},
        source: "df['a']",
        outputs: outputs.map((o) => ({ output_type: 'error', ...o })),
      },
    ],
  });
}

/** One row of a benchmark description sheet (as benchmark_desc.xlsx has them). */
const TORCH_4_ROW: Readonly<Record<string, string | null>> = {
  nb_name: 'torch_4',
  eid: 'b-1',
  ename: 'runtimeerror',
  evalue: 'mat1 and mat2 shapes cannot be multiplied',
  traceback: "['RuntimeError: mat1 and mat2 shapes cannot be multiplied']",
  label_root_cause: 'API misuse',
  NotebookUrl: 'https://www.kaggle.com/code/u/nb',
};

describe('importPool', () => {
  it('imports good rows, sends bad ones to the rejects file with row and reason, and reports counts', async () => {
    const input = await write(
      'sheet.csv',
      empiricalCsv([
        { eid: 'a1' },
        { eid: 'a2', traceback: "['unclosed', 3]" },
        { eid: 'a3', nb_source: 'kaggle-ish' },
        { eid: 'a4', ename: '' },
        { eid: 'a5', nb_source: '2', 'Libs-cause': 'sklearn' },
      ]),
    );
    const output = path.join(dir, 'out', 'pool.jsonl');
    const report = await importPool([input], { output });
    expect(report).toEqual({
      inputs: [{ input, format: 'empirical', container: 'csv', read: 5, imported: 2, rejected: 3, warnings: [] }],
      total: { read: 5, imported: 2, rejected: 3, warnings: 0 },
      output,
      rejects: path.join(dir, 'out', 'pool.rejects.jsonl'),
    });
    const records = await readJsonlAll<CrashRecord>(output);
    expect(records.map((r) => [r.id, r.source, r.labels?.library, r.traceback])).toEqual([
      ['a1', 'kaggle', 'pandas', ['KeyError   Traceback (most recent call last)', "KeyError: 'a'"]],
      ['a5', 'github', 'sklearn', ['KeyError   Traceback (most recent call last)', "KeyError: 'a'"]],
    ]);
    const rejects = await readJsonlAll<RejectedRow>(report.rejects);
    expect(rejects.map((r) => [r.row, r.field, r.reason.split(':')[0]])).toEqual([
      [3, 'traceback', 'unparseable traceback'],
      [4, 'nb_source', 'wrong type'],
      [5, 'ename', 'missing value'],
    ]);
    // Nothing is lost: the rejected row keeps every original column.
    expect(rejects[0]!.file).toBe(input);
    expect(rejects[0]!.columns).toMatchObject({
      eid: 'a2',
      traceback: "['unclosed', 3]",
      fname: 'nb.ipynb',
      cluster_id: null,
    });
  });

  it('writes byte-identical outputs for the same input', async () => {
    const input = await write('sheet.csv', empiricalCsv([{ eid: 'x' }, { eid: 'y', evalue: 'other' }]));
    await importPool([input], { output: path.join(dir, 'a.jsonl') });
    await importPool([input], { output: path.join(dir, 'b.jsonl') });
    expect(await readFile(path.join(dir, 'a.jsonl'), 'utf8')).toBe(await readFile(path.join(dir, 'b.jsonl'), 'utf8'));
  });

  it('reads an .xlsx benchmark sheet made with exceljs', async () => {
    const file = path.join(dir, 'bench.xlsx');
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('Sheet1');
    ws.addRow([...BENCHMARK_COLUMNS]);
    ws.addRow(BENCHMARK_COLUMNS.map((c) => TORCH_4_ROW[c] ?? null));
    await wb.xlsx.writeFile(file);
    const { records, rejects } = await readPoolRecords(file);
    expect(rejects).toEqual([]);
    expect(records).toEqual([
      expect.objectContaining({
        id: 'b-1',
        notebook: 'torch_4',
        source: 'kaggle',
        labels: { library: 'torch', rootCause: 'API misuse' },
      }),
    ]);
    expect(records[0]!.columns).toMatchObject({
      DatasetTitle_1: null,
      NotebookUrl: 'https://www.kaggle.com/code/u/nb',
    });
  });

  it('imports JSONL CrashRecords, rejecting invalid lines with their line number', async () => {
    const good: CrashRecord = {
      id: 'j1',
      notebook: 'n',
      source: 'local',
      ename: 'E',
      evalue: '',
      traceback: [],
      columns: {},
    };
    const input = await write(
      'pool.jsonl',
      `${JSON.stringify(good)}\n\n{not json\n${JSON.stringify({ ...good, id: 'j2', source: 'nowhere' })}\n`,
    );
    const { records, rejects } = await readPoolRecords(input);
    expect(records).toEqual([good]);
    expect(rejects.map((r) => [r.row, r.field, r.reason.slice(0, 30)])).toEqual([
      [3, undefined, 'invalid JSON: Expected propert'],
      [4, 'source', 'not a valid CrashRecord: sourc'],
    ]);
    expect(rejects[0]!.columns).toEqual({ line: '{not json' });
  });

  it('reads a sheet exported as JSON lines (benchmark_desc.jsonl) as that sheet, the same records as its .xlsx', async () => {
    const row: Record<string, string | null> = { ...TORCH_4_ROW, DatasetTitle_1: null };
    const xlsx = path.join(dir, 'bench.xlsx');
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('Sheet1');
    ws.addRow(Object.keys(row));
    ws.addRow(Object.values(row));
    await wb.xlsx.writeFile(xlsx);
    const fromXlsx = await readPoolRecords(xlsx);
    const jsonl = await write(
      'bench.jsonl',
      `${JSON.stringify(row)}\n${JSON.stringify({ ...row, eid: 'b-2', nb_name: '' })}\n`,
    );
    const { records, rejects } = await readPoolRecords(jsonl);
    expect(records).toEqual(fromXlsx.records);
    expect(records[0]).toMatchObject({
      id: 'b-1',
      notebook: 'torch_4',
      labels: { library: 'torch', rootCause: 'API misuse' },
    });
    // A row the sheet would reject is rejected with the sheet's reason and its line, not as a CrashRecord without an
    // id.
    expect(rejects.map((r) => [r.row, r.field])).toEqual([[2, 'nb_name']]);
    expect(rejects[0]!.reason).not.toMatch(/CrashRecord/);
    const report = await importPool([jsonl], { output: path.join(dir, 'out.jsonl') });
    expect(report.inputs[0]).toMatchObject({ format: 'benchmark', container: 'jsonl', imported: 1, rejected: 1 });
  });

  it('rejects a duplicate id from a later input', async () => {
    const a = await write('a.csv', empiricalCsv([{ eid: 'same' }]));
    const b = await write('b.csv', empiricalCsv([{ eid: 'same', fname: 'other.ipynb' }, { eid: 'new' }]));
    const report = await importPool([a, b], {
      output: path.join(dir, 'pool.jsonl'),
      rejects: path.join(dir, 'r.jsonl'),
    });
    expect(report.total).toEqual({ read: 3, imported: 2, rejected: 1, warnings: 0 });
    const [rej] = await readJsonlAll<RejectedRow>(path.join(dir, 'r.jsonl'));
    expect(rej).toMatchObject({
      file: b,
      row: 2,
      field: 'id',
      reason: 'duplicate id "same": already imported from a.csv row 2',
    });
  });

  it('imports every saved error output of a folder of notebooks', async () => {
    const folder = path.join(dir, 'nbs');
    await write(
      'nbs/b/second.ipynb',
      notebook([
        { ename: 'NameError', evalue: "name 'x' is not defined", traceback: ['\u001b[0;31mNameError\u001b[0m: x'] },
      ]),
    );
    await write(
      'nbs/a.ipynb',
      notebook([
        { ename: 'KeyError', evalue: "'a'", traceback: ['KeyError'] },
        { ename: 'KeyError', evalue: "'a'", traceback: ['KeyError again'] },
      ]),
    );
    await write('nbs/.ipynb_checkpoints/a-checkpoint.ipynb', notebook([{ ename: 'E', evalue: '', traceback: [] }]));
    await write('nbs/broken.ipynb', '{ not json');
    const report = await importPool([folder], { output: path.join(dir, 'pool.jsonl') });
    expect(report.inputs[0]).toMatchObject({
      format: 'notebooks',
      container: 'folder',
      read: 4,
      imported: 3,
      rejected: 1,
    });
    const records = await readJsonlAll<CrashRecord>(path.join(dir, 'pool.jsonl'));
    expect(
      records.map((r) => [r.notebook, r.ename, r.source, r.columns.cell, r.columns.execution_count, r.imports]),
    ).toEqual([
      ['a.ipynb', 'KeyError', 'local', 1, 4, ['numpy', 'pandas']],
      ['a.ipynb', 'KeyError', 'local', 1, 4, ['numpy', 'pandas']],
      ['b/second.ipynb', 'NameError', 'local', 1, 4, ['numpy', 'pandas']],
    ]);
    expect(new Set(records.map((r) => r.id)).size).toBe(3);
    expect(records[2]!.traceback).toEqual(['NameError: x']);
    const [rej] = await readJsonlAll<RejectedRow>(defaultRejectsPath(path.join(dir, 'pool.jsonl')));
    expect(rej).toMatchObject({
      file: path.join(folder, 'broken.ipynb'),
      row: 0,
      reason: expect.stringMatching(/not a notebook/),
    });
  });

  it.each([
    [
      'a missing required column',
      'missing.csv',
      'fname,eid,ename,evalue,nb_source\nnb,e,KeyError,x,1\n',
      'E_INPUT_COLUMNS',
      /missing required column "traceback" for an empirical-study sheet/,
    ],
    [
      'a misspelt required column',
      'typo.csv',
      'fname,eid,ename,evalue,trace_back,nb_source\nnb,e,KeyError,x,[],1\n',
      'E_INPUT_COLUMNS',
      /missing required column "traceback"/,
    ],
    ['unknown columns', 'other.csv', 'a,b\n1,2\n', 'E_INPUT_COLUMNS', /cannot tell the sheet's layout/],
    ['an empty file', 'empty.csv', '', 'E_INPUT_EMPTY', /empty/],
    ['an empty JSONL file', 'empty.jsonl', '', 'E_INPUT_EMPTY', /empty/],
    ['a non-xlsx file named .xlsx', 'fake.xlsx', 'fname,ename\n', 'E_INPUT_FORMAT', /is not an Excel workbook/],
  ])('stops at %s with a whole-file error and writes nothing', async (_name, file, content, code, message) => {
    const input = await write(file, content);
    const output = path.join(dir, 'out', 'pool.jsonl');
    const err = await importPool([input], { output }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code, exitCode: 2, location: { file: input } });
    expect((err as Error).message).toMatch(message);
    expect((err as { hint?: string }).hint).toBeTruthy();
    // Atomic: neither the pool nor the rejects file (nor a temporary) is left behind.
    expect(await readdir(path.join(dir, 'out')).catch(() => [])).toEqual([]);
  });

  it('suggests the column a misspelt header meant', async () => {
    const input = await write('typo.csv', 'fname,eid,ename,evalue,trace_back,nb_source\n');
    await expect(importPool([input], { output: path.join(dir, 'p.jsonl') })).rejects.toMatchObject({
      hint: expect.stringMatching(/rename "trace_back" for "traceback"/),
    });
  });

  it('refuses a missing input and an output that overwrites an input', async () => {
    await expect(importPool([path.join(dir, 'nope.csv')], { output: path.join(dir, 'p.jsonl') })).rejects.toMatchObject(
      {
        code: 'E_INPUT_NOT_FOUND',
      },
    );
    const input = await write('p.jsonl', '{}\n');
    await expect(importPool([input], { output: input })).rejects.toMatchObject({ code: 'E_USAGE' });
    await expect(importPool([], { output: path.join(dir, 'x.jsonl') })).rejects.toMatchObject({ code: 'E_USAGE' });
  });

  it('honours --format: csv content in a .txt file, and a layout forced by name', async () => {
    const input = await write('sheet.txt', empiricalCsv([{ eid: 'a1' }]));
    expect((await readPoolRecords(input, { format: 'csv' })).records).toHaveLength(1);
    await expect(readPoolRecords(input, { format: 'benchmark' })).rejects.toThrow(/missing required column "nb_name"/);
  });

  it('warns with the row when a CSV or JSONL input has bytes that are not UTF-8 (they are replaced, not dropped silently)', async () => {
    // A Latin-1 export: é is the single byte 0xE9 on the third data row.
    const csv = Buffer.from(
      empiricalCsv([
        { eid: 'a1' },
        { eid: 'a2' },
        { eid: 'a3', evalue: "'caf\u00e9'" },
        { eid: 'a4', evalue: 'real \uFFFD kept' },
      ]),
      'latin1',
    );
    const input = await write(
      'latin1.csv',
      Buffer.concat([
        csv.subarray(0, csv.indexOf('real')),
        Buffer.from('real \uFFFD kept'),
        csv.subarray(csv.indexOf('real') + 6),
      ]),
    );
    const report = await importPool([input], { output: path.join(dir, 'p.jsonl') });
    expect(report.inputs[0]!.imported).toBe(4);
    expect(report.inputs[0]!.warnings).toEqual([
      { file: input, row: 4, message: expect.stringMatching(/not valid UTF-8.*replaced by U\+FFFD/) },
    ]);

    const good: CrashRecord = {
      id: 'j1',
      notebook: 'n',
      source: 'local',
      ename: 'E',
      evalue: 'ok',
      traceback: [],
      columns: {},
    };
    const jsonl = await write(
      'pool.jsonl',
      Buffer.concat([
        Buffer.from(`${JSON.stringify(good)}\n`),
        Buffer.from(`${JSON.stringify({ ...good, id: 'j2', evalue: 'caf\u00e9' })}\n`, 'latin1'),
      ]),
    );
    const { records, warnings } = await readPoolRecords(jsonl);
    expect(records).toHaveLength(2);
    expect(warnings).toEqual([{ file: jsonl, row: 2, message: expect.stringMatching(/not valid UTF-8/) }]);
  });

  it('keeps a bounded part of an absurdly long traceback cell, with a marker and a warning naming the row', async () => {
    const frame = String.raw`\x1b[0;32m  File "/opt/conda/lib/python3.7/site-packages/pandas/core/frame.py", line 2800, in __getitem__\x1b[0m`;
    const items = Array.from({ length: 40_000 }, (_, i) => `'${frame} ${i}'`);
    const huge = `['Traceback (most recent call last)', ${items.join(', ')}, "KeyError: 'price'"]`;
    expect(huge.length).toBeGreaterThan(4_000_000);
    const input = await write('huge.csv', empiricalCsv([{ eid: 'ok' }, { eid: 'huge', traceback: huge }]));
    const report = await importPool([input], { output: path.join(dir, 'p.jsonl') });
    expect(report.inputs[0]).toMatchObject({ imported: 2, rejected: 0 });
    const [, rec] = await readJsonlAll<CrashRecord>(path.join(dir, 'p.jsonl'));
    expect(rec!.traceback[0]).toBe('Traceback (most recent call last)');
    expect(rec!.traceback.at(-1)).toBe("KeyError: 'price'");
    expect(rec!.traceback.some((l) => /^… \[junobench: [\d,]+ traceback lines \(.*\) left out here\] …$/.test(l))).toBe(
      true,
    );
    expect(rec!.traceback.join('\n').length).toBeLessThan(1.1 * 1024 * 1024);
    // The verbatim cell is bounded the same way.
    expect(String(rec!.columns.traceback).length).toBeLessThan(1.1 * 1024 * 1024);
    expect(String(rec!.columns.traceback)).toMatch(/characters of this cell left out/);
    expect(report.inputs[0]!.warnings.filter((w) => w.row === 3).map((w) => w.message)).toEqual([
      expect.stringMatching(
        /^traceback too long \(40,002 lines, [\d,]+ characters\): kept [\d,]+ lines from its start and end/,
      ),
      expect.stringMatching(/^cell traceback \([\d,]+ characters\) too long/),
    ]);
  }, 120_000);

  it('reports progress', async () => {
    const rows = Array.from({ length: 2500 }, (_, i) => ({ eid: `p${i}` }));
    const input = await write('big.csv', empiricalCsv(rows));
    const events: number[] = [];
    await importPool([input], { output: path.join(dir, 'p.jsonl'), onProgress: (e) => events.push(e.done) });
    expect(events).toEqual([1000, 2000]);
  });
});

// A file read in another format than its own used to give an empty pool with
// every row rejected (exit 0), or a CSV quoting error about a JSONL file.
describe('importPool on a file read in the wrong format', () => {
  const good: CrashRecord = {
    id: 'j1',
    notebook: 'n',
    source: 'local',
    ename: 'E',
    evalue: '',
    traceback: [],
    columns: {},
  };

  async function workbook(name: string): Promise<string> {
    const file = path.join(dir, name);
    const wb = new ExcelJS.Workbook();
    wb.addWorksheet('data').addRow(EMPIRICAL_COLUMNS as unknown as string[]);
    await wb.xlsx.writeFile(file);
    return file;
  }

  const cases: [string, () => Promise<string>, ImportFormat, Record<string, unknown>][] = [
    [
      'a CSV sheet with --format jsonl',
      () => write('sheet.csv', empiricalCsv([{ eid: 'a1' }, { eid: 'a2' }])),
      'jsonl',
      {
        code: 'E_INPUT_FORMAT',
        exitCode: 2,
        location: { line: 1 },
        message: expect.stringMatching(
          /^no line is JSON, so it is not JSONL \(read as JSONL because of --format jsonl\): Unexpected token/,
        ),
        hint: 'it looks like a CSV sheet (its first line has commas): pass --format csv, or leave --format out to choose by extension; nothing was written',
      },
    ],
    [
      'a CSV sheet named .jsonl',
      () => write('sheet.jsonl', empiricalCsv([{ eid: 'a1' }])),
      'auto',
      {
        code: 'E_INPUT_FORMAT',
        message: expect.stringContaining('read as JSONL because of its .jsonl extension'),
        hint: expect.stringMatching(
          /^it looks like a CSV sheet .*: pass --format csv, or name the file for its format/,
        ),
      },
    ],
    [
      'a tab-separated sheet with --format jsonl',
      () => write('sheet.tsv', 'fname\teid\tename\nnb.ipynb\te1\tKeyError\n'),
      'jsonl',
      {
        code: 'E_INPUT_FORMAT',
        hint: expect.stringMatching(/^it looks like a CSV sheet \(its first line has tabs\): pass --format csv/),
      },
    ],
    [
      'an .xlsx workbook with --format jsonl',
      () => workbook('sheet.xlsx'),
      'jsonl',
      {
        code: 'E_INPUT_FORMAT',
        hint: expect.stringMatching(
          /^it is a zip archive \(an \.xlsx workbook\?\): pass --format empirical or --format benchmark/,
        ),
      },
    ],
    [
      'JSONL CrashRecords with --format csv',
      () => write('pool.jsonl', `${JSON.stringify(good)}\n`),
      'csv',
      {
        code: 'E_INPUT_FORMAT',
        location: { line: 1 },
        message: 'is JSON lines (a JSON object per line), not CSV text',
        hint: expect.stringMatching(/^pass --format jsonl/),
      },
    ],
    [
      'JSONL CrashRecords with --format empirical',
      () => write('pool.jsonl', `${JSON.stringify(good)}\n`),
      'empirical',
      { code: 'E_INPUT_FORMAT', message: 'is JSON lines (a JSON object per line), not CSV text' },
    ],
    [
      'a CSV sheet named .xlsx',
      () => write('sheet.xlsx', empiricalCsv([{ eid: 'a1' }])),
      'auto',
      {
        code: 'E_INPUT_FORMAT',
        message: expect.stringMatching(/^is not an Excel workbook/),
        hint: 'it looks like text: if it is CSV, rename it to .csv or pass --format csv',
      },
    ],
    [
      'a CSV sheet with --format notebooks',
      () => write('sheet.csv', empiricalCsv([{ eid: 'a1' }])),
      'notebooks',
      {
        code: 'E_NOTEBOOK',
        message: expect.stringMatching(/not a notebook.*\(read as a notebook because of --format notebooks\)$/),
        hint: expect.stringMatching(/^for a sheet pass --format csv/),
      },
    ],
  ];

  it.each(cases)(
    '%s: a whole-input error naming the file and the fix, and no output written',
    async (_name, make, format, want) => {
      const input = await make();
      const output = path.join(dir, 'out', 'pool.jsonl');
      await mkdir(path.dirname(output));
      // An earlier pool at -o stays as it was.
      await writeFile(output, 'earlier\n');
      const failure = importPool([input], { format, output });
      await expect(failure).rejects.toMatchObject({
        ...want,
        location: { file: input, ...((want.location as object) ?? {}) },
      });
      expect(await readdir(path.dirname(output))).toEqual(['pool.jsonl']);
      expect(await readFile(output, 'utf8')).toBe('earlier\n');
    },
  );

  it('with several inputs, one in the wrong format fails the import and nothing is written', async () => {
    const pool = await write('good.jsonl', `${JSON.stringify(good)}\n`);
    const sheet = await write('sheet.csv', empiricalCsv([{ eid: 'a1' }]));
    const output = path.join(dir, 'out.jsonl');
    await expect(importPool([pool, sheet], { format: 'jsonl', output })).rejects.toMatchObject({
      code: 'E_INPUT_FORMAT',
      location: { file: sheet },
    });
    expect((await readdir(dir)).sort()).toEqual(['good.jsonl', 'sheet.csv']);
  });

  it.each([
    ['one line is JSON, the rest is not', `${JSON.stringify(good)}\nnot json\n`, 1, 1],
    ['every line is JSON but not a CrashRecord (the rejects say why)', '{"a":1}\n{"b":2}\n', 0, 2],
  ])('still imports a JSONL file where %s', async (_name, content, imported, rejected) => {
    const input = await write('mixed.jsonl', content);
    const report = await importPool([input], { output: path.join(dir, 'p.jsonl') });
    expect(report.total).toMatchObject({ imported, rejected });
  });
});
