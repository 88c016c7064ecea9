import { open, rm, stat } from 'node:fs/promises';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { crc32, createDeflateRaw } from 'node:zlib';
import { JunoError, formatBytes } from '@junobench/core';
import {
  assertSafeEntries,
  openZip,
  readZipEntries,
  type ArchiveEntry,
  type ArchiveLimits,
} from './archive-entries.js';

const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;
const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const UTF8_NAMES = 0x0800;
// 1980-01-01 00:00 in DOS time: the copy does not depend on when it was made.
const DOS_DATE = (1 << 5) | 1;
const MAX_U32 = 0xffffffff;
const MAX_U16 = 0xffff;

/**
 * Rewrite an untrusted zip as a plain one that holds exactly what was checked.
 *
 * A zip has two descriptions of its content: the central directory at its
 * end (what yauzl, and so listArchiveEntries, reads) and a local header
 * before each entry's data (what a streaming reader such as unzipper, behind
 * exceljs, reads from the start). A crafted zip can make them disagree: local
 * entries the directory does not list, a local header naming another file or
 * size, a whole second zip before the first entry. Handing such a file to a
 * streaming reader after checking its directory lets unchecked content
 * through. The copy written here has one local header per directory entry,
 * in directory order (unless `options.rank` says otherwise), with the same
 * name and size, nothing before, between or after them but the new directory.
 *
 * Every entry is checked as in listArchiveEntries (paths, links, `limits`
 * including the ratio to the file's size) before anything is read, then read
 * once through yauzl, which stops at the first byte past the size the entry
 * declares (E_UNSAFE_ARCHIVE naming the entry). Contents are deflated anew,
 * with their CRC-32 and sizes in both headers (no data descriptors: a
 * streaming reader finds an entry's end by its size, never by searching for a
 * signature). Deflated rather than stored: unzipper's streaming parser
 * (exceljs 4.4) lost entries of a stored copy in 8 of 30 reads of one small
 * workbook, and none of the deflated original. Only files are copied: folders are implied
 * by the files' paths, and a link entry would reach a reader as a file whose
 * content is the link's target. `dest` must not exist; it is removed on
 * failure. Returns the files copied, in order.
 *
 * `options.rank` reorders the copy for a streaming reader that needs some
 * entries before others (lower rank first; equal ranks keep directory order).
 */
export async function writeCheckedZip(
  file: string,
  dest: string,
  limits: ArchiveLimits = {},
  options: { rank?: (path: string) => number } = {},
): Promise<ArchiveEntry[]> {
  const archiveBytes = (await stat(file)).size;
  const zip = await openZip(file);
  try {
    const entries = await readZipEntries(file, zip);
    assertSafeEntries(
      file,
      entries.map((e) => e.entry),
      limits,
      archiveBytes,
    );
    const rank = options.rank;
    const listed = entries.filter((e) => e.entry.type === 'file');
    // Array.prototype.sort is stable: equal ranks keep the directory's order.
    const files = rank ? [...listed].sort((a, b) => rank(a.entry.path) - rank(b.entry.path)) : listed;
    if (files.length > MAX_U16) throw tooLargeToCopy(file, `${files.length} files`);
    const out = await open(dest, 'wx');
    try {
      const central: Buffer[] = [];
      let offset = 0;
      for (const { entry, raw } of files) {
        const name = Buffer.from(entry.path, 'utf8');
        if (name.length > MAX_U16) throw tooLargeToCopy(file, `a name of ${name.length} bytes`, entry.path);
        const headerAt = offset;
        const header = Buffer.alloc(30);
        await out.write(header, 0, header.length, headerAt);
        await out.write(name, 0, name.length, headerAt + header.length);
        offset += header.length + name.length;
        let crc = 0;
        let size = 0;
        let packed = 0;
        try {
          const stream = await new Promise<NodeJS.ReadableStream>((resolve, reject) =>
            zip.openReadStream(raw, (err, s) => (err ? reject(err) : resolve(s))),
          );
          const measure = new Transform({
            transform(chunk: Buffer, _encoding, done) {
              crc = crc32(chunk, crc);
              size += chunk.length;
              done(null, chunk);
            },
          });
          await pipeline(stream, measure, createDeflateRaw({ level: 1 }), async (chunks: AsyncIterable<Buffer>) => {
            for await (const chunk of chunks) {
              if (offset + chunk.length > MAX_U32)
                throw tooLargeToCopy(file, `more than ${formatBytes(MAX_U32)}`, entry.path);
              await out.write(chunk, 0, chunk.length, offset);
              offset += chunk.length;
              packed += chunk.length;
            }
          });
        } catch (e) {
          throw entryReadError(file, entry, e);
        }
        writeEntryFields(header, 4, crc, packed, size, name.length);
        header.writeUInt32LE(LOCAL_HEADER, 0);
        await out.write(header, 0, header.length, headerAt);
        const cd = Buffer.alloc(46);
        cd.writeUInt32LE(CENTRAL_HEADER, 0);
        cd.writeUInt16LE((3 << 8) | 20, 4); // made by Unix, so the external attributes are a mode
        writeEntryFields(cd, 6, crc, packed, size, name.length);
        cd.writeUInt32LE((0o100644 << 16) >>> 0, 38);
        cd.writeUInt32LE(headerAt, 42);
        central.push(cd, name);
      }
      const directory = Buffer.concat(central);
      const end = Buffer.alloc(22);
      end.writeUInt32LE(END_OF_CENTRAL_DIRECTORY, 0);
      end.writeUInt16LE(files.length, 8);
      end.writeUInt16LE(files.length, 10);
      end.writeUInt32LE(directory.length, 12);
      end.writeUInt32LE(offset, 16);
      if (offset + directory.length > MAX_U32) throw tooLargeToCopy(file, `more than ${formatBytes(MAX_U32)}`);
      await out.write(Buffer.concat([directory, end]), 0, directory.length + end.length, offset);
      await out.truncate(offset + directory.length + end.length);
    } catch (e) {
      await out.close();
      await rm(dest, { force: true });
      throw e;
    }
    await out.close();
    return files.map((f) => f.entry);
  } finally {
    zip.close();
  }
}

/**
 * The fields a local header (at 4) and a central header (at 6) share: version, flags, method, time, CRC, sizes, name
 * length.
 */
function writeEntryFields(h: Buffer, at: number, crc: number, packed: number, size: number, nameLength: number): void {
  h.writeUInt16LE(20, at); // version needed to extract
  h.writeUInt16LE(UTF8_NAMES, at + 2);
  h.writeUInt16LE(8, at + 4); // deflated
  h.writeUInt16LE(0, at + 6); // time
  h.writeUInt16LE(DOS_DATE, at + 8);
  h.writeUInt32LE(crc, at + 10);
  h.writeUInt32LE(packed, at + 14);
  h.writeUInt32LE(size, at + 18);
  h.writeUInt16LE(nameLength, at + 22);
  h.writeUInt16LE(0, at + 24); // no extra field
}

function entryReadError(file: string, entry: ArchiveEntry, e: unknown): unknown {
  if (e instanceof JunoError) return e;
  const message = (e as Error)?.message ?? String(e);
  if (/^too many bytes in the stream/.test(message)) {
    return new JunoError(
      'E_UNSAFE_ARCHIVE',
      `entry "${entry.path}" inflates to more than the ${formatBytes(entry.size)} its header declares: a zip bomb?`,
      {
        location: { file, field: entry.path },
        hint: 'the archive is damaged or crafted: nothing was read from it; get it again from its source',
        cause: e,
      },
    );
  }
  return new JunoError('E_INPUT_FORMAT', `cannot read entry "${entry.path}" of the zip archive: ${message}`, {
    location: { file, field: entry.path },
    hint: 'the archive is damaged or not a zip file; get it again from its source',
    cause: e,
  });
}

function tooLargeToCopy(file: string, what: string, entry?: string): JunoError {
  return new JunoError(
    'E_UNSAFE_ARCHIVE',
    `the archive holds ${what}${entry ? ` (at entry "${entry}")` : ''}: too large to copy without ZIP64`,
    {
      location: { file, ...(entry ? { field: entry } : {}) },
      hint: 'lower the archive limits (maxBytes, maxEntries) so such an archive is refused before it is read',
    },
  );
}
