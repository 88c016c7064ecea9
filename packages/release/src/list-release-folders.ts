import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';

/** Release folders `junobench-<semver>` directly under a folder, each with its manifest.json. */
export async function listReleaseFolders(outDir: string): Promise<{ version: string; dir: string }[]> {
  const names = await readdir(outDir).catch(() => [] as string[]);
  const out: { version: string; dir: string }[] = [];
  for (const name of names) {
    const m = /^junobench-(.+)$/.exec(name);
    if (!m) continue;
    const dir = path.join(outDir, name);
    if (
      await stat(path.join(dir, 'manifest.json')).then(
        (s) => s.isFile(),
        () => false,
      )
    )
      out.push({ version: m[1]!, dir });
  }
  return out;
}
