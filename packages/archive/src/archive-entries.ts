import { createReadStream } from 'node:fs';
import { open as openFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { Parser, type ReadEntry } from 'tar';
import yauzl from 'yauzl';
import { JunoError, formatBytes } from '@junobench/core';
import type { ArchiveEntry } from './archive-entry.js';
import { resolveArchiveLinks } from './resolve-archive-links.js';

export type { ArchiveEntry } from './archive-entry.js';

export type ArchiveKind = 'zip' | 'tar' | 'tar.gz';

export interface ArchiveLimits {
  /** Most entries accepted (default 1,000,000). */
  maxEntries?: number;
  /** Most bytes of file content accepted, in total (default 16 GiB). */
  maxBytes?: number;
  /**
   * Most bytes of content per byte of archive (default 100): past
   * `ratioFloorBytes`, an archive may not expand to more than this many times
   * its own size. Deflate and gzip top out near 1032:1 and real data sets
   * compress 2–20×; a zip bomb is far past both.
   */
  maxRatio?: number;
  /**
   * Content any archive may expand to whatever its ratio (default 1 GiB): small archives of repetitive data are fine.
   */
  ratioFloorBytes?: number;
}

export const DEFAULT_ARCHIVE_LIMITS: Required<ArchiveLimits> = {
  maxEntries: 1_000_000,
  maxBytes: 16 * 1024 ** 3,
  maxRatio: 100,
  ratioFloorBytes: 1024 ** 3,
};

/**
 * Most content bytes an archive of `archiveBytes` may hold under the limits:
 * the size cap, or the ratio cap when that is lower (never below the floor).
 */
export function contentByteLimit(
  limits: ArchiveLimits,
  archiveBytes: number | undefined,
): { bytes: number; by: 'size' | 'ratio' } {
  const maxBytes = limits.maxBytes ?? DEFAULT_ARCHIVE_LIMITS.maxBytes;
  if (archiveBytes === undefined) return { bytes: maxBytes, by: 'size' };
  const ratio = limits.maxRatio ?? DEFAULT_ARCHIVE_LIMITS.maxRatio;
  const floor = limits.ratioFloorBytes ?? DEFAULT_ARCHIVE_LIMITS.ratioFloorBytes;
  const byRatio = Math.max(floor, ratio * archiveBytes);
  return byRatio < maxBytes ? { bytes: byRatio, by: 'ratio' } : { bytes: maxBytes, by: 'size' };
}

/** zip, tar or tar.gz, from the first bytes (the extension can lie). */
export async function detectArchiveKind(file: string): Promise<ArchiveKind> {
  const fh = await openFile(file, 'r').catch((e: unknown) => {
    throw new JunoError('E_INPUT_NOT_FOUND', 'no such archive', { location: { file }, cause: e });
  });
  try {
    const buf = Buffer.alloc(512);
    const { bytesRead } = await fh.read(buf, 0, 512, 0);
    if (bytesRead >= 4 && buf.readUInt32LE(0) === 0x04034b50) return 'zip';
    if (bytesRead >= 4 && buf.readUInt32LE(0) === 0x06054b50) return 'zip'; // empty zip
    if (bytesRead >= 2 && buf[0] === 0x1f && buf[1] === 0x8b) return 'tar.gz';
    if (bytesRead >= 262 && buf.toString('latin1', 257, 262) === 'ustar') return 'tar';
    if (bytesRead === 512 && /\.tar$/i.test(file)) return 'tar'; // v7 tar: no magic
  } finally {
    await fh.close();
  }
  throw new JunoError('E_INPUT_FORMAT', 'not a zip, tar or tar.gz archive', {
    location: { file },
    hint: 'zip, tar and tar.gz/.tgz archives are read (detected by their first bytes, not their name); is the file complete?',
  });
}

/**
 * Whether an entry path stays inside the folder it is extracted to: no
 * absolute path (`/x`, `C:\x`, `\\server`), no `..` segment, no NUL.
 * Returns the reason it does not, or undefined.
 */
export function unsafeEntryPathReason(name: string): string | undefined {
  if (name.includes('\0')) return 'contains a NUL character';
  const p = name.replace(/\\/g, '/');
  if (p.startsWith('/') || /^[A-Za-z]:/.test(p)) return 'is an absolute path';
  if (p.split('/').some((s) => s === '..')) return 'contains a ".." segment that leaves the target folder';
  return undefined;
}

/** Whether a link target, resolved from the link's own folder, stays inside the root. */
export function linkEscapes(entryPath: string, target: string, kind: 'symlink' | 'hardlink'): boolean {
  const t = target.replace(/\\/g, '/');
  if (t.startsWith('/') || /^[A-Za-z]:/.test(t)) return true;
  // Hard link targets are relative to the archive root; symlink targets to the link's folder.
  const base = kind === 'hardlink' ? '' : path.posix.dirname(entryPath.replace(/\\/g, '/'));
  const resolved = path.posix.normalize(path.posix.join('/root', base, t));
  return !(resolved === '/root' || resolved.startsWith('/root/'));
}

function unsafe(file: string, entry: string, why: string): JunoError {
  return new JunoError('E_UNSAFE_ARCHIVE', `unsafe archive entry "${entry}": ${why}`, {
    location: { file, field: entry },
    hint: 'the archive may be malicious or damaged (zip-slip); repack it without this entry, or get it again from its source',
  });
}

/**
 * Counts entries and content bytes as they are read and throws as soon as a
 * limit is passed, so a bomb is refused at its first oversized header rather
 * than after decompressing it.
 */
export class ArchiveBudget {
  private entries = 0;
  private bytes = 0;
  private readonly maxEntries: number;
  private readonly limit: { bytes: number; by: 'size' | 'ratio' };

  constructor(
    private readonly file: string,
    limits: ArchiveLimits,
    private readonly archiveBytes?: number,
  ) {
    this.maxEntries = limits.maxEntries ?? DEFAULT_ARCHIVE_LIMITS.maxEntries;
    this.limit = contentByteLimit(limits, archiveBytes);
  }

  add(e: ArchiveEntry): void {
    const { file } = this;
    if (++this.entries > this.maxEntries) {
      throw new JunoError(
        'E_UNSAFE_ARCHIVE',
        `more than ${this.maxEntries} entries (entry "${e.path}" is past the limit)`,
        {
          location: { file, field: e.path },
          hint: "if the archive is genuine, raise maxEntries (the archive step's parameters in the subsampling spec)",
        },
      );
    }
    this.bytes += e.size;
    if (this.bytes <= this.limit.bytes) return;
    if (this.limit.by === 'ratio') {
      throw new JunoError(
        'E_UNSAFE_ARCHIVE',
        `the archive (${formatBytes(this.archiveBytes!)}) expands to more than ${formatBytes(this.limit.bytes)}, over ${Math.floor(this.limit.bytes / this.archiveBytes!)} times its size (at entry "${e.path}"): a zip bomb?`,
        {
          location: { file, field: e.path },
          hint: "nothing was extracted; if the archive is genuine (very repetitive data), raise maxRatio (default 100) or ratioFloorBytes in the archive step's parameters",
        },
      );
    }
    throw new JunoError(
      'E_UNSAFE_ARCHIVE',
      `files add up to more than ${this.limit.bytes} bytes (${formatBytes(this.limit.bytes)}, at entry "${e.path}")`,
      {
        location: { file, field: e.path },
        hint: "a zip bomb, or a genuinely large archive: nothing was extracted; raise maxBytes (default 16 GiB) in the archive step's parameters if it is genuine",
      },
    );
  }
}

/**
 * Check every entry (paths, links, counts, sizes, compression ratio when
 * `archiveBytes` is given) and the archive's link rule (resolveArchiveLinks:
 * every link, followed through other links, ends at a file inside); throws
 * E_UNSAFE_ARCHIVE naming the first bad entry.
 */
export function assertSafeEntries(
  file: string,
  entries: readonly ArchiveEntry[],
  limits: ArchiveLimits = {},
  archiveBytes?: number,
): void {
  const budget = new ArchiveBudget(file, limits, archiveBytes);
  for (const e of entries) {
    const why = unsafeEntryPathReason(e.path);
    if (why) throw unsafe(file, e.path, why);
    if ((e.type === 'symlink' || e.type === 'hardlink') && linkEscapes(e.path, e.linkpath ?? '', e.type)) {
      throw unsafe(
        file,
        e.path,
        `${e.type === 'symlink' ? 'symbolic' : 'hard'} link points outside the target folder (to "${e.linkpath}")`,
      );
    }
    budget.add(e);
  }
  resolveArchiveLinks(file, entries);
}

export function openZip(file: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) =>
    yauzl.open(
      file,
      { lazyEntries: true, autoClose: false, decodeStrings: true, validateEntrySizes: true, strictFileNames: false },
      (err, zip) => (err ? reject(zipError(file, err)) : resolve(zip)),
    ),
  );
}

function zipError(file: string, err: unknown): JunoError {
  // yauzl validates entry names itself; report those as unsafe entries like ours.
  const m = /^(invalid relative path|absolute path|invalid characters in fileName): (.*)$/.exec(
    (err as Error)?.message ?? '',
  );
  if (m) {
    const why =
      m[1] === 'absolute path'
        ? 'is an absolute path'
        : m[1] === 'invalid relative path'
          ? 'contains a ".." segment that leaves the target folder'
          : 'contains invalid characters';
    return unsafe(file, m[2]!, why);
  }
  return new JunoError('E_INPUT_FORMAT', `cannot read the zip archive: ${(err as Error).message}`, {
    location: { file },
    hint: 'the archive is damaged or not a zip file; get it again from its source',
    cause: err,
  });
}

export function isZipSymlink(entry: yauzl.Entry): boolean {
  return ((entry.externalFileAttributes >>> 16) & 0o170000) === 0o120000;
}

export function readZipEntryBuffer(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    zip.openReadStream(entry, (err, stream) => {
      if (err) return reject(err);
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => resolve(Buffer.concat(chunks)));
      stream.on('error', reject);
    }),
  );
}

/** Every entry of a zip with its yauzl Entry (in central-directory order). Symlink targets are read (they are tiny). */
export async function readZipEntries(
  file: string,
  zip: yauzl.ZipFile,
): Promise<{ entry: ArchiveEntry; raw: yauzl.Entry }[]> {
  const out: { entry: ArchiveEntry; raw: yauzl.Entry }[] = [];
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (raw: yauzl.Entry) => {
      const isDir = raw.fileName.endsWith('/');
      const name = raw.fileName.replace(/\/+$/, '');
      const record = (entry: ArchiveEntry) => {
        out.push({ entry, raw });
        zip.readEntry();
      };
      if (isZipSymlink(raw)) {
        if (raw.uncompressedSize > 4096)
          return reject(unsafe(file, name, 'a symbolic link with an implausibly long target'));
        readZipEntryBuffer(zip, raw).then(
          (b) => record({ path: name, type: 'symlink', size: 0, linkpath: b.toString('utf8') }),
          (e: unknown) => reject(zipError(file, e)),
        );
        return;
      }
      record({ path: name, type: isDir ? 'directory' : 'file', size: isDir ? 0 : raw.uncompressedSize });
    });
    zip.on('end', () => resolve());
    zip.on('error', (e: unknown) => reject(zipError(file, e)));
    zip.readEntry();
  });
  return out;
}

const TAR_TYPES: Partial<Record<string, ArchiveEntry['type']>> = {
  File: 'file',
  OldFile: 'file',
  ContiguousFile: 'file',
  Directory: 'directory',
  SymbolicLink: 'symlink',
  Link: 'hardlink',
};

/**
 * Stream a tar/tar.gz archive's entries, calling `onEntry` for each (the
 * entry's data must be consumed or resumed by the callback). Device files
 * and FIFOs are refused as unsafe.
 */
export async function walkTar(
  file: string,
  onEntry: (entry: ArchiveEntry, read: ReadEntry) => void | Promise<void>,
): Promise<void> {
  const parser = new Parser({ strict: true });
  let failure: unknown;
  const pending: Promise<void>[] = [];
  const input = createReadStream(file);
  let stop: () => void = () => undefined;
  // The first failure stops reading: a bomb is not decompressed to its end.
  const fail = (e: unknown) => {
    failure ??= e;
    stop();
  };
  parser.on('entry', (read: ReadEntry) => {
    if (failure) return read.resume();
    const type = TAR_TYPES[read.type];
    const name = read.path.replace(/\/+$/, '');
    if (!type) {
      read.resume();
      fail(unsafe(file, name, `entries of type ${read.type} are not accepted`));
      return;
    }
    const entry: ArchiveEntry = { path: name, type, size: type === 'file' ? read.size : 0 };
    if (read.linkpath !== undefined && (type === 'symlink' || type === 'hardlink')) entry.linkpath = read.linkpath;
    try {
      const r = onEntry(entry, read);
      if (r) pending.push(r.catch(fail));
    } catch (e) {
      read.resume();
      fail(e);
    }
  });
  await new Promise<void>((resolve, reject) => {
    stop = () => {
      input.unpipe(parser);
      input.destroy();
      resolve();
    };
    parser.on('error', (e: unknown) => reject(tarError(file, e)));
    parser.on('end', () => resolve());
    input.on('error', (e) => reject(tarError(file, e)));
    input.pipe(parser);
  });
  await Promise.allSettled(pending);
  if (failure) throw failure;
}

function tarError(file: string, e: unknown): unknown {
  if (e instanceof JunoError) return e;
  return new JunoError('E_INPUT_FORMAT', `cannot read the tar archive: ${(e as Error).message}`, {
    location: { file },
    hint: 'the archive is damaged or truncated; get it again from its source',
    cause: e,
  });
}

/**
 * Every entry of an archive, checked for safety (paths, the link rule, entry
 * count, total size and compression ratio). Reads the archive once; extracts
 * nothing. A tar stops at the first entry past a limit.
 */
export async function listArchiveEntries(file: string, limits: ArchiveLimits = {}): Promise<ArchiveEntry[]> {
  const kind = await detectArchiveKind(file);
  const archiveBytes = (await stat(file)).size;
  let entries: ArchiveEntry[];
  if (kind === 'zip') {
    const zip = await openZip(file);
    try {
      entries = (await readZipEntries(file, zip)).map((e) => e.entry);
    } finally {
      zip.close();
    }
  } else {
    entries = [];
    const list = entries;
    const budget = new ArchiveBudget(file, limits, archiveBytes);
    await walkTar(file, (entry, read) => {
      budget.add(entry);
      list.push(entry);
      read.resume();
    });
  }
  assertSafeEntries(file, entries, limits, archiveBytes);
  return entries;
}
