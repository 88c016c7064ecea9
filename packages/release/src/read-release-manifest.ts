import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import semver from 'semver';
import { walkTar } from '@junobench/archive';
import { JunoError, validateOrThrow, type ReleaseManifest } from '@junobench/core';
import { listReleaseFolders } from './list-release-folders.js';

/** The largest manifest.json read from an archive (it lists every file; a bigger one is not ours). */
const MAX_MANIFEST_BYTES = 256 * 1024 * 1024;

/**
 * The manifest of a release, from its folder (releases/junobench-<v>/ or an
 * extracted top folder: manifest.json inside) or its tarball (read from the
 * archive without extracting it). Checked against the schema.
 */
export async function readReleaseManifest(source: string): Promise<ReleaseManifest> {
  const st = await stat(source).catch(() => undefined);
  if (!st) {
    throw new JunoError('E_INPUT_NOT_FOUND', 'no such release', {
      location: { file: source },
      hint: 'pass a release folder (releases/junobench-<version>) or its .tar.gz',
    });
  }
  if (st.isDirectory()) {
    const file = path.join(source, 'manifest.json');
    const text = await readFile(file, 'utf8').catch((e: unknown) => {
      throw new JunoError('E_INPUT_NOT_FOUND', 'this folder holds no release manifest.json', {
        location: { file },
        cause: e,
        hint: 'pass a release folder made by `junobench release prepare`',
      });
    });
    return parseManifest(text, file);
  }
  let found: string | undefined;
  await walkTar(source, async (entry, read) => {
    if (
      found !== undefined ||
      entry.type !== 'file' ||
      !/^[^/]+\/manifest\.json$/.test(entry.path) ||
      entry.size > MAX_MANIFEST_BYTES
    ) {
      read.resume();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const c of read) chunks.push(c as Buffer);
    found = Buffer.concat(chunks).toString('utf8');
  });
  if (found === undefined) {
    throw new JunoError('E_INPUT_FORMAT', 'the archive holds no <top folder>/manifest.json', {
      location: { file: source },
      hint: 'pass a release archive made by `junobench release prepare`',
    });
  }
  return parseManifest(found, `${source}:manifest.json`);
}

function parseManifest(text: string, file: string): ReleaseManifest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new JunoError('E_INPUT_FORMAT', `manifest.json is not valid JSON: ${(e as Error).message}`, {
      location: { file },
      cause: e,
    });
  }
  return validateOrThrow<ReleaseManifest>('release-manifest', value, { file });
}

/**
 * The release folder with the greatest version in `outDir`, other than `version` itself; undefined when there is none.
 */
export async function findPreviousRelease(outDir: string, version: string): Promise<string | undefined> {
  const candidates = (await listReleaseFolders(outDir)).filter((r) => semver.valid(r.version) && r.version !== version);
  candidates.sort((a, b) => semver.compare(b.version, a.version));
  return candidates[0]?.dir;
}
