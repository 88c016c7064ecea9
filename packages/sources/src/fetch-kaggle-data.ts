import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { JunoError, hashFile, hashInstanceTree, readInstanceTree, type SourceFile } from '@junobench/core';
import { detectArchiveKind, extractArchive } from '@junobench/archive';
import type { KaggleCli } from './kaggle-cli.js';

/** Where collected and fetched data live: content-addressed, never in raw/. */
export function sourcesCacheDir(cacheDir: string): string {
  return path.join(cacheDir, 'sources');
}

/** The extracted files of a dataset whose tree hash is `treeSha256`. */
export function datasetCacheDir(cacheDir: string, treeSha256: string): string {
  return path.join(sourcesCacheDir(cacheDir), 'datasets', treeSha256);
}

/**
 * An instance's full data/ (every dataset under its mount folder), by tree hash: what the data stage subsamples from.
 */
export function fullDataCacheDir(cacheDir: string, treeSha256: string): string {
  return path.join(sourcesCacheDir(cacheDir), 'full', treeSha256);
}

export interface FetchedData {
  /** Folder in the cache holding the extracted files. */
  dir: string;
  archive: SourceFile;
  files: SourceFile[];
  treeSha256: string;
  bytes: number;
}

export interface FetchKaggleDataOptions {
  cli: KaggleCli;
  cacheDir: string;
  onBytes?: (bytes: number) => void;
}

/**
 * Download a dataset (or competition data) with the Kaggle CLI into a
 * temporary folder of the cache, extract the archive with the project's safe
 * archive code (an entry escaping the folder, a link pointing out, a bomb →
 * E_UNSAFE_ARCHIVE, nothing kept), hash every file, and keep the files under
 * their tree hash in `<cache>/sources/datasets/<hash>/`. The archive itself is
 * not kept (its name and hash are returned).
 */
export async function fetchKaggleData(
  kind: 'dataset' | 'competition',
  ref: string,
  options: FetchKaggleDataOptions,
): Promise<FetchedData> {
  const root = sourcesCacheDir(options.cacheDir);
  const work = path.join(root, 'tmp', `${kind}-${randomBytes(6).toString('hex')}`);
  await mkdir(path.join(work, 'download'), { recursive: true });
  try {
    const file =
      kind === 'dataset'
        ? await options.cli.downloadDataset(ref, path.join(work, 'download'), options.onBytes)
        : await options.cli.downloadCompetition(ref, path.join(work, 'download'), options.onBytes);
    const archive: SourceFile = {
      path: path.basename(file),
      bytes: (await stat(file)).size,
      sha256: await hashFile(file),
    };
    const extracted = path.join(work, 'files');
    let isArchive = true;
    try {
      await detectArchiveKind(file);
    } catch {
      isArchive = false;
    }
    if (isArchive) {
      await extractArchive(file, extracted).catch((e: unknown) => {
        if (e instanceof JunoError && e.code === 'E_UNSAFE_ARCHIVE') {
          throw new JunoError(
            'E_UNSAFE_ARCHIVE',
            `the archive Kaggle served for ${kind} ${ref} is unsafe: ${e.message}`,
            {
              hint: 'nothing was extracted or kept; report the dataset to Kaggle, or collect the notebook without --with-data',
              cause: e,
            },
          );
        }
        throw e;
      });
    } else {
      // A single file that is not an archive (some competitions): it is the data.
      await mkdir(extracted, { recursive: true });
      await rename(file, path.join(extracted, path.basename(file)));
    }
    const tree = await readInstanceTree(extracted);
    const files: SourceFile[] = [];
    for (const f of tree) files.push({ path: f.rel, bytes: f.size, sha256: await hashFile(f.abs) });
    const treeSha256 = await hashInstanceTree(extracted);
    const dir = datasetCacheDir(options.cacheDir, treeSha256);
    if (
      !(await stat(dir).then(
        () => true,
        () => false,
      ))
    ) {
      await mkdir(path.dirname(dir), { recursive: true });
      await rename(extracted, dir).catch(async (e: unknown) => {
        // Another process stored the same content meanwhile: theirs is identical.
        if (
          !(await stat(dir).then(
            () => true,
            () => false,
          ))
        )
          throw e;
      });
    }
    return { dir, archive, files, treeSha256, bytes: files.reduce((s, f) => s + f.bytes, 0) };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
