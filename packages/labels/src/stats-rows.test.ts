import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { JunoError } from '@junobench/core';
import { readBenchmarkRows, statsRowsFromRecords } from './stats-rows.js';

const labels = { crashType: 'key error', rootCause: 'API misuse', pipelineStage: 'data preparation' };

describe('statsRowsFromRecords', () => {
  it.each([
    { library: 'tensorflow', expected: 'tensorflow/keras' },
    { library: 'keras', expected: 'tensorflow/keras' },
    { library: 'NBspecific', expected: 'None' },
    { library: 'pandas', expected: 'pandas' },
    { library: 'scikit-learn', expected: 'sklearn' },
  ])('canonicalises the library "$library" → "$expected"', ({ library, expected }) => {
    expect(statsRowsFromRecords([{ id: 'e1', notebook: 'x_1', labels: { ...labels, library } }], 'sheet.xlsx')).toEqual(
      [{ id: 'e1', library: expected, ...labels }],
    );
  });

  it('collects every missing or unknown label into one error naming the record and field', () => {
    let error: JunoError | undefined;
    try {
      statsRowsFromRecords(
        [
          { id: 'e1', notebook: 'pandas_1', labels: { ...labels, library: 'pandas', rootCause: 'API Misuse' } },
          { id: 'e2', labels: { ...labels, library: 'numpy', pipelineStage: '' } },
          { id: 'e3' },
        ],
        'sheet.csv',
      );
    } catch (e) {
      error = e as JunoError;
    }
    expect(error?.code).toBe('E_INPUT_ROW');
    expect(error?.location).toEqual({ file: 'sheet.csv', field: 'labels.rootCause' });
    expect(error?.message).toContain(
      'pandas_1 (e1), labels.rootCause: "API Misuse" is not a root cause; did you mean "API misuse"?',
    );
    expect(error?.message).toContain('e2, labels.pipelineStage: missing');
    expect(error?.message).toContain('e3, labels.library: missing');
  });

  it('an input with no records is an error', () => {
    expect(() => statsRowsFromRecords([], 'empty.csv')).toThrow(/no labelled records/);
  });
});

describe('readBenchmarkRows', () => {
  it('reads a schema-valid benchmark and rejects an invalid or empty one', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'labels-bench-'));
    const entry = {
      id: 'pandas_1',
      source: { platform: 'kaggle', datasets: [] },
      crash: { ename: 'KeyError', evalue: "'price'", match: 'exact', cell: 3 },
      labels: { library: 'pandas', ...labels },
      requires: ['pandas'],
      verification: { status: 'verified' },
    };
    const good = path.join(dir, 'benchmark.json');
    await writeFile(good, JSON.stringify({ name: 'junobench', instances: [entry] }));
    expect(await readBenchmarkRows(good)).toEqual([{ id: 'pandas_1', library: 'pandas', ...labels }]);

    const bad = path.join(dir, 'bad.json');
    await writeFile(
      bad,
      JSON.stringify({
        name: 'junobench',
        instances: [{ ...entry, labels: { ...entry.labels, rootCause: 'API Misuse' } }],
      }),
    );
    await expect(readBenchmarkRows(bad)).rejects.toMatchObject({ code: 'E_SCHEMA', location: { file: bad } });

    const empty = path.join(dir, 'empty.json');
    await writeFile(empty, JSON.stringify({ name: 'junobench', instances: [] }));
    await expect(readBenchmarkRows(empty)).rejects.toMatchObject({ code: 'E_INPUT_EMPTY' });
    await rm(dir, { recursive: true, force: true });
  });
});
