import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { crc32, constants as zlibConstants, createDeflateRaw } from 'node:zlib';
import { Header, Pax } from 'tar';
import { JunoError, compareCodePoints, openAtomic } from '@junobench/core';
import type { PlannedFile } from './release-types.js';

/** gzip level of every release archive: part of what makes the bytes reproducible. */
export const ARCHIVE_GZIP_LEVEL = 9;

const BLOCK = 512;
const FILE_MODE = 0o644;
const DIR_MODE = 0o755;

export interface ArchiveDigest {
  bytes: number;
  sha256: string;
  /** sha256 of the uncompressed tar stream: the same on any zlib. */
  tarSha256: string;
}

/**
 * Write `files` as `<top>/<path>` into a .tar.gz, deterministically: entries
 * sorted by path with a folder entry before its contents, every mode fixed
 * (0644 files, 0755 folders), owner and group 0 with empty names, every mtime
 * `mtime` (SOURCE_DATE_EPOCH), PAX headers only where ustar cannot hold a
 * path, and a gzip header without file name or time (like `gzip -n`), level
 * 9. The bytes read from disk are hashed on the way and must match the plan,
 * so a file changed after planning is caught, not archived.
 */
export async function writeReleaseArchive(
  file: string,
  top: string,
  files: readonly PlannedFile[],
  mtime: number,
): Promise<ArchiveDigest> {
  const date = new Date(mtime * 1000);
  const sorted = [...files].sort((a, b) => compareCodePoints(a.path, b.path));
  const dirs = new Set<string>([top]);
  for (const f of sorted) {
    const parts = f.path.split('/');
    for (let i = 1; i < parts.length; i++) dirs.add(`${top}/${parts.slice(0, i).join('/')}`);
  }
  type Entry = { kind: 'dir'; path: string } | { kind: 'file'; path: string; file: PlannedFile };
  const entries: Entry[] = [
    ...[...dirs].map((path): Entry => ({ kind: 'dir', path })),
    ...sorted.map((f): Entry => ({ kind: 'file', path: `${top}/${f.path}`, file: f })),
  ];
  // A folder's entry sorts right before its contents: compare with a trailing "/".
  const key = (e: Entry) => (e.kind === 'dir' ? `${e.path}/` : e.path);
  entries.sort((a, b) => compareCodePoints(key(a), key(b)));

  const out = await openAtomic(file);
  const compressed = createHash('sha256');
  const tarHash = createHash('sha256');
  let compressedBytes = 0;
  let crc = 0;
  let size = 0;
  const deflate = createDeflateRaw({
    level: ARCHIVE_GZIP_LEVEL,
    memLevel: 8,
    windowBits: 15,
    strategy: zlibConstants.Z_DEFAULT_STRATEGY,
  });
  const emit = async (chunk: Buffer) => {
    compressed.update(chunk);
    compressedBytes += chunk.length;
    await out.write(chunk);
  };
  // ID1 ID2 CM FLG | MTIME=0 | XFL=2 (best compression) | OS=3 (Unix), whatever the platform.
  const gzipHeader = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x02, 0x03]);
  let chain = emit(gzipHeader);
  chain.catch(() => undefined);
  // Compressed output waits for the file: deflate pauses until each chunk is written.
  deflate.on('data', (chunk: Buffer) => {
    deflate.pause();
    chain = chain.then(() => emit(chunk)).finally(() => deflate.resume());
    // Awaited at the end; until then a failed write must not count as unhandled.
    chain.catch(() => undefined);
  });
  const ended = new Promise<void>((resolve, reject) => {
    deflate.on('end', resolve);
    deflate.on('error', reject);
  });

  const write = async (chunk: Buffer) => {
    tarHash.update(chunk);
    crc = crc32(chunk, crc);
    size += chunk.length;
    if (!deflate.write(chunk)) await new Promise<void>((r) => deflate.once('drain', () => r()));
  };

  try {
    for (const e of entries) {
      const isDir = e.kind === 'dir';
      const path = isDir ? `${e.path}/` : e.path;
      const bytes = isDir ? 0 : e.file.bytes;
      const header = new Header({
        path,
        mode: isDir ? DIR_MODE : FILE_MODE,
        uid: 0,
        gid: 0,
        size: bytes,
        mtime: date,
        type: isDir ? 'Directory' : 'File',
        uname: '',
        gname: '',
      });
      header.encode();
      if (header.needPax) await write(new Pax({ path, mtime: date }).encode());
      await write(header.block!);
      if (isDir) continue;
      const f = e.file;
      const h = createHash('sha256');
      let n = 0;
      if (f.from === 'generated') {
        const buf = Buffer.from(f.content);
        h.update(buf);
        n = buf.length;
        await write(buf);
      } else {
        for await (const chunk of createReadStream(f.abs)) {
          const b = chunk as Buffer;
          h.update(b);
          n += b.length;
          if (n > f.bytes) break;
          await write(b);
        }
      }
      const digest = h.digest('hex');
      if (n !== f.bytes || digest !== f.sha256) {
        throw new JunoError(
          'E_STATE',
          `${f.path} changed while the release was being written (planned ${f.bytes} bytes, sha256 ${f.sha256.slice(0, 12)}…; read ${n} bytes, ${digest.slice(0, 12)}…)`,
          {
            location: { file: f.from === 'file' ? f.abs : f.path },
            hint: 'do not change curated/ while `junobench release prepare` runs; run it again',
          },
        );
      }
      const pad = (BLOCK - (n % BLOCK)) % BLOCK;
      if (pad > 0) await write(Buffer.alloc(pad));
    }
    await write(Buffer.alloc(2 * BLOCK));
    deflate.end();
    await ended;
    await chain;
    const trailer = Buffer.alloc(8);
    trailer.writeUInt32LE(crc >>> 0, 0);
    trailer.writeUInt32LE(size % 2 ** 32, 4);
    await emit(trailer);
    await out.commit();
  } catch (e) {
    deflate.destroy();
    await out.abort();
    throw e;
  }
  return { bytes: compressedBytes, sha256: compressed.digest('hex'), tarSha256: tarHash.digest('hex') };
}
