import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { JunoError, formatJson, readJsonFile, validateOrThrow, type SourceRecord } from '@junobench/core';

export const SOURCE_RECORD_FILE = 'source.json';

export interface RecordFile {
  /** Relative, `/`-separated. */
  path: string;
  content: string | Uint8Array;
}

/**
 * Write a source record folder whole: the files and source.json go to a
 * staging folder beside it, which then replaces the folder (an earlier
 * collection of the same notebook) in one rename. A failure leaves the
 * previous folder as it was.
 */
export async function writeSourceRecord(
  dir: string,
  record: SourceRecord,
  files: readonly RecordFile[],
): Promise<void> {
  validateOrThrow<SourceRecord>('source', record, { file: path.join(dir, SOURCE_RECORD_FILE) });
  const parent = path.dirname(dir);
  await mkdir(parent, { recursive: true });
  const staging = path.join(parent, `.${path.basename(dir)}.partial-${randomBytes(4).toString('hex')}`);
  const aside = path.join(parent, `.${path.basename(dir)}.old-${randomBytes(4).toString('hex')}`);
  try {
    for (const f of files) {
      const to = path.join(staging, ...f.path.split('/'));
      if (!to.startsWith(staging + path.sep))
        throw new JunoError('E_INTERNAL', `record file ${f.path} leaves the record folder`);
      await mkdir(path.dirname(to), { recursive: true });
      await writeFile(to, f.content);
    }
    await mkdir(staging, { recursive: true });
    await writeFile(path.join(staging, SOURCE_RECORD_FILE), formatJson(record));
    const existed = await stat(dir).then(
      () => true,
      () => false,
    );
    if (existed) await rename(dir, aside);
    try {
      await rename(staging, dir);
    } catch (e) {
      if (existed) await rename(aside, dir);
      throw e;
    }
    if (existed) await rm(aside, { recursive: true, force: true });
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** Read and check a source record folder's source.json. */
export async function readSourceRecord(dir: string): Promise<SourceRecord> {
  const file = path.join(dir, SOURCE_RECORD_FILE);
  const exists = await stat(file).then(
    (s) => s.isFile(),
    () => false,
  );
  if (!exists) {
    throw new JunoError('E_INPUT_NOT_FOUND', 'not a source record folder: it has no source.json', {
      location: { file: dir },
      hint: 'give a folder written by `junobench collect` (raw/sources/<platform>/<owner>/<name>) or a .ipynb file',
    });
  }
  return readJsonFile<SourceRecord>(file, { schema: 'source' });
}
