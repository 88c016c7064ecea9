import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JunoError, type RunResult } from '@junobench/core';
import type { NotebookRun } from '@junobench/runtime';
import { checkAnswerGroup, planQueueFiles, planRunJobs, readAnswerResult, type PlannedFiles } from './queue-jobs.js';

const run = (id: string, instanceDir: string, extra: Partial<NotebookRun> = {}): NotebookRun => ({
  id,
  instanceDir,
  notebook: 'nb.ipynb',
  cells: [0, 1],
  cellTimeoutSeconds: 10,
  timeoutSeconds: 60,
  ...extra,
});
const files: PlannedFiles = { files: { treeHash: 'a'.repeat(64), blobs: [] } };

describe('planRunJobs', () => {
  it('makes one schema-checked job per run, ids numbered in the batch', () => {
    const items = planRunJobs(
      [run('i/a', '/x/i'), run('i/b', '/x/i', { prewarm: ['numpy'] })],
      new Map([['/x/i', files]]),
      'batch1',
    );
    expect(items.map((it) => it.jobId)).toEqual(['batch1-0', 'batch1-1']);
    expect(items[1]!.data).toEqual({
      protocol: 1,
      type: 'run',
      run: {
        id: 'i/b',
        notebook: 'nb.ipynb',
        cells: [0, 1],
        cellTimeoutSeconds: 10,
        timeoutSeconds: 60,
        prewarm: ['numpy'],
      },
      files: files.files,
    });
    expect(items[0]).not.toHaveProperty('manifest');
  });

  it('refuses a run the job schema does not take, naming the problem', () => {
    let error: unknown;
    try {
      planRunJobs([run('i/a', '/x/i', { timeoutSeconds: -1 })], new Map([['/x/i', files]]), 'b');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(JunoError);
    expect((error as JunoError).code).toBe('E_QUEUE');
    expect((error as JunoError).message).toMatch(/^cannot make a queue job: /);
  });
});

describe('readAnswerResult', () => {
  const r = run('i/a', '/x/i');
  it("takes the worker's result under the run's id", () => {
    const result: RunResult = { id: '0', status: 'completed', cells: [], durationMs: 3 };
    expect(readAnswerResult({ worker: 'w', group: 'g', result }, r)).toEqual({ ...result, id: 'i/a' });
  });

  it('fails a result that breaks the schema, naming the worker', () => {
    const out = readAnswerResult({ worker: 'w9', group: 'g' }, r);
    expect(out.status).toBe('failed');
    expect(out.reason).toMatch(/^worker w9 returned an invalid result: /);
  });
});

describe('checkAnswerGroup', () => {
  it('refuses an answer from another runtime identity (exit 3)', () => {
    expect(() => checkAnswerGroup({ worker: 'w', group: 'g1' }, 'g1')).not.toThrow();
    try {
      checkAnswerGroup({ worker: 'w', group: 'g2' }, 'g1');
      expect.unreachable();
    } catch (e) {
      expect((e as JunoError).code).toBe('E_QUEUE_IDENTITY');
      expect((e as JunoError).exitCode).toBe(3);
      expect((e as JunoError).message).toBe(
        'worker w answered with runtime identity g2, not g1: results of two environments are never mixed',
      );
    }
  });
});

describe('planQueueFiles with a shared folder', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'jb-queue-jobs-'));
    await mkdir(path.join(root, 'shared', 'inst'), { recursive: true });
    await writeFile(path.join(root, 'shared', 'inst', 'nb.ipynb'), '{}');
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  const to = (sharedRoot: string) => ({
    sharedRoot,
    blobLimit: 1,
    // Never reached with a shared folder: nothing goes through Redis.
    redis: undefined as never,
    prefix: 'p',
    waitMs: 1,
    stats: { blobs: 0, uploaded: 0, uploadedBytes: 0, reused: 0 },
  });

  it('names each instance by its path under the shared folder and its tree hash', async () => {
    const out = await planQueueFiles([run('a', path.join(root, 'shared', 'inst'))], to(path.join(root, 'shared')));
    const f = out.get(path.join(root, 'shared', 'inst'))!;
    expect(f.files.shared).toEqual({ root: path.join(root, 'shared'), path: 'inst' });
    expect(f.files.treeHash).toMatch(/^[0-9a-f]{64}$/);
    expect(f.manifest).toBeUndefined();
  });

  it('refuses an instance outside the shared folder, saying how to fix it', async () => {
    await expect(planQueueFiles([run('a', root)], to(path.join(root, 'shared')))).rejects.toMatchObject({
      code: 'E_USAGE',
      message: `${root} is not inside the shared folder ${path.join(root, 'shared')}`,
    });
  });
});
