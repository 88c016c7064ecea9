import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JunoError, checkSchema, sha256, type SourceRecord, type SourcesLock } from '@junobench/core';
import { planLockEntry, readSourcesLock, recordPathProblem, withLockEntry, writeSourcesLock } from './sources-lock.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'sources-lock-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

// A source record as `collect kaggle` writes it (checked against its own schema below).
const RECORD: SourceRecord = {
  platform: 'kaggle',
  ref: 'alice/house-crash',
  url: 'https://www.kaggle.com/code/alice/house-crash',
  version: { kernelId: 4242, kernelVersion: 3 },
  codeLicense: 'Apache-2.0',
  notebook: { path: 'house-crash.ipynb', bytes: 1234, sha256: sha256('notebook') },
  metadataFile: 'kernel-metadata.json',
  authorId: 'author-0123456789abcdef',
  datasets: [
    {
      kind: 'dataset',
      ref: 'alice/house-prices',
      title: 'House prices',
      license: 'CC0-1.0',
      url: 'https://www.kaggle.com/datasets/alice/house-prices',
      mount: 'house-prices',
      treeSha256: sha256('tree'),
      files: [{ path: 'train.csv', bytes: 22, sha256: sha256('train.csv') }],
    },
  ],
};

/** The lock `add` writes for one instance: planLockEntry → withLockEntry, as add-instance does. */
function realLock(): SourcesLock {
  return withLockEntry(
    { instances: {} },
    'pandas_9',
    planLockEntry(RECORD, path.join('sources', 'kaggle', 'alice', 'house-crash'), {
      sha256: sha256('data'),
      files: 2,
      bytes: 40,
    }),
  );
}

describe('writeSourcesLock', () => {
  it('writes the lock add makes, valid against sources-lock, and reads it back', async () => {
    expect(checkSchema('source', RECORD)).toEqual([]);
    const file = path.join(dir, 'sources.lock.json');
    const lock = realLock();
    await writeSourcesLock(file, lock);
    expect(checkSchema('sources-lock', JSON.parse(await readFile(file, 'utf8')))).toEqual([]);
    expect(await readSourcesLock(file)).toEqual(lock);
  });

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- locks are broken on purpose, field by field
  type Lock = any;
  // Broken copies of the real lock: each is refused before anything is written, naming the field; the old lock stays.
  it.each([
    ['an unknown platform', (l: Lock) => (l.instances.pandas_9.platform = 'gitlab'), 'instances.pandas_9.platform'],
    [
      'a notebook hash that is not sha256',
      (l: Lock) => (l.instances.pandas_9.notebook.sha256 = 'abc'),
      'instances.pandas_9.notebook.sha256',
    ],
    ['a negative size', (l: Lock) => (l.instances.pandas_9.data.bytes = -1), 'instances.pandas_9.data.bytes'],
    [
      'a dataset without its mount',
      (l: Lock) => delete l.instances.pandas_9.datasets[0].mount,
      'is missing required property "mount"',
    ],
    ['an extra property', (l: Lock) => (l.instances.pandas_9.token = 'x'), 'unknown property "token"'],
    ['an id with a slash', (l: Lock) => (l.instances['../x'] = l.instances.pandas_9), 'instances'],
    ['an id with ".."', (l: Lock) => (l.instances['a..b'] = l.instances.pandas_9), '"a..b" is not a valid instance id'],
  ])('%s is an internal error (%s)', async (_what, breakIt, named) => {
    const file = path.join(dir, 'sources.lock.json');
    await writeFile(file, '{"instances":{}}\n');
    const lock = realLock();
    breakIt(lock);
    let error: unknown;
    try {
      await writeSourcesLock(file, lock);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(JunoError);
    expect(error).toMatchObject({ code: 'E_INTERNAL', exitCode: 70, location: { file } });
    expect((error as JunoError).message).toContain('not a valid sources-lock: ');
    expect((error as JunoError).message).toContain(named);
    expect(await readFile(file, 'utf8')).toBe('{"instances":{}}\n');
  });
});

describe('readSourcesLock: record paths', () => {
  it.each([
    ['../../..', 'leaves the folder of the lock (a ".." segment)'],
    ['sources/../../etc', 'leaves the folder of the lock (a ".." segment)'],
    ['/etc', 'is an absolute path'],
    ['sources//x', 'has an empty or "." segment'],
    ['sources\\..\\x', 'contains a backslash'],
  ])('refuses record %j, naming the entry: %s', async (record, why) => {
    const file = path.join(dir, 'sources.lock.json');
    const lock = realLock();
    // The schema refuses it too: a lock written with it is a bug.
    expect(
      checkSchema('sources-lock', { ...lock, instances: { pandas_9: { ...lock.instances.pandas_9!, record } } }),
    ).not.toEqual([]);
    await writeFile(
      file,
      JSON.stringify({ ...lock, instances: { pandas_9: { ...lock.instances.pandas_9!, record } } }),
    );
    await expect(readSourcesLock(file)).rejects.toMatchObject({
      code: 'E_INPUT_FORMAT',
      exitCode: 2,
      message: `the source record folder ${JSON.stringify(record)} of pandas_9 ${why}`,
      location: { file, field: 'instances.pandas_9.record' },
    });
  });

  it("accepts a record folder inside the lock's folder", () => {
    expect(recordPathProblem('sources/kaggle/alice/house-prices-crash')).toBeUndefined();
  });
});
