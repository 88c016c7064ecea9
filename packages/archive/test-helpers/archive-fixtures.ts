// Test-only: archives written byte by byte, so tests can make any entry an
// attacker could (`..`, absolute names, links through links, lying sizes).
// Not exported from index.ts.
import { writeFile } from 'node:fs/promises';
import { crc32, deflateRawSync, gzipSync, inflateRawSync } from 'node:zlib';
import { Header } from 'tar';

export interface FixtureEntry {
  path: string;
  type?: 'file' | 'directory' | 'symlink' | 'hardlink';
  /** File content (default `content of <path>\n`). */
  content?: string | Buffer;
  linkpath?: string;
  /** A size to declare instead of the real one (a lying header, as bombs have). */
  declaredSize?: number;
  /** Zip only: the name the local header gives, when it should disagree with the central directory's `path`. */
  localPath?: string;
  /** Zip only: written as a local entry that the central directory does not list. */
  hidden?: boolean;
}

const MTIME = new Date(Date.UTC(2024, 0, 2, 3, 4, 6));

function body(e: FixtureEntry): Buffer {
  if (e.type === 'symlink') return Buffer.from(e.linkpath ?? '');
  if (e.type && e.type !== 'file') return Buffer.alloc(0);
  return typeof e.content === 'string' || e.content === undefined
    ? Buffer.from(e.content ?? `content of ${e.path}\n`)
    : e.content;
}

/**
 * A zip of the entries, names verbatim (yazl refuses unsafe ones). Symlinks
 * carry the Unix mode 0120777 and their target as content, as Info-ZIP writes
 * them. `deflate` compresses file contents (for ratio tests).
 */
export function makeZip(
  entries: readonly FixtureEntry[],
  options: { deflate?: boolean; prepend?: Buffer } = {},
): Buffer {
  const local: Buffer[] = options.prepend ? [options.prepend] : [];
  const central: Buffer[] = [];
  let offset = options.prepend?.length ?? 0;
  for (const e of entries) {
    const name = Buffer.from(e.type === 'directory' && !e.path.endsWith('/') ? `${e.path}/` : e.path);
    const localName = e.localPath !== undefined ? Buffer.from(e.localPath) : name;
    const raw = body(e);
    const deflate = options.deflate === true && (e.type ?? 'file') === 'file';
    const data = deflate ? deflateRawSync(raw) : raw;
    const crc = crc32(raw);
    const mode = e.type === 'symlink' ? 0o120777 : e.type === 'directory' ? 0o40755 : 0o100644;
    const head = Buffer.alloc(30);
    head.writeUInt32LE(0x04034b50, 0);
    head.writeUInt16LE(20, 4);
    head.writeUInt16LE(0x0800, 6); // UTF-8 names
    head.writeUInt16LE(deflate ? 8 : 0, 8);
    head.writeUInt16LE(0x2000, 10); // 04:00:00
    head.writeUInt16LE(((2024 - 1980) << 9) | (1 << 5) | 2, 12);
    head.writeUInt32LE(crc, 14);
    head.writeUInt32LE(data.length, 18);
    head.writeUInt32LE(e.declaredSize ?? raw.length, 22);
    head.writeUInt16LE(localName.length, 26);
    head.writeUInt16LE(0, 28);
    local.push(head, localName, data);
    const localLength = head.length + localName.length + data.length;
    if (e.hidden) {
      offset += localLength;
      continue;
    }
    const cd = Buffer.alloc(46);
    cd.writeUInt32LE(0x02014b50, 0);
    cd.writeUInt16LE((3 << 8) | 20, 4); // made by Unix: external attributes hold the mode
    cd.writeUInt16LE(20, 6);
    cd.writeUInt16LE(0x0800, 8);
    cd.writeUInt16LE(deflate ? 8 : 0, 10);
    cd.writeUInt16LE(0x2000, 12);
    cd.writeUInt16LE(((2024 - 1980) << 9) | (1 << 5) | 2, 14);
    cd.writeUInt32LE(crc, 16);
    cd.writeUInt32LE(data.length, 20);
    cd.writeUInt32LE(e.declaredSize ?? raw.length, 24);
    cd.writeUInt16LE(name.length, 28);
    cd.writeUInt32LE((mode << 16) >>> 0, 38);
    cd.writeUInt32LE(offset, 42);
    central.push(cd, name);
    offset += localLength;
  }
  const cdBytes = Buffer.concat(central);
  const listed = central.length / 2;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(listed, 8);
  end.writeUInt16LE(listed, 10);
  end.writeUInt32LE(cdBytes.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...local, cdBytes, end]);
}

/** A tar (optionally gzipped), header by header, so unsafe entries can be written too. */
export function makeTar(entries: readonly FixtureEntry[], options: { gzip?: boolean } = {}): Buffer {
  const blocks: Buffer[] = [];
  for (const e of entries) {
    const data = e.type === 'symlink' ? Buffer.alloc(0) : body(e);
    const type =
      e.type === 'directory'
        ? 'Directory'
        : e.type === 'symlink'
          ? 'SymbolicLink'
          : e.type === 'hardlink'
            ? 'Link'
            : 'File';
    const h = new Header({
      path: e.path,
      mode: e.type === 'directory' ? 0o755 : 0o644,
      size: e.declaredSize ?? data.length,
      mtime: MTIME,
      type,
      linkpath: e.linkpath,
      uid: 0,
      gid: 0,
    });
    h.encode();
    blocks.push(h.block!);
    if (data.length) blocks.push(data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  const tar = Buffer.concat(blocks);
  return options.gzip ? gzipSync(tar) : tar;
}

export async function writeZip(
  file: string,
  entries: readonly FixtureEntry[],
  options: { deflate?: boolean } = {},
): Promise<void> {
  await writeFile(file, makeZip(entries, options));
}

export async function writeTar(file: string, entries: readonly FixtureEntry[], gzip = false): Promise<void> {
  await writeFile(file, makeTar(entries, { gzip }));
}

/**
 * A zip read as a streaming reader reads it (unzipper, behind exceljs): local
 * header after local header from the first byte, sizes from the local
 * headers, until something else starts. Stored and deflated entries only.
 */
export function readLocalEntries(zip: Buffer): { path: string; content: Buffer }[] {
  const out: { path: string; content: Buffer }[] = [];
  let at = 0;
  while (at + 30 <= zip.length && zip.readUInt32LE(at) === 0x04034b50) {
    const method = zip.readUInt16LE(at + 8);
    const packed = zip.readUInt32LE(at + 18);
    const nameLength = zip.readUInt16LE(at + 26);
    const extraLength = zip.readUInt16LE(at + 28);
    const start = at + 30 + nameLength + extraLength;
    const data = zip.subarray(start, start + packed);
    out.push({
      path: zip.toString('utf8', at + 30, at + 30 + nameLength),
      content: method === 8 ? inflateRawSync(data) : Buffer.from(data),
    });
    at = start + packed;
  }
  return out;
}
