import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import {
  JunoError,
  formatBytes,
  sha256,
  validateOrThrow,
  type KaggleDatasetMetadata,
  type KaggleKernelMetadata,
  type ProgressListener,
  type SourceDataset,
  type SourceRecord,
} from '@junobench/core';
import { listCodeCells, parseNotebook } from '@junobench/notebook';
import { pseudonymizeAuthor } from './author-id.js';
import { datasetCacheDir, fetchKaggleData, sourcesCacheDir } from './fetch-kaggle-data.js';
import type { KaggleCli } from './kaggle-cli.js';
import { parseKaggleCompetitionRef, parseKaggleDatasetRef, parseKaggleKernelRef } from './parse-source-ref.js';
import type { CollectedSource } from './collect-github.js';
import { writeSourceRecord, type RecordFile } from './write-source-record.js';

export const KERNEL_METADATA_FILE = 'kernel-metadata.json';
export const DATASET_METADATA_FILE = 'dataset-metadata.json';
/**
 * How the record's warning about a pulled notebook without outputs starts (add, given the notebook with outputs, drops
 * it).
 */
export const NO_SAVED_OUTPUTS_WARNING = 'the notebook came without saved outputs';

// Kaggle's licence names that mean "no licence granted".
const NO_LICENSE = new Set([
  '',
  'unknown',
  'none',
  'no license',
  'copyright-authors',
  'other (specified in description)',
]);

/** Pure: the licence a dataset's metadata states, or null when it states none. */
export function parseDatasetLicense(meta: KaggleDatasetMetadata): string | null {
  const names = (meta.licenses ?? [])
    .map((l) => (typeof l?.name === 'string' ? l.name.trim() : ''))
    .filter((n) => !NO_LICENSE.has(n.toLowerCase()));
  return names.length > 0 ? names.join(', ') : null;
}

/**
 * Pure: the dataset's metadata out of dataset-metadata.json as parsed. The
 * Kaggle CLI (1.7, kagglesdk) writes the whole API response, `{"info": {…}}`
 * (`dataset_metadata_update` reads it back the same way:
 * `metadata.get("info") or metadata`); CLIs before 1.7 wrote the fields at
 * the top level. Both are read; the result is what the schema checks.
 */
export function unwrapDatasetMetadata(value: unknown): unknown {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const info = (value as { info?: unknown }).info;
    if (info !== null && typeof info === 'object' && !Array.isArray(info)) return info;
  }
  return value;
}

/** Pure: the owner/slug a dataset's metadata names (modern `ownerUser`/`datasetSlug`, older `id`). */
export function datasetRefOfMetadata(meta: KaggleDatasetMetadata): string | undefined {
  if (typeof meta.ownerUser === 'string' && typeof meta.datasetSlug === 'string')
    return `${meta.ownerUser}/${meta.datasetSlug}`;
  return typeof meta.id === 'string' ? meta.id : undefined;
}

export interface CollectKaggleOptions {
  cli: KaggleCli;
  /** raw/sources */
  outDir: string;
  cacheDir: string;
  /** Also download every dataset and competition's data into the cache. */
  withData?: boolean;
  salt: string;
  onProgress?: ProgressListener;
}

/**
 * `junobench collect kaggle`: per kernel, `kaggle kernels pull -m` (notebook
 * and kernel-metadata.json, schema-checked), `kaggle datasets metadata` for
 * each dataset source (title, licence), and with `withData` the datasets and
 * competition data downloaded, safely extracted and hashed into the cache.
 * Written as `<out>/kaggle/<owner>/<kernel>/` with source.json; nothing is
 * written for a kernel that fails. Refs are all checked before the first
 * download.
 */
export async function collectKaggleKernels(
  refs: readonly string[],
  options: CollectKaggleOptions,
): Promise<CollectedSource[]> {
  const parsed = refs.map((r) => parseKaggleKernelRef(r));
  const out: CollectedSource[] = [];
  for (const [i, ref] of parsed.entries()) {
    const refText = `${ref.owner}/${ref.slug}`;
    options.onProgress?.({ task: 'collect kaggle', done: i, total: parsed.length, item: refText });
    const work = path.join(sourcesCacheDir(options.cacheDir), 'tmp', `kernel-${randomBytes(6).toString('hex')}`);
    await mkdir(work, { recursive: true });
    try {
      const collected = await collectOne(refText, ref, work, options);
      out.push({ ref: refs[i]!, ...collected });
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }
  options.onProgress?.({ task: 'collect kaggle', done: parsed.length, total: parsed.length });
  return out;
}

async function collectOne(
  refText: string,
  ref: { owner: string; slug: string },
  work: string,
  options: CollectKaggleOptions,
): Promise<{ dir: string; record: SourceRecord }> {
  const pulled = path.join(work, 'kernel');
  await options.cli.pullKernel(refText, pulled);
  const metaFile = path.join(pulled, KERNEL_METADATA_FILE);
  const metaText = await readFile(metaFile, 'utf8').catch((e: unknown) => {
    throw new JunoError('E_SOURCE', `kaggle kernels pull wrote no ${KERNEL_METADATA_FILE} for ${refText}`, {
      hint: 'junobench runs `kaggle kernels pull <ref> -p <dir> -m`; check the Kaggle CLI version (`kaggle --version`)',
      cause: e,
    });
  });
  const meta = validateOrThrow<KaggleKernelMetadata>(
    'kaggle-kernel-metadata',
    parseJson(metaText, `${refText}: ${KERNEL_METADATA_FILE}`),
    {
      file: `${refText}: ${KERNEL_METADATA_FILE}`,
    },
    'E_SOURCE',
  );
  if (
    (meta.language && meta.language.toLowerCase() !== 'python') ||
    (meta.kernel_type && meta.kernel_type.toLowerCase() !== 'notebook')
  ) {
    throw new JunoError(
      'E_USAGE',
      `Kaggle kernel ${refText} is a ${meta.language ?? '?'} ${meta.kernel_type ?? '?'}, not a Python notebook`,
      {
        hint: 'only Python notebooks (.ipynb) can become JunoBench instances',
      },
    );
  }
  const nbPath = path.join(pulled, meta.code_file);
  const nbBytes = await readFile(nbPath).catch((e: unknown) => {
    throw new JunoError(
      'E_SOURCE',
      `kaggle kernels pull did not write the notebook ${meta.code_file} named in ${KERNEL_METADATA_FILE} (${refText})`,
      { cause: e },
    );
  });
  // Kept as pulled; cells without the ids nbformat 4.5 requires are given them when the draft is made (add).
  const nb = parseNotebook(nbBytes.toString('utf8'), `${refText}: ${meta.code_file}`, { repairIds: { repaired: 0 } });

  const files: RecordFile[] = [
    { path: meta.code_file, content: nbBytes },
    { path: KERNEL_METADATA_FILE, content: metaText },
  ];
  const datasets: SourceDataset[] = [];
  const warnings: string[] = [];
  if (listCodeCells(nb).every((c) => c.executionCount === null && (c.cell.outputs ?? []).length === 0)) {
    // kernels_pull writes `blob.source`, the source Kaggle stores: outputs are not part of it.
    warnings.push(
      `${NO_SAVED_OUTPUTS_WARNING} (\`kaggle kernels pull\` returns a notebook's source only), so add has no error output to mine: ` +
        `download the notebook with its outputs from https://www.kaggle.com/code/${ref.owner}/${ref.slug} (the version that crashed) and run ` +
        '`junobench add <this source folder> --notebook <downloaded.ipynb>`',
    );
  }
  const mounts = new Set<string>();
  const addDataset = (d: SourceDataset) => {
    if (mounts.has(d.mount)) {
      warnings.push(
        `${d.kind} ${d.ref} mounts at /kaggle/input/${d.mount}/ like another source of this kernel: only the first is used`,
      );
      return;
    }
    mounts.add(d.mount);
    datasets.push(d);
  };
  const progressBytes = (item: string) => (bytes: number) =>
    options.onProgress?.({ task: 'download', done: bytes, item, message: formatBytes(bytes, { units: 'si' }) });

  for (const source of meta.dataset_sources) {
    const ds = parseKaggleDatasetRef(source);
    const dsRef = `${ds.owner}/${ds.slug}`;
    const metaDir = path.join(work, 'datasets', ds.owner, ds.slug);
    await options.cli.datasetMetadata(dsRef, metaDir);
    const dsMetaText = await readFile(path.join(metaDir, DATASET_METADATA_FILE), 'utf8').catch((e: unknown) => {
      throw new JunoError('E_SOURCE', `kaggle datasets metadata wrote no ${DATASET_METADATA_FILE} for ${dsRef}`, {
        cause: e,
      });
    });
    const dsMeta = validateOrThrow<KaggleDatasetMetadata>(
      'kaggle-dataset-metadata',
      unwrapDatasetMetadata(parseJson(dsMetaText, `${dsRef}: ${DATASET_METADATA_FILE}`)),
      {
        file: `${dsRef}: ${DATASET_METADATA_FILE}`,
      },
      'E_SOURCE',
    );
    const named = datasetRefOfMetadata(dsMeta);
    if (named && named.toLowerCase() !== dsRef.toLowerCase()) {
      throw new JunoError('E_SOURCE', `the metadata Kaggle returned for dataset ${dsRef} describes ${named}`, {
        hint: 'run the command again; if it persists, report it',
      });
    }
    const metadataFile = `datasets/${ds.owner}/${ds.slug}/${DATASET_METADATA_FILE}`;
    files.push({ path: metadataFile, content: dsMetaText });
    const license = parseDatasetLicense(dsMeta);
    if (license === null) {
      warnings.push(
        `dataset ${dsRef} declares no licence: its data may not be shared, so an instance made from this notebook must use synthetic data (junobench subsample --method synthetic-table)`,
      );
    } else if (license.split(', ').some((n) => n.toLowerCase() === 'other')) {
      // Kaggle's "Other (specified in description)" reaches the API as the name "other": the terms are prose on the
      // page.
      warnings.push(
        `dataset ${dsRef} has the licence "other" (specified in its description on kaggle.com/datasets/${dsRef}): read the terms before sharing its data; if they do not allow it, use synthetic data`,
      );
    }
    const entry: SourceDataset = {
      kind: 'dataset',
      ref: dsRef,
      // kagglesdk leaves an unset title out of the file.
      title: (dsMeta.title?.trim() || dsRef).slice(0, 500),
      license,
      url: `https://www.kaggle.com/datasets/${ds.owner}/${ds.slug}`,
      mount: ds.slug,
      metadataFile,
    };
    if (options.withData) {
      const data = await fetchKaggleData('dataset', dsRef, {
        cli: options.cli,
        cacheDir: options.cacheDir,
        onBytes: progressBytes(dsRef),
      });
      Object.assign(entry, {
        archive: data.archive,
        files: data.files,
        treeSha256: data.treeSha256,
        bytes: data.bytes,
      });
    }
    addDataset(entry);
  }
  for (const source of meta.competition_sources) {
    const name = parseKaggleCompetitionRef(source);
    const entry: SourceDataset = {
      kind: 'competition',
      ref: name,
      title: `Kaggle competition ${name}`,
      license: null,
      url: `https://www.kaggle.com/competitions/${name}`,
      mount: name,
    };
    warnings.push(
      `competition ${name}: its data is governed by the competition's rules, not a licence; an instance must use synthetic data unless the rules allow sharing`,
    );
    if (options.withData) {
      const data = await fetchKaggleData('competition', name, {
        cli: options.cli,
        cacheDir: options.cacheDir,
        onBytes: progressBytes(name),
      });
      Object.assign(entry, {
        archive: data.archive,
        files: data.files,
        treeSha256: data.treeSha256,
        bytes: data.bytes,
      });
    }
    addDataset(entry);
  }
  // Kaggle Models (`kernels pull` lists them in model_sources) are mounted under /kaggle/input too; junobench does not
  // download them, so say so rather than let the draft fail later on a missing file.
  for (const source of (meta.model_sources ?? []).slice(0, 20)) {
    warnings.push(
      `Kaggle model ${String(source).slice(0, 200)} is an input of this notebook: it is not collected (put what the notebook needs under the instance's data/, or make it synthetic)`,
    );
  }
  for (const source of meta.kernel_sources) {
    const k = parseKaggleKernelRef(source);
    warnings.push(
      `kernel output ${k.owner}/${k.slug} is an input of this notebook: it is recorded but not downloaded (no licence is stated for kernel outputs)`,
    );
    addDataset({
      kind: 'kernel-output',
      ref: `${k.owner}/${k.slug}`,
      title: `Output of Kaggle kernel ${k.owner}/${k.slug}`,
      license: null,
      url: `https://www.kaggle.com/code/${k.owner}/${k.slug}`,
      mount: k.slug,
    });
  }

  const record: SourceRecord = {
    platform: 'kaggle',
    ref: refText,
    url: `https://www.kaggle.com/code/${ref.owner}/${ref.slug}`,
    version: {
      ...(Number.isInteger(meta.id_no) ? { kernelId: meta.id_no } : {}),
      ...(Number.isInteger(meta.version_number) ? { kernelVersion: meta.version_number } : {}),
    },
    codeLicense: 'Apache-2.0',
    codeLicenseBasis: "Kaggle's terms: public notebooks are released under the Apache 2.0 licence",
    notebook: { path: meta.code_file, bytes: nbBytes.byteLength, sha256: sha256(nbBytes) },
    metadataFile: KERNEL_METADATA_FILE,
    authorId: pseudonymizeAuthor('kaggle', ref.owner, options.salt),
    datasets,
    ...(warnings.length > 0 ? { warnings } : {}),
  };
  const dir = path.join(options.outDir, 'kaggle', ref.owner, ref.slug);
  await writeSourceRecord(dir, record, files);
  return { dir, record };
}

function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new JunoError('E_SOURCE', `${where} is not valid JSON: ${(e as Error).message}`, { cause: e });
  }
}

/** Whether every collected dataset of a record is in the cache (collected with --with-data). */
export async function isRecordDataCached(record: SourceRecord, cacheDir: string): Promise<boolean> {
  for (const d of record.datasets) {
    if (d.kind === 'kernel-output') continue;
    if (!d.treeSha256) return false;
    if (
      !(await stat(datasetCacheDir(cacheDir, d.treeSha256)).then(
        () => true,
        () => false,
      ))
    )
      return false;
  }
  return true;
}
