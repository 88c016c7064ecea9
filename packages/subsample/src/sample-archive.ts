import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { once } from 'node:events';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Pack } from 'tar';
import yazl from 'yazl';
import { compareCodePoints, JunoError, type SubsampleArchiveReport } from '@junobench/core';
import {
  ArchiveBudget,
  assertSafeEntries,
  detectArchiveKind,
  openZip,
  resolveArchiveLinks,
  readZipEntries,
  walkTar,
  type ArchiveEntry,
  type ArchiveLimits,
} from '@junobench/archive';
import { fractionOf, sampleByGroup } from './select-rows.js';

export interface SampleArchiveOptions extends ArchiveLimits {
  fraction: number;
  /** Folder level that groups files (default 1: top-level folders). */
  depth?: number;
  /** Entry paths always kept. */
  keep?: readonly string[];
  seed: string | number;
}

/** What an archive step did: the `archive` report of schemas/subsample-report.schema.json. */
export type ArchiveSampleReport = SubsampleArchiveReport;

/** The group of an archive file: the first `depth` folder levels of its path (its own folder if shallower). */
export function groupOfEntry(p: string, depth = 1): string {
  return p.split('/').slice(0, -1).slice(0, depth).join('/');
}

/**
 * Which entries a sampled archive keeps: a fraction of the files of each
 * group, seeded; the `keep` entries; the file each kept link resolves to and
 * the links to kept files; and the folders above kept entries. Pure, so it is
 * tested without archives (the entries must have passed assertSafeEntries).
 */
export function planArchiveSample(entries: readonly ArchiveEntry[], options: SampleArchiveOptions): Set<string> {
  const keep = new Set(options.keep ?? []);
  const files = entries
    .filter((e) => e.type !== 'directory')
    .map((e) => e.path)
    .sort(compareCodePoints);
  const chosen = new Set(
    sampleByGroup(
      files.filter((f) => !keep.has(f)),
      (f) => groupOfEntry(f, options.depth),
      (n) => fractionOf(n, options.fraction),
      options.seed,
    ),
  );
  for (const k of keep) if (files.includes(k)) chosen.add(k);
  // A kept link keeps the file it resolves to, and every link to a kept file
  // is kept (links are tiny), so chains of links still resolve in the sample.
  const { paths, copies } = resolveArchiveLinks('<archive>', entries);
  const original = new Map(paths.map((p, i) => [p, entries[i]!.path]));
  for (const c of copies) if (chosen.has(original.get(c.path)!)) chosen.add(original.get(c.from)!);
  for (const c of copies) if (chosen.has(original.get(c.from)!)) chosen.add(original.get(c.path)!);
  const dirs = new Set<string>();
  for (const f of chosen) {
    const parts = f.split('/');
    for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join('/'));
  }
  for (const e of entries) if (e.type === 'directory' && dirs.has(e.path)) chosen.add(e.path);
  return chosen;
}

/**
 * Write a smaller archive of the same kind, keeping a fraction of the files
 * in each top-level folder — streaming entry by entry, never extracting the
 * archive. Entries are checked first (zip-slip, links out, size and count
 * caps). Entry order, names, modes and timestamps are kept, so the same
 * input and seed give the same bytes.
 */
export async function sampleArchive(
  input: string,
  output: string,
  options: SampleArchiveOptions,
): Promise<ArchiveSampleReport> {
  const kind = await detectArchiveKind(input);
  const archiveBytes = (await stat(input)).size;
  await mkdir(path.dirname(output), { recursive: true });
  const tmp = `${output}.partial`;
  let entries: ArchiveEntry[];
  let chosen: Set<string>;
  try {
    if (kind === 'zip') {
      const zip = await openZip(input);
      try {
        const all = await readZipEntries(input, zip);
        entries = all.map((e) => e.entry);
        assertSafeEntries(input, entries, options, archiveBytes);
        chosen = planArchiveSample(entries, options);
        const out = new yazl.ZipFile();
        const done = pipeline(out.outputStream, createWriteStream(tmp));
        for (const { entry, raw } of all) {
          if (!chosen.has(entry.path)) continue;
          const mode = raw.externalFileAttributes >>> 16 || undefined;
          // DOS timestamps in local time both ways, and no UT field: the same bytes in every timezone.
          const mtime = raw.getLastModDate({ timezone: 'local', forceDosFormat: true });
          if (entry.type === 'directory') {
            out.addEmptyDirectory(raw.fileName, { mtime, mode, forceDosTimestamp: true });
            continue;
          }
          out.addReadStreamLazy(
            raw.fileName,
            { mtime, mode, compress: raw.compressionMethod !== 0, forceDosTimestamp: true, size: raw.uncompressedSize },
            (cb) => zip.openReadStream(raw, (err, stream) => cb(err, stream)),
          );
        }
        out.end();
        await done;
      } finally {
        zip.close();
      }
    } else {
      entries = [];
      const list = entries;
      // Counted as read, so a bomb stops at its first oversized header.
      const budget = new ArchiveBudget(input, options, archiveBytes);
      await walkTar(input, (e, read) => {
        budget.add(e);
        list.push(e);
        read.resume();
      });
      assertSafeEntries(input, entries, options, archiveBytes);
      chosen = planArchiveSample(entries, options);
      const pack = new Pack({ gzip: kind === 'tar.gz' ? { level: 6 } : undefined, portable: false, strict: true });
      const ws = createWriteStream(tmp);
      const written = once(ws, 'close');
      pack.pipe(ws);
      const picked = chosen;
      await walkTar(input, (e, read) => {
        if (picked.has(e.path)) pack.add(read);
        else read.resume();
      });
      pack.end();
      await written;
    }
    await rename(tmp, output);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e instanceof JunoError
      ? e
      : new JunoError('E_SUBSAMPLE', `could not write the sampled archive: ${(e as Error).message}`, {
          location: { file: input },
          cause: e,
        });
  }
  const kept = entries.filter((e) => chosen.has(e.path));
  const files = (l: ArchiveEntry[]) => l.filter((e) => e.type !== 'directory');
  const bytes = (l: ArchiveEntry[]) => l.reduce((s, e) => s + e.size, 0);
  return {
    kind,
    entriesBefore: entries.length,
    entriesAfter: kept.length,
    filesBefore: files(entries).length,
    filesAfter: files(kept).length,
    groups: new Set(files(entries).map((e) => groupOfEntry(e.path, options.depth))).size,
    bytesBefore: archiveBytes,
    bytesAfter: (await stat(output)).size,
    contentBytesBefore: bytes(entries),
    contentBytesAfter: bytes(kept),
  };
}
