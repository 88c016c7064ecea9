import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Notebook } from '@junobench/notebook';
import { listNotebookFiles, notebookCrashRecords } from './notebook-records.js';
import { hashCrashId } from './sheet-formats.js';

const error = (ename: string, evalue: string) => ({
  output_type: 'error' as const,
  ename,
  evalue,
  traceback: [`\u001b[0;31m${ename}\u001b[0m: ${evalue}`],
});

const nb: Notebook = {
  nbformat: 4,
  nbformat_minor: 5,
  metadata: {},
  cells: [
    { cell_type: 'code', execution_count: 1, metadata: {}, source: 'import torch\nfrom sklearn.metrics import f1_score', outputs: [] },
    { cell_type: 'markdown', metadata: {}, source: 'text' },
    { cell_type: 'code', execution_count: 9, metadata: {}, source: 'x', outputs: [error('NameError', "name 'x' is not defined")] },
    { cell_type: 'code', execution_count: null, metadata: {}, source: 'x', outputs: [error('NameError', "name 'x' is not defined")] },
  ],
};

describe('notebookCrashRecords', () => {
  it('makes one local record per saved error, with its code cell and execution count', () => {
    const records = notebookCrashRecords(nb, 'dir/nb.ipynb');
    expect(records.map((r) => [r.notebook, r.source, r.ename, r.traceback, r.imports, r.columns])).toEqual([
      [
        'dir/nb.ipynb',
        'local',
        'NameError',
        ["NameError: name 'x' is not defined"],
        ['sklearn', 'torch'],
        { notebook: 'dir/nb.ipynb', cell: 1, execution_count: 9, ename: 'NameError', evalue: "name 'x' is not defined" },
      ],
      [
        'dir/nb.ipynb',
        'local',
        'NameError',
        ["NameError: name 'x' is not defined"],
        ['sklearn', 'torch'],
        { notebook: 'dir/nb.ipynb', cell: 2, execution_count: null, ename: 'NameError', evalue: "name 'x' is not defined" },
      ],
    ]);
  });

  it('ids are the hash of notebook, ename and evalue; a repeat in the same notebook is told apart by its cell', () => {
    const [a, b] = notebookCrashRecords(nb, 'nb.ipynb');
    expect(a!.id).toBe(hashCrashId('nb.ipynb', 'NameError', "name 'x' is not defined"));
    expect(b!.id).not.toBe(a!.id);
    expect(notebookCrashRecords(nb, 'nb.ipynb')[1]!.id).toBe(b!.id);
  });
});

describe('listNotebookFiles', () => {
  it('lists .ipynb files recursively in code-point order, skipping checkpoints', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'pool-nbs-'));
    try {
      for (const f of ['b.ipynb', 'A.ipynb', 'sub/c.IPYNB', 'sub/.ipynb_checkpoints/c-checkpoint.ipynb', 'notes.txt']) {
        await mkdir(path.dirname(path.join(dir, f)), { recursive: true });
        await writeFile(path.join(dir, f), '{}');
      }
      expect(await listNotebookFiles(dir)).toEqual(['A.ipynb', 'b.ipynb', 'sub/c.IPYNB']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
