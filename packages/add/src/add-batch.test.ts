import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { JunoError, type CrashRecord, type TriageEntry } from '@junobench/core';
import { planFunnel, planPoolItems, planRecordSource, runAddBatch, type BatchItem } from './add-batch.js';

const record = (id: string, url?: string): CrashRecord => ({
  id,
  notebook: `${id}.ipynb`,
  source: 'kaggle',
  ...(url ? { url } : {}),
  ename: 'KeyError',
  evalue: "'x'",
  traceback: [],
  columns: {},
});

describe('planRecordSource', () => {
  it.each([
    [
      'https://www.kaggle.com/code/alice/titanic-crash',
      { platform: 'kaggle', ref: 'https://www.kaggle.com/code/alice/titanic-crash' },
    ],
    [
      'https://github.com/o/r/blob/main/a.ipynb',
      { platform: 'github', ref: 'https://github.com/o/r/blob/main/a.ipynb' },
    ],
    ['https://example.org/a.ipynb', { unavailable: 'no collector for example.org (Kaggle and GitHub notebooks only)' }],
    [undefined, { unavailable: 'the record has no notebook URL' }],
  ])('%s', (url, want) => {
    expect(planRecordSource(record('r', url))).toEqual(want);
  });
});

describe('runAddBatch', () => {
  it('reports each item, goes on after a refused one, and resumes without redoing finished items', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'jb-batch-'));
    const reportFile = path.join(dir, 'triage.json');
    const items: BatchItem[] = planPoolItems([record('a'), record('b'), record('c')]);
    const calls: string[] = [];
    // First run: a drafted, b refused, then the run is interrupted while c is being added.
    let interrupted!: () => void;
    const stopped = new Promise<void>((resolve) => (interrupted = resolve));
    void runAddBatch(items, {
      inputs: ['sample.jsonl'],
      reportFile,
      addOne: async (item) => {
        calls.push(item.key);
        if (item.key === 'record:a')
          return { key: item.key, label: item.label, status: 'drafted', id: 'pandas_1', reproduced: true };
        if (item.key === 'record:b') throw new JunoError('E_INPUT_EMPTY', 'no crash');
        interrupted();
        return new Promise<TriageEntry>(() => undefined);
      },
    });
    await stopped;
    const after1 = JSON.parse(await readFile(reportFile, 'utf8'));
    expect(after1.entries.map((e: TriageEntry) => [e.key, e.status])).toEqual([
      ['record:a', 'drafted'],
      ['record:b', 'refused'],
    ]);
    const again: string[] = [];
    const report = await runAddBatch(items, {
      inputs: ['sample.jsonl'],
      reportFile,
      addOne: async (item) => {
        again.push(item.key);
        return {
          key: item.key,
          label: item.label,
          status: 'drafted',
          id: 'pandas_2',
          reproduced: false,
          cause: 'needs-data',
        };
      },
    });
    expect(again).toEqual(['record:c']);
    expect(report.funnel).toEqual({
      records: 3,
      notebooks: 3,
      drafts: 2,
      reproduced: 1,
      byCause: { 'needs-data': 1 },
      unavailable: 0,
      refused: 1,
      failed: 0,
    });
  });

  it('counts unavailable records out of the notebooks', () => {
    const f = planFunnel([
      { key: 'a', label: 'a', status: 'unavailable', reason: '404' },
      { key: 'b', label: 'b', status: 'drafted', reproduced: true },
    ]);
    expect([f.records, f.notebooks, f.drafts, f.reproduced, f.unavailable]).toEqual([2, 1, 1, 1, 1]);
  });
});
