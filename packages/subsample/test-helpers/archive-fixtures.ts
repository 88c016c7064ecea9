// Test-only (a module of this package's test-helpers/ folder, outside src/): imported by tests and benchmarks, never
// from index.ts or library code.
import { createWriteStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { pipeline } from 'node:stream/promises';
import { Header } from 'tar';
import yazl from 'yazl';

export interface FixtureEntry {
  path: string;
  content?: string;
  type?: 'file' | 'directory' | 'symlink' | 'hardlink';
  linkpath?: string;
}

const MTIME = new Date(Date.UTC(2024, 0, 2, 3, 4, 6));

/** A zip of the entries. Unsafe names are written by patching the bytes after yazl (which refuses them). */
export async function writeZip(file: string, entries: FixtureEntry[]): Promise<void> {
  const zip = new yazl.ZipFile();
  const renames: [string, string][] = [];
  entries.forEach((e, i) => {
    let name = e.path;
    if (name.includes('..') || name.startsWith('/')) {
      const safe = `x${String(i).padStart(name.length - 1, '0')}`.slice(0, name.length);
      renames.push([safe, name]);
      name = safe;
    }
    if (e.type === 'directory') zip.addEmptyDirectory(name, { mtime: MTIME });
    else if (e.type === 'symlink') zip.addBuffer(Buffer.from(e.linkpath ?? ''), name, { mtime: MTIME, mode: 0o120777 });
    else zip.addBuffer(Buffer.from(e.content ?? `content of ${e.path}\n`), name, { mtime: MTIME, mode: 0o100644 });
  });
  zip.end();
  const chunks: Buffer[] = [];
  zip.outputStream.on('data', (c: Buffer) => chunks.push(c));
  await new Promise((r) => zip.outputStream.on('end', r));
  const buf = Buffer.concat(chunks);
  for (const [safe, unsafe] of renames) {
    let at = buf.indexOf(safe);
    while (at >= 0) {
      buf.write(unsafe, at, 'latin1');
      at = buf.indexOf(safe, at + 1);
    }
  }
  await writeFile(file, buf);
}

/** A tar (optionally gzipped) built header by header, so unsafe entries can be written too. */
export async function writeTar(file: string, entries: FixtureEntry[], gzip = false): Promise<void> {
  const blocks: Buffer[] = [];
  for (const e of entries) {
    const body = Buffer.from(e.type && e.type !== 'file' ? '' : (e.content ?? `content of ${e.path}\n`));
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
      size: body.length,
      mtime: MTIME,
      type,
      linkpath: e.linkpath,
      uid: 0,
      gid: 0,
    });
    h.encode();
    blocks.push(h.block!);
    if (body.length) blocks.push(body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  const tar = Buffer.concat(blocks);
  await writeFile(file, gzip ? gzipSync(tar) : tar);
}

export async function streamToFile(stream: NodeJS.ReadableStream, file: string): Promise<void> {
  await pipeline(stream, createWriteStream(file));
}
