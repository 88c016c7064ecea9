import { createWriteStream } from 'node:fs';
import { chmod, copyFile, mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { JunoError } from '@junobench/core';
import {
  detectArchiveKind,
  listArchiveEntries,
  openZip,
  readZipEntries,
  walkTar,
  type ArchiveEntry,
  type ArchiveLimits,
} from './archive-entries.js';
import { resolveArchiveLinks } from './resolve-archive-links.js';

export interface ExtractReport {
  entries: number;
  /** Regular files written from their own content. */
  files: number;
  /** Links (symbolic or hard) written as copies of the file they resolve to. */
  links: number;
  bytes: number;
}

/**
 * Extract an untrusted archive into `targetDir` (which must not exist yet)
 * safely. Every entry is checked before anything is written — no absolute
 * path, no `..`, the link rule of resolveArchiveLinks (links are followed
 * through the archive's own entries, including other links, and must end at a
 * file inside), no device file, at most `maxEntries` entries, `maxBytes` bytes
 * and `maxRatio` times the archive's size — else E_UNSAFE_ARCHIVE naming the
 * entry.
 *
 * Only folders and regular files are created: a link becomes a regular file
 * with its target's content (the rule for links inside instance folders), so
 * nothing written later can be redirected by a link written earlier.
 * Extraction goes to a temporary folder renamed into place, so a failure
 * leaves nothing behind.
 */
export async function extractArchive(
  archive: string,
  targetDir: string,
  limits: ArchiveLimits = {},
): Promise<ExtractReport> {
  const exists = await stat(targetDir).then(
    () => true,
    () => false,
  );
  if (exists) {
    throw new JunoError('E_USAGE', 'the extraction folder already exists', {
      location: { file: targetDir },
      hint: 'extract into a new folder',
    });
  }
  const entries = await listArchiveEntries(archive, limits);
  const layout = resolveArchiveLinks(archive, entries);
  const kind = await detectArchiveKind(archive);
  const tmp = `${targetDir}.partial-${process.pid}`;
  await rm(tmp, { recursive: true, force: true });
  await mkdir(tmp, { recursive: true });
  // Paths were normalised and checked (no `..`, not absolute, nothing under a link or file): joined, they stay in tmp.
  const dest = (i: number) => path.join(tmp, ...layout.paths[i]!.split('/'));
  let index = 0;
  const expect = (entry: ArchiveEntry): number => {
    // The second read must see the entries the check saw, in the same order.
    const i = index++;
    if (entries[i]?.path !== entry.path || entries[i]?.type !== entry.type) {
      throw new JunoError(
        'E_UNSAFE_ARCHIVE',
        `the archive changed while it was read (entry ${i + 1} is "${entry.path}", was "${entries[i]?.path}")`,
        {
          location: { file: archive },
          hint: 'extract it again once nothing is writing to it',
        },
      );
    }
    return i;
  };
  try {
    if (kind === 'zip') {
      const zip = await openZip(archive);
      try {
        for (const { entry, raw } of await readZipEntries(archive, zip)) {
          const i = expect(entry);
          if (entry.type === 'directory') {
            await mkdir(dest(i), { recursive: true });
          } else if (entry.type === 'file') {
            await mkdir(path.dirname(dest(i)), { recursive: true });
            const stream = await new Promise<NodeJS.ReadableStream>((resolve, reject) =>
              zip.openReadStream(raw, (err, s) => (err ? reject(err) : resolve(s))),
            );
            // yauzl checks each entry's real size against its declared size, so the total cap holds.
            await pipeline(stream, createWriteStream(dest(i), { flags: 'wx' }));
            if (((raw.externalFileAttributes >>> 16) & 0o100) !== 0) await makeExecutable(dest(i));
          }
        }
      } finally {
        zip.close();
      }
    } else {
      await walkTar(archive, async (entry, read) => {
        const i = expect(entry);
        if (entry.type === 'directory') {
          read.resume();
          await mkdir(dest(i), { recursive: true });
        } else if (entry.type === 'file') {
          // The parser hands out entries one at a time: write this one before the next arrives.
          read.pause();
          await mkdir(path.dirname(dest(i)), { recursive: true });
          await pipeline(read, createWriteStream(dest(i), { flags: 'wx' }));
          if ((read.mode ?? 0) & 0o100) await makeExecutable(dest(i));
        } else {
          read.resume();
        }
      });
      if (index !== entries.length) {
        throw new JunoError(
          'E_UNSAFE_ARCHIVE',
          'the archive changed while it was read (fewer entries the second time)',
          { location: { file: archive } },
        );
      }
    }
    for (const c of layout.copies) {
      const to = path.join(tmp, ...c.path.split('/'));
      await mkdir(path.dirname(to), { recursive: true });
      await copyFile(path.join(tmp, ...c.from.split('/')), to);
    }
    await rename(tmp, targetDir);
  } catch (e) {
    await rm(tmp, { recursive: true, force: true });
    throw e instanceof JunoError
      ? e
      : new JunoError('E_INPUT_FORMAT', `could not extract the archive: ${(e as Error).message}`, {
          location: { file: archive },
          cause: e,
        });
  }
  return {
    entries: entries.length,
    files: entries.filter((e) => e.type === 'file').length,
    links: layout.copies.length,
    bytes: entries.reduce((s, e) => s + e.size, 0),
  };
}

// Executable where readable, as `chmod +x` under the umask: the file was created with the umask's mode.
async function makeExecutable(file: string): Promise<void> {
  const { mode } = await stat(file);
  await chmod(file, (mode | ((mode & 0o444) >> 2)) & 0o777);
}
