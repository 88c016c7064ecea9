import { createHash } from 'node:crypto';
import { chmod, copyFile, lstat, mkdir, open, readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { JunoError } from './errors.js';
import { compareCodePoints, hashFile } from './hash.js';

/**
 * One file of an instance folder (or any folder read under the same rule).
 * `abs` is where its bytes really are: for a symbolic link, the resolved
 * target, which the rule guarantees is inside the folder.
 */
export interface TreeFile {
  /** Relative, `/`-separated. */
  rel: string;
  abs: string;
  size: number;
  /** Owner-executable bit of the target (kept when copying; everything else is normalised). */
  executable: boolean;
  /** True when `rel` itself is a symbolic link (its target's content stands in for it). */
  viaLink: boolean;
}

export interface ReadTreeOptions {
  /** Skip these relative paths (and, for folders, everything below). */
  ignore?: (rel: string) => boolean;
}

/** Valid instance ids: the schema's pattern; no separators, no `..`, no leading dot. */
export const INSTANCE_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/**
 * The one check for instance ids given on a command line or read from a file:
 * an id names a folder directly under the instances folder and must never
 * reach outside it (`../x`, `a/b`, absolute paths).
 */
export function validateInstanceId(id: string, where?: { file?: string; field?: string }): string {
  if (!INSTANCE_ID_PATTERN.test(id) || id.includes('..') || id.length > 200) {
    throw new JunoError('E_USAGE', `"${id}" is not a valid instance id`, {
      ...(where ? { location: where } : {}),
      hint: 'an id is a folder name under the instances folder: letters, digits, "_", "-" and "." (not "..", no "/"), e.g. pandas_3',
    });
  }
  return id;
}

/**
 * Every file under `root`, sorted by relative path, under the toolchain's one
 * rule for links (instances are data from the internet):
 *
 * - a symbolic link whose target resolves inside `root` stands for the
 *   target's content (copied, hashed and archived as a regular file), so the
 *   folder means the same wherever it is copied;
 * - a link that resolves outside `root`, a dangling link, a link cycle, or a
 *   special file (FIFO, socket, device) is refused with an error naming it:
 *   following it would let an instance read or change files of the machine
 *   that runs it.
 *
 * Links to folders inside `root` are walked like folders (each real folder
 * once per path, cycles refused).
 */
export async function readInstanceTree(root: string, options: ReadTreeOptions = {}): Promise<TreeFile[]> {
  let realRoot: string;
  try {
    realRoot = await realpath(root);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const out: TreeFile[] = [];
  const inside = (p: string) => p === realRoot || p.startsWith(realRoot + path.sep);

  async function walk(dir: string, prefix: string, ancestors: ReadonlySet<string>): Promise<void> {
    const names = (await readdir(dir)).sort(compareCodePoints);
    for (const name of names) {
      const rel = prefix ? `${prefix}/${name}` : name;
      if (options.ignore?.(rel)) continue;
      const abs = path.join(dir, name);
      const st = await lstat(abs);
      let target = abs;
      let tst = st;
      const viaLink = st.isSymbolicLink();
      if (viaLink) {
        try {
          target = await realpath(abs);
        } catch (e) {
          throw refuse(
            root,
            rel,
            `is a symbolic link that does not resolve (${(e as NodeJS.ErrnoException).code ?? 'error'})`,
          );
        }
        if (!inside(target)) throw refuse(root, rel, 'is a symbolic link to a path outside the instance folder');
        tst = await stat(target);
      }
      if (tst.isDirectory()) {
        const real = viaLink ? target : await realpath(abs);
        if (ancestors.has(real)) throw refuse(root, rel, 'is a symbolic link that loops back to a folder above it');
        await walk(real, rel, new Set([...ancestors, real]));
      } else if (tst.isFile()) {
        out.push({ rel, abs: target, size: tst.size, executable: (tst.mode & 0o100) !== 0, viaLink });
      } else {
        throw refuse(root, rel, 'is not a regular file or folder (a FIFO, socket or device)');
      }
    }
  }
  await walk(realRoot, '', new Set([realRoot]));
  return out.sort((a, b) => compareCodePoints(a.rel, b.rel));
}

function refuse(root: string, rel: string, what: string): JunoError {
  return new JunoError('E_INSTANCE', `${rel} ${what}`, {
    location: { file: path.join(root, rel) },
    hint: 'instances must be self-contained: replace the link with the file itself (or a link to a file inside the instance folder)',
  });
}

/**
 * Copy a folder under the link rule of readInstanceTree: links inside become
 * regular files with the target's content, anything leaving the folder is
 * refused before a byte is written. Files get the umask's default modes (plus
 * the executable bit where the source had it); `dest` must not exist yet or be
 * an empty folder.
 *
 * With `existingDest` (a folder the caller made, such as a runtime's scratch
 * folder in its private run folder), `dest` is never made: when it is gone (a
 * temp cleaner removed the run folder) the copy fails with ENOENT instead of
 * making the path again with default modes, which would leave a run folder
 * readable by other users, with the connection files made in it later. Folders
 * inside `dest` are made one level at a time for the same reason.
 */
export async function copyInstanceTree(
  src: string,
  dest: string,
  options: ReadTreeOptions & { existingDest?: boolean } = {},
): Promise<TreeFile[]> {
  const files = await readInstanceTree(src, options);
  if (!options.existingDest) await mkdir(dest, { recursive: true });
  else if (!(await stat(dest)).isDirectory()) throw new JunoError('E_INTERNAL', `${dest} is not a folder`);
  const root = path.resolve(dest);
  const makeDir = folderMaker(root);
  for (const f of files) {
    const to = path.join(root, ...f.rel.split('/'));
    await makeDir(path.dirname(to));
    // The mode a new file gets here (0666 less the umask): copyFile would
    // carry the source's mode over, and a private raw file must not make a
    // published copy private.
    const fh = await open(to, 'wx');
    const { mode } = await fh.stat();
    await fh.close();
    // copyFile copies bytes, never the link: the target was resolved above.
    await copyFile(f.abs, to);
    await chmod(to, (f.executable ? mode | ((mode & 0o444) >> 2) : mode) & 0o777);
  }
  return files;
}

/**
 * Makes folders under `root` (which must exist) one level at a time, never `root` or its parents: when `root` is
 * removed meanwhile (a temp cleaner), making a folder in it fails with ENOENT instead of making the path again with
 * default modes. Remembers what it made.
 */
export function folderMaker(root: string): (dir: string) => Promise<void> {
  const made = new Set<string>([path.resolve(root)]);
  const makeDir = async (dir: string): Promise<void> => {
    if (made.has(dir) || dir === path.dirname(dir)) return;
    await makeDir(path.dirname(dir));
    await mkdir(dir).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'EEXIST') throw e;
    });
    made.add(dir);
  };
  return (dir) => makeDir(path.resolve(dir));
}

/**
 * Content hash of a folder under the link rule: relative paths and file bytes
 * (a link inside counts as its target's content, so changing the target
 * changes the hash). Timestamps and permissions do not count.
 */
export async function hashInstanceTree(root: string, options: ReadTreeOptions = {}): Promise<string> {
  const h = createHash('sha256');
  for (const f of await readInstanceTree(root, options)) h.update(`F ${f.rel}\0${await hashFile(f.abs)}\0`);
  return h.digest('hex');
}
