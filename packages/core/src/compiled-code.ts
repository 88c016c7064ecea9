import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';

// Code generated at build time (tools/build-cli.mjs) so that processes do not compile it at run time: JSON Schema
// validators above all, whose compilation costs every process that validates a few hundred milliseconds. Each set
// lives in a folder named after a key of everything it was made from (`<prefix>-<key>`): a process uses a folder
// only under its own key, and compiles at run time when there is none, so stale code is never run.

/** The folder of one set of generated code. */
export function compiledCodeDir(root: string, prefix: string, key: string): string {
  return path.join(root, `${prefix}-${key}`);
}

/**
 * Writes `files()` (file name → contents) into the folder for `key` (whole, then renamed into place) unless it is
 * there already, and removes the folders of the same prefix under other keys.
 */
export async function writeCompiledCode(options: {
  root: string;
  prefix: string;
  key: string;
  files: () => Map<string, string>;
}): Promise<{ dir: string; written: number }> {
  const { root, prefix } = options;
  const dir = compiledCodeDir(root, prefix, options.key);
  const existing = await readdir(root).catch(() => [] as string[]);
  let written = 0;
  if (!existing.includes(path.basename(dir))) {
    const tmp = path.join(root, `.tmp-${prefix}-${process.pid}-${Date.now().toString(36)}`);
    await mkdir(tmp, { recursive: true });
    try {
      for (const [name, code] of options.files()) {
        await writeFile(path.join(tmp, name), code);
        written++;
      }
      await rename(tmp, dir);
    } catch (e) {
      await rm(tmp, { recursive: true, force: true });
      // Another build renamed the same folder into place first: its contents are the same.
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw e;
      written = 0;
    }
  }
  for (const f of existing) {
    if (f.startsWith(`${prefix}-`) && f !== path.basename(dir))
      await rm(path.join(root, f), { recursive: true, force: true });
  }
  return { dir, written };
}

/**
 * A loader of one set's CommonJS files: `load(name)` is the file's exports, or undefined when the set or the file
 * is missing (or was replaced by a newer build while this process ran): the caller then compiles at run time.
 * `key` is computed on the first load only. JUNOBENCH_COMPILED_CODE=0 makes every load miss (bench/cli-start
 * compares the two).
 */
export function compiledCodeLoader(root: string, prefix: string, key: () => string): (file: string) => unknown {
  const requireHere = createRequire(import.meta.url);
  let dir: string | null | undefined;
  return (file) => {
    if (dir === undefined && process.env.JUNOBENCH_COMPILED_CODE === '0') dir = null;
    if (dir === undefined) {
      try {
        dir = compiledCodeDir(root, prefix, key());
        if (!existsSync(dir)) dir = null;
      } catch {
        dir = null;
      }
    }
    if (dir === null) return undefined;
    try {
      return requireHere(path.join(dir, file)) as unknown;
    } catch {
      return undefined;
    }
  };
}
