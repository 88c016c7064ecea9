import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CsvWriter, detectCsvFormat, readCsvRecords } from './csv-io.js';

/**
 * Finds which images a text field refers to: by path relative to the image
 * root or to data/, by any path suffix (so `/kaggle/input/x/train/cat/1.jpg`
 * still matches `train/cat/1.jpg`), by file name, or by stem (`2008_000008`
 * in VOC ImageSets). Returns every image the field may mean.
 */
export class ImageReferenceIndex {
  private readonly byPath = new Map<string, string[]>();
  private readonly byName = new Map<string, string[]>();

  /** `images` are relative to the image root; `rootInData` is that root relative to data/. */
  constructor(images: readonly string[], rootInData: string) {
    for (const rel of images) {
      const noExt = stripExt(rel);
      const withRoot = rootInData ? `${rootInData}/${rel}` : rel;
      for (const key of new Set([rel, noExt, withRoot, stripExt(withRoot)])) push(this.byPath, key, rel);
      const base = rel.split('/').pop()!;
      push(this.byName, base, rel);
      push(this.byName, stripExt(base), rel);
    }
  }

  resolve(text: string): string[] {
    let t = text.trim().replace(/\\/g, '/');
    if (t === '' || t.length > 4096) return [];
    t = t.replace(/^(\.\/)+/, '');
    const hit = this.byPath.get(t);
    if (hit) return hit;
    const parts = t.split('/').filter(Boolean);
    for (let i = 1; i < parts.length; i++) {
      const h = this.byPath.get(parts.slice(i).join('/'));
      if (h) return h;
    }
    return this.byName.get(parts[parts.length - 1] ?? '') ?? [];
  }

  /** Whether a list of fields refers to no image (undefined), or to at least one kept image (true/false). */
  decide(fields: readonly string[], kept: ReadonlySet<string>): boolean | undefined {
    let refers = false;
    for (const f of fields) {
      for (const img of this.resolve(f)) {
        refers = true;
        if (kept.has(img)) return true;
      }
    }
    return refers ? false : undefined;
  }
}

function push(m: Map<string, string[]>, k: string, v: string): void {
  const list = m.get(k);
  if (!list) m.set(k, [v]);
  else if (!list.includes(v)) list.push(v);
}

function stripExt(p: string): string {
  const ext = path.extname(p);
  return ext ? p.slice(0, -ext.length) : p;
}

export interface IndexFileReport {
  path: string;
  rowsBefore: number;
  rowsAfter: number;
}

/**
 * Copy an index file (CSV/TSV or a text list), leaving out the rows/lines
 * that refer only to dropped images. Rows that name no image (headers,
 * comments, unrelated rows) are kept.
 */
export async function filterIndexFile(
  input: string,
  output: string,
  index: ImageReferenceIndex,
  kept: ReadonlySet<string>,
  relPath: string,
): Promise<IndexFileReport> {
  const ext = path.extname(input).toLowerCase();
  if (ext === '.csv' || ext === '.tsv') {
    const format = await detectCsvFormat(input);
    let w: CsvWriter | undefined;
    let before = 0;
    try {
      let header = true;
      for await (const row of readCsvRecords(input, format)) {
        w ??= await CsvWriter.open(output, format, row.length);
        if (header) {
          header = false;
          await w.write(row);
          continue;
        }
        before++;
        if (index.decide(row, kept) !== false) await w.write(row);
      }
      w ??= await CsvWriter.open(output, format, 1);
      const after = Math.max(0, w.rows - 1);
      await w.commit();
      return { path: relPath, rowsBefore: before, rowsAfter: after };
    } catch (e) {
      await w?.abort();
      throw e;
    }
  }
  const text = await readFile(input, 'utf8');
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const lines = text.split(/\r?\n/);
  const trailing = lines[lines.length - 1] === '';
  if (trailing) lines.pop();
  const keptLines = lines.filter((line) => index.decide([line, ...line.split(/[\s,;]+/)], kept) !== false);
  await mkdir(path.dirname(output), { recursive: true });
  await writeFile(output, keptLines.join(eol) + (trailing && keptLines.length > 0 ? eol : ''));
  return { path: relPath, rowsBefore: lines.length, rowsAfter: keptLines.length };
}

/**
 * Whether a sidecar (annotation, label, mask) belongs to a kept image: same
 * path without extension below its folder, else the same file stem. Files
 * matching no image at all are kept.
 */
export function createSidecarMatcher(
  keptImages: readonly string[],
  allImages: readonly string[],
): (sidecarRel: string) => boolean {
  const stemOf = (p: string) => stripExt(p.split('/').pop()!);
  const keptPaths = new Set(keptImages.map(stripExt));
  const allPaths = new Set(allImages.map(stripExt));
  const keptStems = new Set(keptImages.map(stemOf));
  const allStems = new Set(allImages.map(stemOf));
  return (rel) => {
    const noExt = stripExt(rel);
    if (allPaths.has(noExt)) return keptPaths.has(noExt);
    const stem = stemOf(rel);
    return !allStems.has(stem) || keptStems.has(stem);
  };
}
