import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Notebook } from '@junobench/notebook';
import { importPool } from './import-pool.js';
import { listNotebookFiles, notebookCrashRecords, readListedNotebook } from './notebook-records.js';
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
    {
      cell_type: 'code',
      execution_count: 1,
      metadata: {},
      source: 'import torch\nfrom sklearn.metrics import f1_score',
      outputs: [],
    },
    { cell_type: 'markdown', metadata: {}, source: 'text' },
    {
      cell_type: 'code',
      execution_count: 9,
      metadata: {},
      source: 'x',
      outputs: [error('NameError', "name 'x' is not defined")],
    },
    {
      cell_type: 'code',
      execution_count: null,
      metadata: {},
      source: 'x',
      outputs: [error('NameError', "name 'x' is not defined")],
    },
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
        {
          notebook: 'dir/nb.ipynb',
          cell: 1,
          execution_count: 9,
          ename: 'NameError',
          evalue: "name 'x' is not defined",
        },
      ],
      [
        'dir/nb.ipynb',
        'local',
        'NameError',
        ["NameError: name 'x' is not defined"],
        ['sklearn', 'torch'],
        {
          notebook: 'dir/nb.ipynb',
          cell: 2,
          execution_count: null,
          ename: 'NameError',
          evalue: "name 'x' is not defined",
        },
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
      const real = await realpath(dir);
      expect(await listNotebookFiles(dir)).toEqual([
        { rel: 'A.ipynb', abs: path.join(real, 'A.ipynb') },
        { rel: 'b.ipynb', abs: path.join(real, 'b.ipynb') },
        { rel: 'sub/c.IPYNB', abs: path.join(real, 'sub/c.IPYNB') },
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

// A folder of notebooks is untrusted, as an instance folder is: real links, a
// real FIFO, a file outside the folder that must never be read.
describe('a folder of notebooks with links and special files', () => {
  const SECRET = 'root:x:0:0:SECRET-OUTSIDE-THE-FOLDER';
  let base: string;
  let dir: string;
  beforeAll(async () => {
    base = await realpath(await mkdtemp(path.join(tmpdir(), 'pool-nblinks-')));
    dir = path.join(base, 'nbs');
    await mkdir(path.join(dir, 'sub'), { recursive: true });
    await mkdir(path.join(base, 'elsewhere'));
    await writeFile(path.join(base, 'passwd'), `${SECRET}\n`);
    // nbformat 4.4: cells need no ids.
    const file = JSON.stringify({ ...nb, nbformat_minor: 4 });
    await writeFile(path.join(base, 'elsewhere', 'hidden.ipynb'), file);
    await writeFile(path.join(dir, 'good.ipynb'), file);
    await symlink('good.ipynb', path.join(dir, 'alias.ipynb'));
    await symlink('../good.ipynb', path.join(dir, 'sub', 'up.ipynb'));
    await symlink('sub', path.join(dir, 'subdir-link'));
    await symlink(path.join(base, 'passwd'), path.join(dir, 'pw.ipynb'));
    await symlink('/dev/zero', path.join(dir, 'zero.ipynb'));
    await symlink('/nonexistent/x', path.join(dir, 'dangling.ipynb'));
    await symlink('loop.ipynb', path.join(dir, 'loop.ipynb'));
    await symlink('..', path.join(dir, 'sub', 'back-up'));
    await symlink(path.join(base, 'elsewhere'), path.join(dir, 'outside-dir'));
    await symlink('/nonexistent/data.csv', path.join(dir, 'data.csv'));
    execFileSync('mkfifo', [path.join(dir, 'fifo.ipynb')]);
    await writeFile(path.join(dir, 'text.ipynb'), `${SECRET} and more text\n`);
  });
  afterAll(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it('lists links inside as their targets and refuses, by name, links leaving the folder, dangling links, loops and FIFOs', async () => {
    const listed = await listNotebookFiles(dir);
    expect(listed).toEqual([
      { rel: 'alias.ipynb', abs: path.join(dir, 'good.ipynb') },
      { rel: 'dangling.ipynb', refused: 'is a symbolic link that does not resolve (ENOENT): not read' },
      { rel: 'fifo.ipynb', refused: 'is a FIFO, socket or device, not a regular file: not read' },
      { rel: 'good.ipynb', abs: path.join(dir, 'good.ipynb') },
      { rel: 'loop.ipynb', refused: 'is a symbolic link that loops (ELOOP): not read' },
      { rel: 'outside-dir', refused: 'is a symbolic link to a folder outside the folder imported: not read' },
      { rel: 'pw.ipynb', refused: 'is a symbolic link to a path outside the folder imported: not read' },
      { rel: 'sub/back-up', refused: 'is a symbolic link that loops back to a folder above it: not read' },
      { rel: 'sub/up.ipynb', abs: path.join(dir, 'good.ipynb') },
      { rel: 'subdir-link/back-up', refused: 'is a symbolic link that loops back to a folder above it: not read' },
      { rel: 'subdir-link/up.ipynb', abs: path.join(dir, 'good.ipynb') },
      { rel: 'text.ipynb', abs: path.join(dir, 'text.ipynb') },
      { rel: 'zero.ipynb', refused: 'is a symbolic link to a path outside the folder imported: not read' },
    ]);
  });

  it('pool import rejects each refused entry by name, never reading it or quoting a file beyond a short excerpt', async () => {
    const output = path.join(base, 'pool.jsonl');
    const rejects = path.join(base, 'pool.rejects.jsonl');
    const report = await importPool([dir], { output, rejects });
    const rows = (await readFile(rejects, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { file: string; reason: string; columns: { notebook: string } });
    expect(rows.map((r) => [r.columns.notebook, r.file])).toEqual(
      [
        'dangling.ipynb',
        'fifo.ipynb',
        'loop.ipynb',
        'outside-dir',
        'pw.ipynb',
        'sub/back-up',
        'subdir-link/back-up',
        'text.ipynb',
        'zero.ipynb',
      ].map((n) => [n, path.join(dir, n)]),
    );
    expect(rows.find((r) => r.columns.notebook === 'text.ipynb')!.reason).toBe(
      'not a notebook: invalid JSON (an unexpected character: the text is not JSON)',
    );
    const records = (await readFile(output, 'utf8')).trim().split('\n');
    // good, alias, sub/up and subdir-link/up: two saved errors each; nothing from outside the folder.
    expect(records).toHaveLength(8);
    expect(report.total).toMatchObject({ read: 17, imported: 8, rejected: 9 });
    expect(`${await readFile(output, 'utf8')}${await readFile(rejects, 'utf8')}`).not.toMatch(/SECRET|root:x|hidden/);
  });
});

describe('readListedNotebook', () => {
  it('keeps at most a short quote of a file in a reason', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'pool-nbreason-'));
    try {
      const long = path.join(dir, 'long.ipynb');
      await writeFile(long, JSON.stringify({ nbformat: 'x'.repeat(100_000), cells: [] }));
      const read = await readListedNotebook({ rel: 'long.ipynb', abs: long });
      expect('reason' in read && read.reason).toMatch(
        /^unsupported notebook format \(nbformat x{20,}.*… \(\d+ characters\)$/,
      );
      expect('reason' in read && read.reason.length).toBeLessThan(300);
      expect(await readListedNotebook({ rel: 'x.ipynb', refused: 'is a FIFO' })).toEqual({ reason: 'is a FIFO' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
