import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat, symlink } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { extract as tarExtract } from 'tar';
import { JunoError } from '@junobench/core';
import { detectArchiveKind, listArchiveEntries, openZip, readZipEntries, type ArchiveLimits } from './archive-entries.js';

export interface ExtractReport {
  entries: number;
  files: number;
  bytes: number;
}

/**
 * Extract an untrusted archive into `targetDir` (which must not exist yet)
 * safely: every entry is checked before anything is written — no absolute
 * path, no `..`, no symlink or hard link pointing out, no device file, at
 * most `maxEntries` entries and `maxBytes` bytes — else E_UNSAFE_ARCHIVE
 * naming the entry. Extraction goes to a temporary folder renamed into place,
 * so a failure leaves nothing behind.
 */
export async function extractArchive(archive: string, targetDir: string, limits: ArchiveLimits = {}): Promise<ExtractReport> {
  const exists = await stat(targetDir).then(() => true, () => false);
  if (exists) {
    throw new JunoError('E_USAGE', 'the extraction folder already exists', { location: { file: targetDir }, hint: 'extract into a new folder' });
  }
  const entries = await listArchiveEntries(archive, limits);
  const kind = await detectArchiveKind(archive);
  const tmp = `${targetDir}.partial-${process.pid}`;
  await rm(tmp, { recursive: true, force: true });
  await mkdir(tmp, { recursive: true });
  try {
    if (kind === 'zip') {
      const zip = await openZip(archive);
      try {
        for (const { entry, raw } of await readZipEntries(archive, zip)) {
          const dest = path.join(tmp, entry.path);
          if (entry.type === 'directory') {
            await mkdir(dest, { recursive: true });
          } else if (entry.type === 'symlink') {
            await mkdir(path.dirname(dest), { recursive: true });
            await symlink(entry.linkpath!, dest);
          } else {
            await mkdir(path.dirname(dest), { recursive: true });
            const stream = await new Promise<NodeJS.ReadableStream>((resolve, reject) =>
              zip.openReadStream(raw, (err, s) => (err ? reject(err) : resolve(s))),
            );
            // yauzl checks each entry's real size against its declared size, so the total cap holds.
            await pipeline(stream, createWriteStream(dest, { flags: 'wx' }));
          }
        }
      } finally {
        zip.close();
      }
    } else {
      await tarExtract({ file: archive, cwd: tmp, strict: true, preservePaths: false, preserveOwner: false, noChmod: false });
    }
    await rename(tmp, targetDir);
  } catch (e) {
    await rm(tmp, { recursive: true, force: true });
    throw e instanceof JunoError
      ? e
      : new JunoError('E_INPUT_FORMAT', `could not extract the archive: ${(e as Error).message}`, { location: { file: archive }, cause: e });
  }
  return {
    entries: entries.length,
    files: entries.filter((e) => e.type === 'file').length,
    bytes: entries.reduce((s, e) => s + e.size, 0),
  };
}
