import { mkdtemp, truncate, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { JunoError, MAX_JSON_DEPTH } from '@junobench/core';
import { MAX_NOTEBOOK_BYTES, parseNotebook, readNotebook } from './read-notebook.js';

const valid = {
  nbformat: 4,
  nbformat_minor: 5,
  metadata: {},
  cells: [
    { cell_type: 'markdown', id: 'a1', metadata: {}, source: '# Title' },
    {
      cell_type: 'code',
      id: 'a2',
      metadata: {},
      source: ['import pandas as pd\n', 'df = pd.DataFrame()'],
      execution_count: 1,
      outputs: [],
    },
  ],
};

describe('parseNotebook', () => {
  it('accepts a valid nbformat 4.5 notebook', () => {
    expect(parseNotebook(JSON.stringify(valid)).cells).toHaveLength(2);
  });

  it('accepts nbformat 4.4 notebooks without cell ids (validated against their own minor)', () => {
    const nb = { ...valid, nbformat_minor: 4, cells: valid.cells.map(({ id: _id, ...c }) => c) };
    expect(parseNotebook(JSON.stringify(nb)).nbformat_minor).toBe(4);
  });

  it('refuses a 4.5 notebook whose cells lack ids, unless asked to add them as Jupyter does (cell-<index>, unique)', () => {
    const nb = {
      ...valid,
      cells: [{ ...valid.cells[0]!, id: 'cell-1' }, valid.cells[1]!, valid.cells[1]!].map(
        ({ id, ...rest }, i): Record<string, unknown> => (i === 0 ? { id, ...rest } : rest),
      ),
    };
    expect(() => parseNotebook(JSON.stringify(nb), 'n.ipynb')).toThrow(/must have required property 'id'/);
    const repairIds = { repaired: 0 };
    const fixed = parseNotebook(JSON.stringify(nb), 'n.ipynb', { repairIds });
    expect(fixed.cells.map((c) => c.id)).toEqual(['cell-1', 'cell-1-1', 'cell-2']);
    expect(repairIds.repaired).toBe(2);
    const intact = { repaired: 0 };
    parseNotebook(JSON.stringify(valid), 'v.ipynb', { repairIds: intact });
    expect(intact.repaired).toBe(0);
  });

  it.each([
    ['invalid JSON', '{"cells": [', /invalid JSON/],
    ['empty file', '', /empty/],
    [
      'nbformat 3',
      JSON.stringify({ nbformat: 3, nbformat_minor: 0, metadata: {}, worksheets: [] }),
      /nbformat 3.*only nbformat 4/,
    ],
    [
      'missing cells',
      JSON.stringify({ nbformat: 4, nbformat_minor: 5, metadata: {} }),
      /not a valid nbformat 4\.5 notebook.*cells/,
    ],
    ['a JSON array', '[]', /not an object/],
    [
      'a code cell without outputs',
      JSON.stringify({
        ...valid,
        cells: [{ cell_type: 'code', id: 'x', metadata: {}, source: '', execution_count: null }],
      }),
      /not a valid nbformat/,
    ],
  ])('rejects %s with a clear error', (_name, text, message) => {
    let err: unknown;
    try {
      parseNotebook(text, 'nb.ipynb');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(JunoError);
    expect((err as JunoError).code).toBe('E_NOTEBOOK');
    expect((err as JunoError).message).toMatch(message);
    expect((err as JunoError).location?.file).toBe('nb.ipynb');
  });

  it('suggests the conversion command for old notebooks', () => {
    expect(() => parseNotebook(JSON.stringify({ nbformat: 3, nbformat_minor: 0 }))).toThrow(JunoError);
    try {
      parseNotebook(JSON.stringify({ nbformat: 3, nbformat_minor: 0 }));
    } catch (e) {
      expect((e as JunoError).hint).toContain('jupyter nbconvert --to notebook --nbformat 4');
    }
  });

  it('refuses a notebook that is not valid UTF-8, naming the file and the line (bad input, not a kernel death)', async () => {
    const d = await mkdtemp(path.join(os.tmpdir(), 'jb-nb-'));
    const file = path.join(d, 'latin1.ipynb');
    const text = JSON.stringify(
      {
        ...valid,
        cells: [
          { cell_type: 'code', id: 'a2', metadata: {}, source: 'x = "caf\u00e9"', execution_count: 1, outputs: [] },
        ],
      },
      null,
      1,
    );
    // The same notebook saved as Latin-1: é is the single byte 0xE9.
    await writeFile(file, Buffer.from(text, 'latin1'));
    const err = await readNotebook(file).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(JunoError);
    expect(err).toMatchObject({ code: 'E_NOTEBOOK', exitCode: 2, location: { file } });
    const line = text.split('\n').findIndex((l) => l.includes('caf')) + 1;
    expect((err as JunoError).message).toMatch(
      new RegExp(`not valid UTF-8 \\(first invalid byte 0xe9 at line ${line}`),
    );
    expect((err as JunoError).hint).toMatch(/iconv|UTF-8/);
  });

  it('refuses a notebook too large to read whole, by its size, before reading it (exit 2, not an internal error)', async () => {
    const d = await mkdtemp(path.join(os.tmpdir(), 'jb-nb-'));
    const file = path.join(d, 'huge.ipynb');
    await writeFile(file, JSON.stringify(valid));
    await truncate(file, MAX_NOTEBOOK_BYTES + 1); // sparse: no disk used
    const err = await readNotebook(file).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code: 'E_NOTEBOOK', exitCode: 2, location: { file } });
    expect((err as JunoError).message).toBe(
      `the notebook is ${MAX_NOTEBOOK_BYTES + 1} bytes (256 MiB), more than the 256 MiB a notebook is read whole up to (its saved outputs, most likely)`,
    );
    expect((err as JunoError).hint).toMatch(/--clear-output/);
  });

  it('refuses a notebook nested deeper than MAX_JSON_DEPTH, naming where (every later reader would overflow its stack on it)', () => {
    // Written as text: JSON.stringify itself would overflow on it.
    const deep = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
    const text = JSON.stringify({ ...valid, metadata: { deep: 'DEEP' } }).replace('"DEEP"', deep);
    const err = (() => {
      try {
        parseNotebook(text, 'deep.ipynb');
      } catch (e) {
        return e;
      }
    })();
    expect(err).toMatchObject({ code: 'E_NOTEBOOK', exitCode: 2, location: { file: 'deep.ipynb' } });
    expect((err as JunoError).message).toBe(
      `nested ${MAX_JSON_DEPTH + 1} levels deep at metadata.deep.a.a.a.a.….a, more than the ${MAX_JSON_DEPTH} a notebook may nest`,
    );
  });

  it('reads from disk and reports a missing file', async () => {
    const d = await mkdtemp(path.join(os.tmpdir(), 'jb-nb-'));
    await writeFile(path.join(d, 'a.ipynb'), JSON.stringify(valid));
    expect((await readNotebook(path.join(d, 'a.ipynb'))).cells).toHaveLength(2);
    await expect(readNotebook(path.join(d, 'missing.ipynb'))).rejects.toMatchObject({ code: 'E_INPUT_NOT_FOUND' });
  });
});
