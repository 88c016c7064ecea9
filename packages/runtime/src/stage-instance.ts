import { chmod, copyFile, link, mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import { folderMaker, readInstanceTree } from '@junobench/core';

/**
 * A view of the instance folder under `root` (an anonymous run folder) for a
 * container to mount: what the container sees of the mount's source in
 * /proc/self/mountinfo is then that folder's path, not the instance's host
 * path (the user's tree, a scoring run's folder with the toolchain's PID).
 * Files are hard links where the file system allows (no copy of the data),
 * copies elsewhere; links inside the instance are materialised, as for a
 * scratch copy (the mount is read-only either way). Returns the folder.
 */
export async function stageInstance(instanceDir: string, root: string): Promise<string> {
  const dir = await mkdtemp(path.join(root, 'i-'));
  // Readable as an instance folder is (mkdtemp makes it private): the notebook's uid lists /instance.
  await chmod(dir, 0o755);
  // Folders one level at a time, never with their parents: if a temp cleaner removed the run folder meanwhile, the
  // staging fails instead of making it again with default modes (folderMaker, as copyInstanceTree's existingDest).
  const makeDir = folderMaker(dir);
  for (const f of await readInstanceTree(instanceDir)) {
    const to = path.join(dir, ...f.rel.split('/'));
    await makeDir(path.dirname(to));
    await link(f.abs, to).catch(() => copyFile(f.abs, to));
  }
  return dir;
}
