import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { openZip, readZipEntries, readZipEntryBuffer } from '@junobench/archive';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeZip, type FixtureEntry } from '../packages/archive/test-helpers/archive-fixtures.js';
import { runJunobench } from './run-cli.js';

// `junobench pool import` on inputs that are not what they seem: a workbook
// whose zip says one thing to the checks and another to exceljs, and files
// read in another format than their own. The real binary, files in a temp folder.

const BENCHMARK_HEADER = [
  'nb_name',
  'eid',
  'ename',
  'evalue',
  'traceback',
  'crash_type',
  'root_cause',
  'ML_pipeline_stage',
  'bug_type',
];
const TRACEBACK = String.raw`['Cell In[3], line 1\n----> 1 df["price"]\n', "KeyError: 'price'"]`;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'pool-hostile-e2e-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The files of a zip as its central directory lists them, inflated. */
async function centralEntries(file: string): Promise<FixtureEntry[]> {
  const zip = await openZip(file);
  try {
    const out: FixtureEntry[] = [];
    for (const { entry, raw } of await readZipEntries(file, zip)) {
      if (entry.type === 'file') out.push({ path: entry.path, content: await readZipEntryBuffer(zip, raw) });
    }
    return out;
  } finally {
    zip.close();
  }
}

async function benchmarkWorkbook(file: string, eid: string): Promise<void> {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Sheet1');
  ws.addRow(BENCHMARK_HEADER);
  ws.addRow([
    'pandas_1',
    eid,
    'keyerror',
    "'price'",
    TRACEBACK,
    'API misuse',
    'invalid key',
    'data preparation',
    'ML bug',
  ]);
  await wb.xlsx.writeFile(file);
}

const lines = async (file: string) => (await readFile(file, 'utf8')).split('\n').filter(Boolean);

describe('junobench pool import on hostile inputs (end to end)', () => {
  it('imports a workbook as its checked central directory says, not the sheet hidden in its local entries', async () => {
    const genuineFile = path.join(dir, 'genuine.xlsx');
    const hiddenFile = path.join(dir, 'hidden-source.xlsx');
    await benchmarkWorkbook(genuineFile, 'checked-1');
    await benchmarkWorkbook(hiddenFile, 'unchecked-1');
    const genuine = await centralEntries(genuineFile);
    const hidden = (await centralEntries(hiddenFile)).find((e) => e.path === 'xl/sharedStrings.xml')!;
    // The hidden strings come first; a reader that walks local headers takes them.
    const crafted = path.join(dir, 'crafted.xlsx');
    await writeFile(crafted, makeZip([{ ...hidden, hidden: true }, ...genuine], { deflate: true }));

    const pool = path.join(dir, 'crafted-pool.jsonl');
    const r = await runJunobench(['pool', 'import', crafted, '-o', pool]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('(benchmark, xlsx): read 1, imported 1, rejected 0');
    const records = (await lines(pool)).map((l) => JSON.parse(l) as { id: string; columns: Record<string, unknown> });
    expect(records.map((x) => x.columns.eid)).toEqual(['checked-1']);
  });

  it('--format jsonl on a CSV sheet: exit 2 naming the file, the format and the fix; nothing written', async () => {
    const sheet = path.join(dir, 'sheet.csv');
    await writeFile(
      sheet,
      `${BENCHMARK_HEADER.join(',')}\npandas_1,e1,keyerror,'price',"${TRACEBACK.replace(/"/g, '""')}",API misuse,invalid key,data preparation,ML bug\n`,
    );
    const out = path.join(dir, 'wrong-format');
    const r = await runJunobench(['pool', 'import', sheet, '--format', 'jsonl', '-o', path.join(out, 'pool.jsonl')]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(
      `error [E_INPUT_FORMAT]: ${sheet}, line 1: no line is JSON, so it is not JSONL (read as JSONL because of --format jsonl): Unexpected token`,
    );
    expect(r.stderr).toContain(
      'hint: it looks like a CSV sheet (its first line has commas): pass --format csv, or leave --format out to choose by extension; nothing was written',
    );
    expect(await readdir(out).catch(() => [])).toEqual([]);

    // The fix the hint names works.
    const fixed = await runJunobench(['pool', 'import', sheet, '--format', 'csv', '-o', path.join(out, 'pool.jsonl')]);
    expect(fixed.code, fixed.stderr).toBe(0);
    expect(fixed.stdout).toContain('read 1, imported 1, rejected 0');
  });

  it('--format csv on a JSONL pool, and a CSV named .xlsx: exit 2 with the format to use, not garbage records', async () => {
    const pool = path.join(dir, 'records.jsonl');
    const record = {
      id: 'r1',
      notebook: 'n.ipynb',
      source: 'local',
      ename: 'KeyError',
      evalue: "'a'",
      traceback: [],
      columns: {},
    };
    await writeFile(pool, `${JSON.stringify(record)}\n`);
    const asCsv = await runJunobench(['pool', 'import', pool, '--format', 'csv', '-o', path.join(dir, 'as-csv.jsonl')]);
    expect(asCsv.code, asCsv.stderr).toBe(2);
    expect(asCsv.stderr).toContain(
      `error [E_INPUT_FORMAT]: ${pool}, line 1: is JSON lines (a JSON object per line), not CSV text`,
    );
    expect(asCsv.stderr).toContain('hint: pass --format jsonl');

    const fake = path.join(dir, 'text.xlsx');
    await writeFile(fake, `${BENCHMARK_HEADER.join(',')}\n`);
    const asXlsx = await runJunobench(['pool', 'import', fake, '-o', path.join(dir, 'as-xlsx.jsonl')]);
    expect(asXlsx.code, asXlsx.stderr).toBe(2);
    expect(asXlsx.stderr).toContain(`error [E_INPUT_FORMAT]: ${fake}: is not an Excel workbook`);
    expect(asXlsx.stderr).toContain('pass --format csv');
    const written = (await readdir(dir)).filter((n) => /^as-(csv|xlsx)/.test(n));
    expect(written).toEqual([]);
  });
});
