import path from 'node:path';
import { JunoError } from '@junobench/core';
import type { ArchiveEntry } from './archive-entry.js';

/** How an archive's entries land on disk: folders, files from their own content, and links written as copies. */
export interface ArchiveLayout {
  /** Normalised path of every entry, in archive order (index = entry index). */
  paths: string[];
  /**
   * Each link (symbolic or hard) → the file entry whose content it stands
   * for. Links are never created on disk: a link inside the archive becomes a
   * regular file with its target's content, as links inside instance folders do.
   */
  copies: { path: string; from: string }[];
}

const MAX_HOPS = 40;

/**
 * The archive's link rule, decided from the entries alone before anything is
 * written. Links are followed through the archive's own namespace — a link's
 * target may pass through other links, and each hop is resolved the way the
 * file system would resolve it after extraction — and every link must end at
 * a regular file entry inside the archive. Refused, with E_UNSAFE_ARCHIVE
 * naming the entry:
 *
 * - a link that leaves the archive's folder, directly or through other links
 *   (`b/d -> ..`, then `p -> b/d/..`);
 * - a link that does not resolve, loops, or ends at a folder (a link to a
 *   folder would have to be extracted as a copy of a tree; repack instead);
 * - an entry under a path that is a link or a file (`p/x` when `p` is a link:
 *   writing it would follow the link), and two entries with the same path.
 *
 * Since no link is ever created and no path holds `..` or is absolute
 * (checked before), every write of an extraction stays inside the target.
 */
export function resolveArchiveLinks(file: string, entries: readonly ArchiveEntry[]): ArchiveLayout {
  const paths = entries.map((e) => normalizeEntryPath(e.path));
  const byPath = new Map<string, number>();
  const implicitDirs = new Set<string>();
  paths.forEach((p, i) => {
    const type = entries[i]!.type;
    if (p === '' && type !== 'directory') throw unsafe(file, entries[i]!.path, 'names the extraction folder itself');
    const seen = byPath.get(p);
    if (seen !== undefined && !(type === 'directory' && entries[seen]!.type === 'directory')) {
      throw unsafe(
        file,
        entries[i]!.path,
        'appears twice in the archive (a later entry would replace or write through the first)',
      );
    }
    byPath.set(p, i);
    const parts = p.split('/');
    for (let k = 1; k < parts.length; k++) implicitDirs.add(parts.slice(0, k).join('/'));
  });
  // Nothing may lie under a file or a link: writing it would follow the link or fail.
  paths.forEach((p, i) => {
    const parts = p.split('/');
    for (let k = 1; k < parts.length; k++) {
      const above = parts.slice(0, k).join('/');
      const at = byPath.get(above);
      if (at !== undefined && entries[at]!.type !== 'directory') {
        const what =
          entries[at]!.type === 'symlink'
            ? 'a symbolic link'
            : entries[at]!.type === 'hardlink'
              ? 'a hard link'
              : 'a file';
        throw unsafe(
          file,
          entries[i]!.path,
          `lies under "${above}", which is ${what} in the archive: extracting it would write through that link`,
        );
      }
    }
  });

  const isDir = (p: string) =>
    p === '' || implicitDirs.has(p) || (byPath.has(p) && entries[byPath.get(p)!]!.type === 'directory');

  /**
   * The real path (a file or folder entry) `target` leads to, resolved from the folder `base`; throws for the link
   * `owner`.
   */
  function follow(owner: number, base: string[], target: string, hops: number): { path: string; dir: boolean } {
    const name = entries[owner]!.path;
    const t = target.replace(/\\/g, '/');
    if (t.startsWith('/') || /^[A-Za-z]:/.test(t))
      throw unsafe(
        file,
        name,
        `is a link to an absolute path ("${target}"): links must stay inside the archive's folder`,
      );
    const cur = [...base];
    const parts = t.split('/').filter((s) => s !== '' && s !== '.');
    for (let k = 0; k < parts.length; k++) {
      const part = parts[k]!;
      if (part === '..') {
        if (cur.length === 0)
          throw unsafe(file, name, `is a link that resolves outside the archive's folder (through "${target}")`);
        cur.pop();
        continue;
      }
      cur.push(part);
      const here = cur.join('/');
      const at = byPath.get(here);
      const last = k === parts.length - 1;
      if (at !== undefined && entries[at]!.type === 'symlink') {
        if (hops >= MAX_HOPS) throw unsafe(file, name, `is a link that loops (more than ${MAX_HOPS} links followed)`);
        const next = follow(owner, cur.slice(0, -1), entries[at]!.linkpath ?? '', hops + 1);
        cur.splice(0, cur.length, ...(next.path === '' ? [] : next.path.split('/')));
        if (!last && !next.dir) throw unsafe(file, name, `is a link whose target goes through the file "${here}"`);
        continue;
      }
      if (at !== undefined && entries[at]!.type === 'hardlink') {
        if (hops >= MAX_HOPS) throw unsafe(file, name, `is a link that loops (more than ${MAX_HOPS} links followed)`);
        const next = follow(owner, [], entries[at]!.linkpath ?? '', hops + 1);
        if (!last || next.dir) throw unsafe(file, name, `is a link whose target goes through the hard link "${here}"`);
        cur.splice(0, cur.length, ...next.path.split('/'));
        continue;
      }
      if (isDir(here)) continue;
      if (at !== undefined) {
        if (!last) throw unsafe(file, name, `is a link whose target goes through the file "${here}"`);
        continue;
      }
      throw unsafe(file, name, `is a link that does not resolve ("${target}": no entry "${here}" in the archive)`);
    }
    const p = cur.join('/');
    return { path: p, dir: isDir(p) };
  }

  const copies: ArchiveLayout['copies'] = [];
  entries.forEach((e, i) => {
    if (e.type !== 'symlink' && e.type !== 'hardlink') return;
    const own = paths[i]!.split('/');
    // Symbolic links resolve from their own folder, hard links from the archive's root.
    const base = e.type === 'symlink' ? own.slice(0, -1) : [];
    const real = follow(i, base, e.linkpath ?? '', 0);
    if (real.dir) {
      throw unsafe(
        file,
        e.path,
        `is a link to the folder "${real.path || '.'}": links to folders are not extracted (replace the link with the folder's files)`,
      );
    }
    copies.push({ path: paths[i]!, from: real.path });
  });
  return { paths, copies };
}

/** `./a//b/` → `a/b` (an entry path already checked for `..` and absolute forms). */
export function normalizeEntryPath(p: string): string {
  return path.posix
    .normalize(p.replace(/\\/g, '/'))
    .replace(/^(\.\/)+/, '')
    .replace(/\/+$/, '')
    .replace(/^\.$/, '');
}

function unsafe(file: string, entry: string, why: string): JunoError {
  return new JunoError('E_UNSAFE_ARCHIVE', `unsafe archive entry "${entry}": ${why}`, {
    location: { file, field: entry },
    hint: 'the archive may be malicious or damaged; repack it with the files themselves instead of links (e.g. `tar --dereference`, or zip without --symlinks), or get it again from its source',
  });
}
