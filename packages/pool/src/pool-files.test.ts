import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readJsonlAll, type CrashRecord } from '@junobench/core';
import { libcausePool } from './libcause-pool.js';
import { resamplePool } from './resample-pool.js';
import { resampleRecords } from './resample-records.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'pool-files-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const rec = (id: string, library: string | undefined, ename: string, evalue: string, line: string): CrashRecord => ({
  id,
  notebook: `${id}.ipynb`,
  source: 'kaggle',
  ename,
  evalue,
  traceback: [`Cell In[1], line 1\n----> 1 ${line}\n`, `${ename}: ${evalue}`],
  columns: {},
  ...(library ? { labels: { library } } : {}),
});

const pool = [
  rec('a', 'None', 'NameError', "name 'df' is not defined", "df['x']"),
  rec(
    'b',
    'numpy',
    'ValueError',
    'operands could not be broadcast together with shapes (2,) (3,)',
    'c = np.asarray(a) + b',
  ),
  rec(
    'c',
    'seaborn',
    'TypeError',
    'barplot() takes from 0 to 1 positional arguments but 2 were given',
    'sns.barplot(x, y)',
  ),
  rec(
    'd',
    'pandas',
    'ValueError',
    'operands could not be broadcast together with shapes (2,) (3,)',
    'c = np.asarray(a) + b',
  ),
  rec('e', undefined, 'AttributeError', "'DataFrame' object has no attribute 'ix'", 'df.ix[0]'),
];

async function writePool(records: CrashRecord[]): Promise<string> {
  const file = path.join(dir, 'pool.jsonl');
  await writeFile(file, records.map((r) => JSON.stringify(r)).join('\n'));
  return file;
}

describe('libcausePool', () => {
  it('sets predictedLibrary on every record and evaluates against the labels', async () => {
    const input = await writePool(pool);
    const result = await libcausePool({
      input,
      output: path.join(dir, 'out.jsonl'),
      eval: true,
      report: path.join(dir, 'report.json'),
    });
    const out = await readJsonlAll<CrashRecord>(path.join(dir, 'out.jsonl'));
    expect(out.map((r) => r.predictedLibrary)).toEqual(['None', 'numpy', 'seaborn', 'numpy', 'pandas']);
    expect(result).toMatchObject({
      records: 5,
      predicted: { None: 1, numpy: 2, pandas: 1, seaborn: 1 },
      evaluation: { total: 4, hits: 3, accuracy: 0.75 },
    });
    expect(result.baseline).toMatchObject({ total: 4 });
    const report = JSON.parse(await readFile(path.join(dir, 'report.json'), 'utf8'));
    expect(report).toEqual({
      records: 5,
      predicted: result.predicted,
      evaluation: result.evaluation,
      baseline: result.baseline,
    });
  });

  it('does not evaluate unless asked', async () => {
    const input = await writePool(pool);
    const result = await libcausePool({ input, output: path.join(dir, 'out.jsonl') });
    expect(result.evaluation).toBeUndefined();
  });
});

describe('resamplePool', () => {
  it('writes the same sample as resampleRecords, whatever the file order', async () => {
    const withPrediction = pool.map((r) => ({ ...r, predictedLibrary: 'pandas' }));
    const input = await writePool([...withPrediction].reverse());
    const result = await resamplePool({
      input,
      output: path.join(dir, 'sample.jsonl'),
      perLibrary: 2,
      seed: 42,
      report: path.join(dir, 'r.json'),
    });
    const expected = resampleRecords(withPrediction, { perLibrary: 2, seed: 42 });
    expect((await readJsonlAll<CrashRecord>(path.join(dir, 'sample.jsonl'))).map((r) => r.id)).toEqual(
      expected.selected.map((r) => r.id),
    );
    expect(JSON.parse(await readFile(path.join(dir, 'r.json'), 'utf8'))).toEqual(expected.report);
    expect(result.shortfalls.map((s) => s.library)).toEqual(['None', 'numpy', 'seaborn']);
  });
});
