import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JunoError } from '@junobench/core';
import { filterPool } from './filter-pool.js';
import { readPoolJsonl } from './read-pool-jsonl.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pool-read-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('readPoolJsonl', () => {
  it('reads CrashRecords', async () => {
    const rec = { id: 'a', notebook: 'n', source: 'local', ename: 'E', evalue: '', traceback: [], columns: {} };
    const file = path.join(dir, 'pool.jsonl');
    await writeFile(file, `${JSON.stringify(rec)}\n`);
    const got = [];
    for await (const { value } of readPoolJsonl(file)) got.push(value);
    expect(got).toEqual([rec]);
  });

  it('given a sheet row as JSON (not yet imported), says where and that pool import comes first (exit 2)', async () => {
    const file = path.join(dir, 'benchmark_desc.jsonl');
    await writeFile(
      file,
      `${JSON.stringify({ nb_name: 'torch_1', eid: 'x', ename: 'valueerror', evalue: 'v', traceback: "['x']", NotebookUrl: null })}\n`,
    );
    const err = await filterPool({
      input: file,
      criteria: { steps: [{ name: 'all', keep: { field: 'ename', exists: true } }] },
      output: path.join(dir, 'kept.jsonl'),
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JunoError);
    const e = err as JunoError;
    expect(e.code).toBe('E_SCHEMA');
    expect(e.exitCode).toBe(2);
    expect(e.location).toMatchObject({ file, line: 1 });
    expect(e.hint).toContain(`junobench pool import ${file} -o pool.jsonl`);
  });
});
