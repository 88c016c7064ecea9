import { copyFile, mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import {
  JunoError,
  compareCodePoints,
  hashTree,
  listTree,
  readInstanceTree,
  noProgress,
  suggestClosest,
  type ProgressListener,
  type FileCount,
  type SubsampleResult,
  type SubsampleSpec,
  type SubsampleStep,
} from '@junobench/core';
import {
  ImageReferenceIndex,
  createSidecarMatcher,
  filterIndexFile,
  type IndexFileReport,
} from './filter-index-files.js';
import type { SharpFactory } from './reencode-image.js';
import { sampleArchive, type ArchiveSampleReport } from './sample-archive.js';
import { isImagePath, sampleImages, type CorruptImage, type ImageSampleReport } from './sample-images.js';
import { sampleTable, type TableSampleReport } from './sample-table.js';
import { normalizeDataPath } from './spec.js';
import { synthesizeTable, type SyntheticTableReport } from './synthesize-table.js';

export interface StepReport {
  path: string;
  method: SubsampleStep['method'];
  before: FileCount;
  after: FileCount;
  table?: TableSampleReport;
  images?: ImageSampleReport & { indexFiles: IndexFileReport[]; sidecarsKept: number; sidecarsDropped: number };
  archive?: ArchiveSampleReport;
  synthetic?: SyntheticTableReport;
}

export interface SubsampleDataReport {
  steps: StepReport[];
  before: FileCount;
  after: FileCount;
  /** Source files present in the output (possibly reduced). */
  filesKept: number;
  /** Source files left out. */
  filesDropped: number;
  /** Unreadable images, relative to data/. */
  corrupt: CorruptImage[];
  /** Tree hash, files and bytes of the output: what instance.json records. */
  result: SubsampleResult;
  durationMs: number;
}

export interface SubsampleDataOptions {
  /** The full data (what data/ was, or a generated/downloaded source). */
  sourceDir: string;
  /** Where the reduced data goes; must not exist. Written in a temporary folder renamed at the end. */
  outDir: string;
  spec: SubsampleSpec;
  onProgress?: ProgressListener;
  sharp?: SharpFactory;
}

/** The seed of one step: the spec's seed and the step's path, so adding a step never changes another's sample. */
export function stepSeed(spec: SubsampleSpec, stepPath: string): string {
  return `${String(spec.seed)}\u0000${stepPath}`;
}

/**
 * Apply a subsampling spec to a folder of full data: each step reduces its
 * file or folder (table rows, images, archive entries, synthetic
 * replacement, copy, drop); other files are copied (or dropped, per
 * `others`). Nothing is visible at `outDir` until everything succeeded.
 */
export async function subsampleData(options: SubsampleDataOptions): Promise<SubsampleDataReport> {
  const started = Date.now();
  const { sourceDir, outDir, spec } = options;
  const progress = options.onProgress ?? noProgress;
  const srcStat = await stat(sourceDir).catch(() => undefined);
  if (!srcStat?.isDirectory()) {
    throw new JunoError('E_INPUT_NOT_FOUND', 'the full data folder does not exist', {
      location: { file: sourceDir },
      hint: 'point --source at the full data, or use a spec whose source is a generator',
    });
  }
  if (
    await stat(outDir).then(
      () => true,
      () => false,
    )
  ) {
    throw new JunoError('E_USAGE', 'the output folder already exists', {
      location: { file: outDir },
      hint: 'subsample into a new folder',
    });
  }
  // The full data under the one link rule (core readInstanceTree): a link inside
  // stands for its content (read through it, copied as a file), a link leaving
  // the folder, a dangling one or a FIFO is refused by name before anything is read.
  const tree = await readInstanceTree(sourceDir);
  const srcFiles = tree.map((f) => f.rel);
  const sizes = new Map<string, number>(tree.map((f) => [f.rel, f.size]));
  const claimed = new Map<string, number>();
  const claim = (rel: string, step: number, field: string) => {
    const prev = claimed.get(rel);
    if (prev !== undefined && prev !== step) {
      throw new JunoError('E_SCHEMA', `"${rel}" is handled by steps ${prev} and ${step}`, {
        location: { field },
        hint: 'give each file at most one step (index files and sidecar folders belong to their image step)',
      });
    }
    claimed.set(rel, step);
  };
  const filesUnder = (p: string) => (p === '' ? srcFiles : srcFiles.filter((f) => f === p || f.startsWith(`${p}/`)));
  const count = (files: string[]): FileCount => ({
    files: files.length,
    bytes: files.reduce((s, f) => s + (sizes.get(f) ?? 0), 0),
  });

  const tmp = `${outDir}.partial-${process.pid}`;
  await rm(tmp, { recursive: true, force: true });
  await mkdir(tmp, { recursive: true });
  const steps: StepReport[] = [];
  const corrupt: CorruptImage[] = [];
  try {
    for (const [i, step] of spec.steps.entries()) {
      const p = normalizeDataPath(step.path);
      const field = `steps[${i}].path`;
      const under = filesUnder(p);
      if (under.length === 0) {
        const close = suggestClosest(p, [
          ...new Set(srcFiles.flatMap((f) => f.split('/').map((_, k, a) => a.slice(0, k + 1).join('/')))),
        ]);
        throw new JunoError('E_SUBSAMPLE', `step ${i} names "${p}", which is not in the full data`, {
          location: { file: sourceDir, field },
          hint: close ? `did you mean "${close}"?` : 'paths are relative to the data folder',
        });
      }
      const isFile = under.length === 1 && under[0] === p;
      const needFile = step.method === 'table' || step.method === 'synthetic-table' || step.method === 'archive';
      if (needFile !== isFile && step.method !== 'copy' && step.method !== 'drop') {
        throw new JunoError(
          'E_SCHEMA',
          `the "${step.method}" method needs a ${needFile ? 'file' : 'folder'}, and "${p}" is a ${isFile ? 'file' : 'folder'}`,
          {
            location: { field },
          },
        );
      }
      for (const f of under) claim(f, i, field);
      const src = path.join(sourceDir, p);
      const dst = path.join(tmp, p);
      const seed = stepSeed(spec, p);
      progress({ task: 'subsample', done: i, total: spec.steps.length, item: p, message: step.method });
      const report: StepReport = { path: p, method: step.method, before: count(under), after: { files: 0, bytes: 0 } };
      switch (step.method) {
        case 'table':
          report.table = await sampleTable(src, dst, { ...step.parameters, seed, onProgress: options.onProgress });
          break;
        case 'synthetic-table':
          report.synthetic = await synthesizeTable(src, dst, {
            rows: step.parameters.rows,
            delimiter: step.parameters.delimiter,
            seed,
            onProgress: options.onProgress,
          });
          break;
        case 'archive':
          report.archive = await sampleArchive(src, dst, { ...step.parameters, seed });
          break;
        case 'copy':
          for (const f of under) await copyInto(sourceDir, tmp, f);
          break;
        case 'drop':
          break;
        case 'images': {
          const prm = step.parameters;
          const extra = (list: string[] | undefined, what: string) =>
            (list ?? []).flatMap((q, k) => {
              const n = normalizeDataPath(q);
              const files = filesUnder(n);
              if (files.length === 0) {
                throw new JunoError('E_SUBSAMPLE', `${what} "${n}" is not in the full data`, {
                  location: { file: sourceDir, field: `steps[${i}].parameters.${what}[${k}]` },
                });
              }
              return files.map((f) => ({ root: n, file: f }));
            });
          const indexFiles = extra(prm.indexFiles, 'indexFiles').filter((x) => /\.(csv|tsv|txt|lst)$/i.test(x.file));
          const inImageFolder = new Set(under);
          const sidecars = extra(prm.sidecarFolders, 'sidecarFolders').filter(
            (x) => !isImagePath(x.file) || !inImageFolder.has(x.file),
          );
          const handledElsewhere = new Set([...indexFiles, ...sidecars].map((x) => x.file));
          for (const f of handledElsewhere) claim(f, i, field);
          const img = await sampleImages(src, dst, {
            ...prm,
            seed,
            exclude: (rel) => handledElsewhere.has(joinRel(p, rel)),
            onProgress: options.onProgress,
            sharp: options.sharp,
          });
          corrupt.push(...img.corrupt.map((c) => ({ ...c, path: joinRel(p, c.path) })));
          const kept = new Set(img.kept);
          const allImages = [...img.kept, ...img.dropped];
          const index = new ImageReferenceIndex(allImages, p);
          const indexReports: IndexFileReport[] = [];
          for (const x of indexFiles) {
            indexReports.push(
              await filterIndexFile(path.join(sourceDir, x.file), path.join(tmp, x.file), index, kept, x.file),
            );
          }
          let sidecarsKept = 0;
          const byRoot = new Map<string, string[]>();
          for (const x of sidecars) byRoot.set(x.root, [...(byRoot.get(x.root) ?? []), x.file]);
          for (const [root, files] of byRoot) {
            const keepSidecar = createSidecarMatcher(img.kept, allImages);
            for (const f of files) {
              if (keepSidecar(f.slice(root.length + 1))) {
                await copyInto(sourceDir, tmp, f);
                sidecarsKept++;
              }
            }
          }
          report.images = {
            ...img,
            indexFiles: indexReports,
            sidecarsKept,
            sidecarsDropped: sidecars.length - sidecarsKept,
          };
          report.before = count([...under, ...handledElsewhere].filter((f, k, a) => a.indexOf(f) === k));
          break;
        }
      }
      steps.push(report);
    }
    if ((spec.others ?? 'copy') === 'copy') {
      for (const f of srcFiles) if (!claimed.has(f)) await copyInto(sourceDir, tmp, f);
    }
    const outFiles = await listTree(tmp);
    const outSizes = new Map<string, number>();
    for (const f of outFiles) outSizes.set(f, (await stat(path.join(tmp, f))).size);
    for (const s of steps) {
      const outs = outFiles.filter(
        (f) =>
          s.path === '' ||
          f === s.path ||
          f.startsWith(`${s.path}/`) ||
          (s.images?.indexFiles.some((x) => x.path === f) ?? false),
      );
      s.after = { files: outs.length, bytes: outs.reduce((acc, f) => acc + outSizes.get(f)!, 0) };
    }
    const result: SubsampleResult = {
      sha256: await hashTree(tmp),
      files: outFiles.length,
      bytes: [...outSizes.values()].reduce((a, b) => a + b, 0),
    };
    const outSet = new Set(outFiles);
    const filesKept = srcFiles.filter((f) => outSet.has(f)).length;
    await mkdir(path.dirname(outDir), { recursive: true });
    await rename(tmp, outDir);
    progress({ task: 'subsample', done: spec.steps.length, total: spec.steps.length });
    return {
      steps,
      before: count(srcFiles),
      after: { files: result.files, bytes: result.bytes },
      filesKept,
      filesDropped: srcFiles.length - filesKept,
      corrupt: corrupt.sort((a, b) => compareCodePoints(a.path, b.path)),
      result,
      durationMs: Date.now() - started,
    };
  } catch (e) {
    await rm(tmp, { recursive: true, force: true });
    throw e;
  }
}

function joinRel(dir: string, rel: string): string {
  return dir ? `${dir}/${rel}` : rel;
}

async function copyInto(fromRoot: string, toRoot: string, rel: string): Promise<void> {
  const dst = path.join(toRoot, rel);
  await mkdir(path.dirname(dst), { recursive: true });
  await copyFile(path.join(fromRoot, rel), dst);
}
