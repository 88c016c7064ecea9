import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readJsonlAll, type CrashRecord } from '@junobench/core';
import { filterPool } from './filter-pool.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'pool-filter-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const rec = (id: string, source: CrashRecord['source']): CrashRecord => ({
  id,
  notebook: 'n',
  source,
  ename: 'E',
  evalue: '',
  traceback: [],
  columns: {},
});

describe('filterPool', () => {
  it('streams kept records and writes the funnel report with them', async () => {
    const input = path.join(dir, 'pool.jsonl');
    await writeFile(
      input,
      [rec('a', 'kaggle'), rec('b', 'github'), rec('c', 'kaggle')].map((r) => JSON.stringify(r)).join('\n'),
    );
    const criteria = path.join(dir, 'c.json');
    await writeFile(
      criteria,
      JSON.stringify({ steps: [{ name: 'kaggle', keep: { field: 'source', equals: 'kaggle' } }] }),
    );
    const result = await filterPool({
      input,
      criteria,
      output: path.join(dir, 'kept.jsonl'),
      report: path.join(dir, 'funnel.json'),
    });
    expect(result).toMatchObject({ input: 3, kept: 2 });
    expect((await readJsonlAll<CrashRecord>(path.join(dir, 'kept.jsonl'))).map((r) => r.id)).toEqual(['a', 'c']);
    expect(JSON.parse(await readFile(path.join(dir, 'funnel.json'), 'utf8'))).toEqual({
      input: 3,
      kept: 2,
      steps: [{ name: 'kaggle', action: 'keep', in: 3, kept: 2, removed: 1 }],
    });
  });

  it('refuses a criteria file with a typo, naming the file and the step, and writes nothing', async () => {
    const input = path.join(dir, 'pool.jsonl');
    await writeFile(input, JSON.stringify(rec('a', 'kaggle')));
    const criteria = path.join(dir, 'typo.json');
    await writeFile(
      criteria,
      JSON.stringify({ steps: [{ name: 'x', keep: { any: [{ field: 'ename', equal: 'E' }] } }] }),
    );
    const err = await filterPool({ input, criteria, output: path.join(dir, 'out', 'kept.jsonl') }).catch(
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code: 'E_CRITERIA', location: { file: criteria, field: 'steps[0].keep.any[0]' } });
    expect((err as Error).message).toBe('steps[0].keep.any[0]: unknown predicate "equal" — did you mean "equals"?');
    expect(await readdir(dir)).toEqual(['pool.jsonl', 'typo.json']);
  });

  it('refuses criteria that are not JSON', async () => {
    const criteria = path.join(dir, 'bad.json');
    await writeFile(criteria, '{ steps: ');
    await expect(filterPool({ input: criteria, criteria, output: path.join(dir, 'o.jsonl') })).rejects.toMatchObject({
      code: 'E_CRITERIA',
      location: { file: criteria },
    });
  });

  it('stops at an invalid record in the pool, naming its line, and leaves no output', async () => {
    const input = path.join(dir, 'pool.jsonl');
    await writeFile(input, `${JSON.stringify(rec('a', 'kaggle'))}\n${JSON.stringify({ id: 'b' })}\n`);
    const output = path.join(dir, 'kept.jsonl');
    await expect(
      filterPool({ input, criteria: { steps: [{ name: 'all', keep: { field: 'id', exists: true } }] }, output }),
    ).rejects.toMatchObject({
      code: 'E_SCHEMA',
      location: { file: input, line: 2 },
    });
    expect(await readdir(dir)).toEqual(['pool.jsonl']);
  });
});
