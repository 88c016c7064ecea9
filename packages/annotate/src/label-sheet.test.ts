import { readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { JunoError } from '@junobench/core';
import { LABELS, writeLabelProject, type LabelProject } from '../test-helpers/label-project.js';
import { importLabelSheet } from './import-label-sheet.js';
import { makeLabelSheet } from './make-label-sheet.js';
import { recordLabel } from './record-label.js';

// Workbooks and temporary folders on a shared, busy machine: generous limits, never timings.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

let p: LabelProject;
beforeEach(async () => {
  p = await writeLabelProject();
});
afterEach(async () => {
  await rm(p.root, { recursive: true, force: true });
});

const sheetOf = (annotator: string, out = path.join(p.root, `${annotator}.xlsx`)) =>
  makeLabelSheet({
    annotator,
    out,
    instancesDir: p.instancesDir,
    annotationsDir: p.annotationsDir,
    deprecatedFile: path.join(p.root, 'raw', 'deprecated.json'),
    reportDir: path.join(p.root, 'curated', 'report'),
  });

/** What an annotator does in Excel: set cells of the labels sheet by row and header. */
async function fill(file: string, edits: Record<string, Record<string, string>>): Promise<void> {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.readFile(file);
  const ws = wb.getWorksheet('labels')!;
  const headers = (ws.getRow(1).values as unknown[]).map((v) => String(v ?? ''));
  ws.eachRow((row, n) => {
    if (n === 1) return;
    const id = String(row.getCell(1).value);
    for (const [header, value] of Object.entries(edits[id] ?? {})) row.getCell(headers.indexOf(header)).value = value;
  });
  await wb.xlsx.writeFile(file);
}

const importAs = (annotator: string, file = path.join(p.root, `${annotator}.xlsx`)) =>
  importLabelSheet({ file, annotator, annotationsDir: p.annotationsDir, instancesDir: p.instancesDir });

describe('labels sheet', () => {
  it('lists the instances the annotator has not labelled, with suggestions marked, dropdowns and report links', async () => {
    const { plan } = await sheetOf('alice');
    expect(plan.rows.map((r) => r.id)).toEqual(['pandas_2', 'pandas_9']);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.readFile(path.join(p.root, 'alice.xlsx'));
    const ws = wb.getWorksheet('labels')!;
    expect(ws.getRow(1).values).toEqual([
      undefined,
      'instance',
      'status',
      'crash',
      'report page',
      'library cause',
      'crash type',
      'root cause',
      'pipeline stage',
      'diagnosis',
      'reviewed',
      'suggested by junobench',
    ]);
    const draft = ws.getRow(3);
    expect(draft.getCell(1).value).toBe('pandas_9');
    expect(draft.getCell(2).value).toBe('draft');
    // Control characters of the message are dropped: XML cannot hold them.
    expect(draft.getCell(3).value).toBe("KeyError: 'price'[0m (code cell 2 of reproduced.ipynb)");
    expect(draft.getCell(4).value).toEqual({
      text: 'pandas_9.html',
      hyperlink: 'curated/report/instances/pandas_9.html',
    });
    // Pre-filled suggestions, marked as such; the unsuggested stage is left empty; reviewed says no.
    expect(draft.getCell(5).value).toBe('pandas');
    expect(draft.getCell(5).font?.italic).toBe(true);
    expect(String(draft.getCell(5).note)).toMatch(/Suggested by junobench, not a label/);
    expect(draft.getCell(8).value).toBeNull();
    expect(draft.getCell(10).value).toBe('no');
    expect(draft.getCell(6).dataValidation).toMatchObject({ type: 'list', formulae: ['vocabularies!$B$2:$B$16'] });
    expect(draft.getCell(10).dataValidation).toMatchObject({ type: 'list', formulae: ['"yes,no"'] });
    expect(ws.getRow(2).getCell(4).value).toBe('no report page yet (junobench report)');
    const vocab = wb.getWorksheet('vocabularies')!;
    expect(vocab.getCell('B2').value).toBe('invalid argument');
    expect(wb.getWorksheet('about')!.getCell('B1').value).toBe('alice');
  });

  it('gives the same bytes for the same inputs', async () => {
    await sheetOf('carol', path.join(p.root, 'one.xlsx'));
    await sheetOf('carol', path.join(p.root, 'two.xlsx'));
    expect(await readFile(path.join(p.root, 'one.xlsx'))).toEqual(await readFile(path.join(p.root, 'two.xlsx')));
  });
});

describe('labels import', () => {
  it("imports the reviewed rows into the annotator's file only, and a second import changes nothing", async () => {
    await sheetOf('alice');
    const bob = await readFile(path.join(p.annotationsDir, 'bob.jsonl'), 'utf8');
    await fill(path.join(p.root, 'alice.xlsx'), {
      pandas_9: {
        'root cause': 'API misuse',
        'pipeline stage': 'data preparation',
        diagnosis: 'a typo',
        reviewed: 'yes',
      },
    });
    const first = await importAs('alice');
    expect(first.written).toBe(true);
    expect(first.update.added).toEqual(['pandas_9']);
    expect(first.notReviewed).toEqual([{ row: 2, id: 'pandas_2' }]);
    const lines = (await readFile(path.join(p.annotationsDir, 'alice.jsonl'), 'utf8')).trimEnd().split('\n');
    expect(JSON.parse(lines[1]!)).toEqual({
      instance: 'pandas_9',
      annotator: 'alice',
      ...LABELS,
      diagnosis: 'a typo',
    });
    const mtime = (await stat(path.join(p.annotationsDir, 'alice.jsonl'))).mtimeMs;
    const second = await importAs('alice');
    expect(second.written).toBe(false);
    expect(second.update.unchanged).toEqual(['pandas_9']);
    expect((await stat(path.join(p.annotationsDir, 'alice.jsonl'))).mtimeMs).toBe(mtime);
    expect(await readFile(path.join(p.annotationsDir, 'bob.jsonl'), 'utf8')).toBe(bob);
  });

  it('names the sheet, row and column of every problem, and writes nothing', async () => {
    await sheetOf('alice');
    await fill(path.join(p.root, 'alice.xlsx'), {
      pandas_2: { 'crash type': 'keyerror', reviewed: 'yes' },
      pandas_9: { 'root cause': 'API Misuse', reviewed: 'sure' },
    });
    const before = await readFile(path.join(p.annotationsDir, 'alice.jsonl'), 'utf8');
    const e = (await importAs('alice').then(
      () => undefined,
      (x: unknown) => x,
    )) as JunoError;
    expect(e).toBeInstanceOf(JunoError);
    expect(e.code).toBe('E_LABELS');
    expect(e.message).toContain('nothing was imported');
    expect(e.message).toContain('sheet "labels", row 2, column E (library cause): empty');
    expect(e.message).toContain(
      'sheet "labels", row 2, column F (crash type): "keyerror" is not a crash type; did you mean "key error"?',
    );
    expect(e.message).toContain('sheet "labels", row 3, column J (reviewed): "sure" is neither yes nor no');
    expect(await readFile(path.join(p.annotationsDir, 'alice.jsonl'), 'utf8')).toBe(before);
  });

  it("refuses another annotator's sheet", async () => {
    await sheetOf('alice');
    await expect(importAs('bob', path.join(p.root, 'alice.xlsx'))).rejects.toThrow(
      /this sheet was made for annotator "alice", not "bob"/,
    );
  });
});

describe('labels record', () => {
  it('adds, then changes one label, listing the change; the same labels again change nothing', async () => {
    const record = (crashType: string) =>
      recordLabel({
        annotationsDir: p.annotationsDir,
        instancesDir: p.instancesDir,
        instance: 'pandas_9',
        annotator: 'carol',
        labels: { ...LABELS, crashType },
      });
    expect((await record('key error')).update.added).toEqual(['pandas_9']);
    const changed = await record('value error');
    expect(changed.update.changes).toEqual([
      { instance: 'pandas_9', fields: [{ field: 'crashType', from: 'key error', to: 'value error' }] },
    ]);
    expect((await record('value error')).written).toBe(false);
    await expect(record('keyerror')).rejects.toThrow(/"keyerror" is not a crash type/);
  });
});
