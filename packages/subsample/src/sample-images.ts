import { copyFile, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { compareCodePoints, noProgress, readInstanceTree, type ProgressListener } from '@junobench/core';
import { reencodeImage, type SharpFactory } from './reencode-image.js';
import { fractionOf, sampleByGroup } from './select-rows.js';

export const IMAGE_EXTENSIONS: ReadonlySet<string> = new Set([
  '.jpg',
  '.jpeg',
  '.jpe',
  '.png',
  '.webp',
  '.gif',
  '.tif',
  '.tiff',
  '.bmp',
  '.avif',
  '.heic',
  '.heif',
]);

// Read by PIL/OpenCV but not by sharp's libvips: copied byte for byte, never probed.
const UNREADABLE = new Set(['.bmp']);

export function isImagePath(rel: string): boolean {
  return IMAGE_EXTENSIONS.has(path.extname(rel).toLowerCase());
}

export interface SampleImagesOptions {
  perClass?: number;
  fraction?: number;
  /** Folder levels below the root that name the class; default: the image's whole folder. */
  classDepth?: number;
  maxSide?: number;
  reencode?: boolean;
  quality?: number;
  /** Images always kept (paths relative to the root). */
  keep?: readonly string[];
  corrupt?: 'keep' | 'drop';
  seed: string | number;
  /** Files under the root that another part of the step handles (index files, sidecars): not copied here. */
  exclude?: (rel: string) => boolean;
  /** Images processed at once (sharp also uses its own threads). */
  concurrency?: number;
  onProgress?: ProgressListener;
  sharp?: SharpFactory;
}

export interface CorruptImage {
  path: string;
  reason: string;
}

export interface ImageSampleReport {
  imagesBefore: number;
  imagesAfter: number;
  classes: number;
  /** Kept images, relative to the root, sorted. */
  kept: string[];
  /** Dropped images, relative to the root, sorted. */
  dropped: string[];
  resized: number;
  reencoded: number;
  /** Sampled images that could not be decoded: reported, and kept as they are or dropped per `corrupt`. */
  corrupt: CorruptImage[];
  /** Non-image files under the root copied as they are. */
  otherFiles: number;
  bytesBefore: number;
  bytesAfter: number;
}

/** The class of an image: its folder, or the first `classDepth` levels of it. */
export function classOfImage(rel: string, classDepth?: number): string {
  const dirs = rel.split('/').slice(0, -1);
  return (classDepth === undefined ? dirs : dirs.slice(0, classDepth)).join('/');
}

/**
 * Keep K images (or a fraction) per class folder, seeded, with their
 * relative paths; optionally shrink and re-encode them (format, channels,
 * bit depth kept). An image that cannot be decoded is reported by path and
 * never stops the run.
 */
export async function sampleImages(
  inputDir: string,
  outputDir: string,
  options: SampleImagesOptions,
): Promise<ImageSampleReport> {
  const progress = options.onProgress ?? noProgress;
  // Under the one link rule: links inside are read as their content, links out are refused by name.
  const files = (await readInstanceTree(inputDir, options.exclude ? { ignore: options.exclude } : {})).map(
    (f) => f.rel,
  );
  const images = files.filter(isImagePath);
  const others = files.filter((f) => !isImagePath(f));
  const keepSet = new Set(options.keep ?? []);
  const howMany = (n: number) =>
    options.perClass !== undefined ? options.perClass : fractionOf(n, options.fraction ?? 1);
  const candidates = images.filter((f) => !keepSet.has(f));
  const sampled = new Set(sampleByGroup(candidates, (f) => classOfImage(f, options.classDepth), howMany, options.seed));
  for (const k of keepSet) if (images.includes(k)) sampled.add(k);
  const selected = images.filter((f) => sampled.has(f));

  const report: ImageSampleReport = {
    imagesBefore: images.length,
    imagesAfter: 0,
    classes: new Set(images.map((f) => classOfImage(f, options.classDepth))).size,
    kept: [],
    dropped: images.filter((f) => !sampled.has(f)),
    resized: 0,
    reencoded: 0,
    corrupt: [],
    otherFiles: others.length,
    bytesBefore: 0,
    bytesAfter: 0,
  };
  for (const f of files) report.bytesBefore += (await stat(path.join(inputDir, f))).size;

  const reencoding = options.maxSide !== undefined || options.reencode === true;
  let done = 0;
  const process = async (rel: string): Promise<void> => {
    const src = path.join(inputDir, rel);
    const dst = path.join(outputDir, rel);
    const input = await readFile(src);
    let out: Buffer = input;
    const unreadable = UNREADABLE.has(path.extname(rel).toLowerCase());
    if (unreadable && reencoding)
      report.corrupt.push({ path: rel, reason: 'format not supported by sharp (BMP): copied as it is, not resized' });
    if (!unreadable)
      try {
        const r = await reencodeImage(input, {
          maxSide: options.maxSide,
          force: options.reencode,
          quality: options.quality,
          sharp: options.sharp,
        });
        if (r.data) {
          out = r.data;
          report.reencoded++;
          if (r.resized) report.resized++;
        } else if (reencoding && r.format === 'unknown') {
          report.corrupt.push({ path: rel, reason: 'unknown image format' });
        }
      } catch (e) {
        report.corrupt.push({ path: rel, reason: describeImageError(e) });
        if (options.corrupt === 'drop') {
          report.dropped.push(rel);
          return;
        }
      }
    await mkdir(path.dirname(dst), { recursive: true });
    await writeFile(dst, out);
    report.kept.push(rel);
    report.bytesAfter += out.length;
    done++;
    if (done % 100 === 0) progress({ task: 'subsample images', done, total: selected.length, item: rel });
  };
  await runPool(selected, options.concurrency ?? 4, process);
  for (const rel of others) {
    await mkdir(path.dirname(path.join(outputDir, rel)), { recursive: true });
    await copyFile(path.join(inputDir, rel), path.join(outputDir, rel));
    report.bytesAfter += (await stat(path.join(inputDir, rel))).size;
  }
  report.kept.sort(compareCodePoints);
  report.dropped.sort(compareCodePoints);
  report.corrupt.sort((a, b) => compareCodePoints(a.path, b.path));
  report.imagesAfter = report.kept.length;
  return report;
}

function describeImageError(e: unknown): string {
  const msg = (e as Error)?.message ?? String(e);
  return msg.split('\n')[0]!.slice(0, 300);
}

/** Run `work` over items with at most `n` at once; the first error stops the rest and is thrown. */
export async function runPool<T>(items: readonly T[], n: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failed: unknown;
  const worker = async () => {
    while (failed === undefined && next < items.length) {
      const item = items[next++]!;
      try {
        await work(item);
      } catch (e) {
        failed ??= e;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(n, items.length)) }, worker));
  if (failed !== undefined) throw failed;
}
