// Where the compiled CLI lives and whether it is up to date with the sources.
// Shared by the bin (checked at every start, so it must stay cheap: a stat per
// source file, a hash only of files whose stat changed) and by
// tools/build-cli.mjs (which writes the stamp read here). Plain JavaScript with
// node: imports only: it runs before anything is compiled or registered.
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file is packages/cli/bin/compiled-cli.js). */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
/** Compiled builds: dist/<build id>/main.js, and dist/current.json naming the current one. */
export const DIST_DIR = path.join(REPO_ROOT, 'packages/cli/dist');
export const STAMP_FILE = path.join(DIST_DIR, 'current.json');
/** Bumped when the stamp's shape changes: an older stamp then reads as missing. */
export const STAMP_VERSION = 1;

export function hashFile(file) {
  // node:crypto takes longer to load than the whole check: only when a file must be hashed.
  return process.getBuiltinModule('node:crypto').createHash('sha256').update(readFileSync(file)).digest('hex');
}

/**
 * The compiled CLI if it was built from exactly the sources on disk now.
 * Each input recorded in the stamp ([size, mtimeMs, sha256], paths relative to
 * the repository) is stat'ed; a file whose size and mtime match is unchanged,
 * one whose mtime moved but size did not (a checkout, a touch) is hashed.
 * Returns { fresh: true, entry } or { fresh: false, reason }.
 */
export function checkCompiledCli(stampFile = STAMP_FILE) {
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(stampFile, 'utf8'));
  } catch {
    return { fresh: false, reason: 'the CLI has not been compiled' };
  }
  if (stamp?.version !== STAMP_VERSION || typeof stamp.entry !== 'string' || typeof stamp.inputs !== 'object') {
    return { fresh: false, reason: 'the compiled CLI was made by another version of the build script' };
  }
  for (const [rel, [size, mtimeMs, sha256]] of Object.entries(stamp.inputs)) {
    const file = path.join(REPO_ROOT, rel);
    const st = statSync(file, { throwIfNoEntry: false });
    if (!st) return { fresh: false, reason: `${rel} was removed since the CLI was compiled` };
    if (st.size === size && st.mtimeMs === mtimeMs) continue;
    if (st.size !== size || hashFile(file) !== sha256)
      return { fresh: false, reason: `${rel} changed since the CLI was compiled` };
  }
  const entry = path.join(path.dirname(stampFile), stamp.entry);
  if (!statSync(entry, { throwIfNoEntry: false }))
    return { fresh: false, reason: `${path.relative(REPO_ROOT, entry)} is missing` };
  return { fresh: true, entry, id: stamp.id };
}
