import { stat } from 'node:fs/promises';
import path from 'node:path';
import {
  JunoError,
  readJsonFile,
  validateInstanceId,
  validateOrThrow,
  writeJsonAtomic,
  type LockedData,
  type LockedInstance,
  type SourceRecord,
  type SourcesLock,
} from '@junobench/core';

export const SOURCES_LOCK_FILE = 'sources.lock.json';

/** raw/sources.lock.json, schema-checked; an absent file is an empty lock. */
export async function readSourcesLock(file: string): Promise<SourcesLock> {
  const exists = await stat(file).then(
    (s) => s.isFile(),
    () => false,
  );
  if (!exists) return { instances: {} };
  const value = await readJsonFile<unknown>(file);
  // Said before the schema's own message (a pattern): a record path that leaves the lock's folder points anywhere.
  const instances = (value as { instances?: unknown } | null)?.instances;
  if (instances && typeof instances === 'object') {
    for (const [id, entry] of Object.entries(instances as Record<string, { record?: unknown } | null>)) {
      const record = entry?.record;
      const why = typeof record === 'string' ? recordPathProblem(record) : undefined;
      if (why) {
        throw new JunoError('E_INPUT_FORMAT', `the source record folder ${JSON.stringify(record)} of ${id} ${why}`, {
          location: { file, field: `instances.${id}.record` },
          hint: `a record folder is given relative to the lock's folder and stays inside it, e.g. "sources/kaggle/<owner>/<kernel>"; fix the entry (or remove it, with the instance)`,
        });
      }
    }
  }
  const lock = validateOrThrow<SourcesLock>('sources-lock', value, { file });
  for (const id of Object.keys(lock.instances)) validateInstanceId(id, { file, field: `instances.${id}` });
  return lock;
}

/**
 * Pure: why a lock's record path (relative to the lock's folder) could leave that folder, or undefined when it stays
 * inside: absolute, a `..` or `.` segment, an empty segment, a backslash or a NUL.
 */
export function recordPathProblem(record: string): string | undefined {
  if (record.includes('\0')) return 'contains a NUL character';
  if (record.includes('\\')) return 'contains a backslash';
  if (record.startsWith('/') || /^[A-Za-z]:/.test(record)) return 'is an absolute path';
  const segments = record.split('/');
  if (segments.some((s) => s === '..')) return 'leaves the folder of the lock (a ".." segment)';
  if (segments.some((s) => s === '' || s === '.')) return 'has an empty or "." segment';
  return undefined;
}

/**
 * Written atomically with sorted keys: the same lock is always the same bytes. Checked first against
 * schemas/sources-lock.schema.json and the instance-id rule, the ones readSourcesLock applies: a lock this
 * writes and the next command refuses is a bug here (an internal error, exit 70), and the old lock stays.
 */
export async function writeSourcesLock(file: string, lock: SourcesLock): Promise<void> {
  validateOrThrow<SourcesLock>('sources-lock', lock, { file }, 'E_INTERNAL');
  for (const id of Object.keys(lock.instances)) {
    try {
      validateInstanceId(id, { file, field: `instances.${id}` });
    } catch (e) {
      throw new JunoError('E_INTERNAL', `not a valid sources-lock: ${(e as Error).message}`, {
        location: { file, field: `instances.${id}` },
        cause: e,
      });
    }
  }
  await writeJsonAtomic(file, lock);
}

/**
 * Pure: the lock entry of an instance made from a source record —
 * the notebook's ref, version and hash, every dataset's files and tree
 * hash, and the tree hash of the full data/ assembled from them.
 */
export function planLockEntry(record: SourceRecord, recordDir: string, data?: LockedData): LockedInstance {
  return {
    platform: record.platform,
    record: recordDir.split(path.sep).join('/'),
    notebook: {
      ref: record.ref,
      url: record.url,
      file: record.notebook.path,
      sha256: record.notebook.sha256,
      bytes: record.notebook.bytes,
      version: record.version,
    },
    datasets: record.datasets.map((d) => ({
      kind: d.kind,
      ref: d.ref,
      mount: d.mount,
      ...(d.treeSha256 ? { treeSha256: d.treeSha256 } : {}),
      ...(d.files ? { files: d.files } : {}),
    })),
    ...(data ? { data } : {}),
  };
}

/** Pure: the lock with one entry set (a new object; the input is not changed). */
export function withLockEntry(lock: SourcesLock, id: string, entry: LockedInstance): SourcesLock {
  if (lock.instances[id]) {
    throw new JunoError('E_STATE', `${SOURCES_LOCK_FILE} already has an entry for ${id}`, {
      hint: `an instance id is never reused: remove the stale entry for ${id} from the lock if the instance is gone`,
    });
  }
  return { ...lock, instances: { ...lock.instances, [id]: entry } };
}
