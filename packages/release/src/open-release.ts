import { lstat, mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { extractArchive, listArchiveEntries } from '@junobench/archive';
import { JunoError, hashFile, sha256 } from '@junobench/core';
import { checkCroissant } from './check-croissant.js';
import { checkReleaseTree, type ReleaseProblem, type ReleaseTreeCheck } from './check-release-tree.js';
import { RELEASE_FILES } from './plan-release.js';
import { parseSha256Sums } from './sha256sums.js';

export interface OpenedRelease {
  /** The release's top folder (extracted, or given). */
  top: string;
  /** The archive, when one was given or found in the release folder. */
  archive?: { path: string; bytes: number; sha256: string };
  /** The release folder beside the archive (SHA256SUMS, croissant.json…), when there is one. */
  outerDir?: string;
  /** Problems found before anything was extracted (the release folder's own files, the archive's layout). */
  problems: ReleaseProblem[];
  /** sha256 of manifest.json beside the archive: it must be the one inside. */
  outerManifestSha256?: string;
  /** Removes what was extracted. */
  close(): Promise<void>;
}

/**
 * Open a release for checking: a release folder (the archive with
 * SHA256SUMS and the files beside it), a tarball, or an already extracted
 * top folder (manifest.json inside). Archives are extracted with
 * @junobench/archive's safe extraction (no entry may leave the folder) into
 * a temporary folder; the files beside the archive are checked on the way.
 */
export async function openRelease(input: string, options: { tmpDir?: string } = {}): Promise<OpenedRelease> {
  const st = await stat(input).catch(() => undefined);
  if (!st) {
    throw new JunoError('E_INPUT_NOT_FOUND', 'no such release', {
      location: { file: input },
      hint: 'pass a release folder (releases/junobench-<version>), its .tar.gz, or an extracted release',
    });
  }
  const problems: ReleaseProblem[] = [];
  let archivePath: string | undefined;
  let outerDir: string | undefined;
  if (st.isDirectory()) {
    const names = await readdir(input);
    const tarballs = names.filter((n) => /^junobench-.+\.tar\.gz$/.test(n));
    if (names.includes(RELEASE_FILES.manifest) && names.includes('instances')) {
      return { top: path.resolve(input), problems, close: async () => undefined };
    }
    if (tarballs.length !== 1) {
      throw new JunoError(
        'E_INPUT_FORMAT',
        tarballs.length === 0
          ? 'this folder holds no release archive (junobench-<version>.tar.gz) and is not an extracted release'
          : `this folder holds ${tarballs.length} release archives`,
        {
          location: { file: input },
          hint: 'pass the archive itself, or the folder `junobench release prepare` wrote',
        },
      );
    }
    archivePath = path.join(input, tarballs[0]!);
    outerDir = path.resolve(input);
  } else {
    archivePath = input;
    // A tarball in its release folder: check the files beside it too.
    const dir = path.dirname(path.resolve(input));
    const sums = await readOuterFile(dir, RELEASE_FILES.sums).catch(() => undefined);
    if (sums !== undefined && parseSha256Sums(sums.toString('utf8')).some((l) => l.path === path.basename(input)))
      outerDir = dir;
  }

  const archiveStat = await stat(archivePath);
  if (!archiveStat.isFile()) {
    // A FIFO or a device would never end (a symlink to /dev/zero in a downloaded folder).
    throw new JunoError('E_INPUT_FORMAT', 'the release archive is not a regular file', {
      location: { file: archivePath },
      hint: 'pass the .tar.gz that `junobench release prepare` wrote',
    });
  }
  const archive = { path: path.resolve(archivePath), bytes: archiveStat.size, sha256: await hashFile(archivePath) };
  let outerManifestSha256: string | undefined;
  if (outerDir) {
    const outer = await checkOuterFiles(outerDir, archive);
    problems.push(...outer.problems);
    outerManifestSha256 = outer.manifestSha256;
  }

  const entries = await listArchiveEntries(archivePath).catch((e: unknown) => {
    throw releaseArchiveError(e, archivePath);
  });
  const tops = [...new Set(entries.map((e) => e.path.split('/')[0]!))];
  const expected = path.basename(archivePath).replace(/\.tar\.gz$/, '');
  if (tops.length !== 1)
    problems.push({
      code: 'layout',
      path: path.basename(archivePath),
      message: `the archive has ${tops.length} top-level entries (${tops.slice(0, 5).join(', ')}); a release has one top folder`,
    });
  else if (tops[0] !== expected)
    problems.push({
      code: 'layout',
      path: path.basename(archivePath),
      message: `the archive's top folder is ${tops[0]}, expected ${expected}`,
    });

  const tmp = await mkdtemp(path.join(options.tmpDir ?? os.tmpdir(), 'junobench-release-'));
  const close = () => rm(tmp, { recursive: true, force: true });
  try {
    await extractArchive(archivePath, path.join(tmp, 'x'));
  } catch (e) {
    await close();
    throw releaseArchiveError(e, archivePath);
  }
  const top = path.join(tmp, 'x', tops.length === 1 ? tops[0]! : expected);
  if (
    !(await stat(top).then(
      (s) => s.isDirectory(),
      () => false,
    ))
  ) {
    await close();
    throw new JunoError('E_INPUT_FORMAT', `the archive holds no folder ${expected}/`, {
      location: { file: archivePath },
      hint: 'pass an archive made by `junobench release prepare`',
    });
  }
  return {
    top,
    archive,
    ...(outerDir ? { outerDir } : {}),
    ...(outerManifestSha256 ? { outerManifestSha256 } : {}),
    problems,
    close,
  };
}

/**
 * The release folder beside the archive: SHA256SUMS, the Croissant file with the archive's digest, manifest.json as in
 * the archive.
 */
async function checkOuterFiles(
  dir: string,
  archive: { path: string; bytes: number; sha256: string },
): Promise<{ problems: ReleaseProblem[]; manifestSha256?: string }> {
  const problems: ReleaseProblem[] = [];
  const name = path.basename(archive.path);
  let sumsText: string | undefined;
  try {
    sumsText = (await readOuterFile(dir, RELEASE_FILES.sums))?.toString('utf8');
  } catch (e) {
    problems.push({ code: 'outer', path: RELEASE_FILES.sums, message: (e as Error).message });
    return { problems };
  }
  if (sumsText === undefined) {
    problems.push({
      code: 'outer',
      path: RELEASE_FILES.sums,
      message: `the release folder has no SHA256SUMS beside ${name}`,
    });
    return { problems };
  }
  for (const line of parseSha256Sums(sumsText, path.join(dir, RELEASE_FILES.sums))) {
    if (!isOuterName(line.path)) {
      // Never opened: a downloaded SHA256SUMS could name ../../etc/shadow or /dev/zero.
      problems.push({
        code: 'outer',
        path: shown(line.path),
        message: `the release folder's SHA256SUMS names ${shown(line.path)}, which is not a file of the release folder itself (a release lists only names beside its archive)`,
      });
      continue;
    }
    let actual: string | undefined;
    try {
      actual =
        line.path === name
          ? archive.sha256
          : (await outerFileStat(dir, line.path))
            ? await hashFile(path.join(dir, line.path))
            : undefined;
    } catch (e) {
      problems.push({ code: 'outer', path: line.path, message: (e as Error).message });
      continue;
    }
    if (actual === undefined)
      problems.push({
        code: 'outer',
        path: line.path,
        message: `${line.path} is listed in the release folder's SHA256SUMS but missing`,
      });
    else if (actual !== line.sha256)
      problems.push({
        code: 'outer',
        path: line.path,
        message: `${line.path}: sha256 differs from the release folder's SHA256SUMS`,
      });
  }
  let outerManifest: Buffer | undefined;
  try {
    outerManifest = await readOuterFile(dir, RELEASE_FILES.manifest);
  } catch (e) {
    problems.push({ code: 'outer', path: RELEASE_FILES.manifest, message: (e as Error).message });
  }
  return outerManifest === undefined ? { problems } : { problems, manifestSha256: sha256(outerManifest) };
}

/** The most a file beside the archive may hold when read whole (they are a few KB; the archive itself is streamed). */
const OUTER_FILE_MAX_BYTES = 64 * 1024 * 1024;

/** A plain name of the release folder itself: no folder part, no `..`, nothing absolute. */
function isOuterName(name: string): boolean {
  return name !== '' && name !== '.' && name !== '..' && !/[/\\\0]/.test(name);
}

/** A hostile name quoted in a message: control characters escaped, at most 120 characters. */
function shown(name: string): string {
  const escaped = JSON.stringify(name).slice(1, -1);
  return escaped.length > 120 ? `${escaped.slice(0, 120)}… (${name.length} characters)` : escaped;
}

/**
 * The size of `name` in the release folder, undefined when it is not there;
 * an error when it is something other than a regular file (a symlink, a FIFO,
 * a device: a downloaded folder's entries are not followed or opened).
 */
async function outerFileStat(dir: string, name: string): Promise<number | undefined> {
  const st = await lstat(path.join(dir, name)).catch(() => undefined);
  if (!st) return undefined;
  if (!st.isFile())
    throw new Error(
      `${name} in the release folder is not a regular file (${st.isSymbolicLink() ? 'a symbolic link' : st.isDirectory() ? 'a folder' : 'a special file'}); a release folder holds plain files only`,
    );
  return st.size;
}

/**
 * A small file of the release folder, read whole after the checks of outerFileStat and a size cap; undefined when
 * absent.
 */
async function readOuterFile(dir: string, name: string): Promise<Buffer | undefined> {
  const size = await outerFileStat(dir, name);
  if (size === undefined) return undefined;
  if (size > OUTER_FILE_MAX_BYTES)
    throw new Error(
      `${name} in the release folder is ${size} bytes, more than the ${OUTER_FILE_MAX_BYTES} a release's ${name} can be`,
    );
  return readFile(path.join(dir, name));
}

/**
 * Every check of an opened release that runs nothing: the problems found
 * while opening it, the extracted folder (checkReleaseTree), and beside the
 * archive, its croissant.json (the archive's digest, every reference into
 * the archive) and manifest.json (byte for byte the one inside).
 */
export async function checkRelease(opened: OpenedRelease): Promise<ReleaseTreeCheck> {
  const tree = await checkReleaseTree(opened.top);
  const problems = [...opened.problems, ...tree.problems];
  if (opened.outerDir && opened.archive) {
    const name = path.basename(opened.archive.path);
    let text: string | undefined;
    let unreadable: string | undefined;
    try {
      text = (await readOuterFile(opened.outerDir, RELEASE_FILES.croissant))?.toString('utf8');
    } catch (e) {
      unreadable = (e as Error).message;
    }
    if (text === undefined) {
      problems.push({
        code: 'outer',
        path: RELEASE_FILES.croissant,
        message: unreadable ?? `the release folder has no croissant.json beside ${name}`,
      });
    } else {
      let doc: unknown;
      try {
        doc = JSON.parse(text);
      } catch (e) {
        problems.push({
          code: 'outer',
          path: RELEASE_FILES.croissant,
          message: `croissant.json beside the archive is not valid JSON: ${(e as Error).message}`,
        });
      }
      if (doc !== undefined) {
        const issues = checkCroissant(doc, {
          files: tree.files,
          csvText: tree.csvText,
          archive: { name, bytes: opened.archive.bytes, sha256: opened.archive.sha256 },
          topFolder: path.basename(opened.top),
          ...(tree.manifest ? { version: tree.manifest.version } : {}),
        });
        for (const i of issues)
          problems.push({
            code: 'outer',
            path: RELEASE_FILES.croissant,
            message: `croissant.json beside the archive: ${i.at}: ${i.message}`,
          });
        const distribution = (doc as { distribution?: { containedIn?: unknown; name?: string }[] }).distribution ?? [];
        if (!distribution.some((d) => d.name === name && !d.containedIn)) {
          problems.push({
            code: 'outer',
            path: RELEASE_FILES.croissant,
            message: `croissant.json beside the archive does not describe ${name}`,
          });
        }
      }
    }
  }
  if (opened.outerManifestSha256 !== undefined) {
    const inner = await hashFile(path.join(opened.top, RELEASE_FILES.manifest)).catch(() => undefined);
    if (inner !== undefined && inner !== opened.outerManifestSha256) {
      problems.push({
        code: 'outer',
        path: RELEASE_FILES.manifest,
        message: 'manifest.json beside the archive differs from the one inside it',
      });
    }
  }
  return { ...tree, problems };
}

/**
 * An unsafe release archive, with the hint that fits a release: the archive checks' own hints name the subsampling
 * step's parameters (raise maxRatio…), which `release verify` has none of. A release's archive is gzip over notebooks
 * and data, never near the limits: one past them is damaged or not a release.
 */
function releaseArchiveError(e: unknown, archive: string): unknown {
  if (!(e instanceof JunoError) || e.code !== 'E_UNSAFE_ARCHIVE') return e;
  return new JunoError('E_UNSAFE_ARCHIVE', `not a safe release archive: ${e.message}`, {
    location: e.location ?? { file: archive },
    hint: 'nothing was extracted; a genuine release archive is never refused this way: it is damaged or not a release — download it again from where it was published and check it against its SHA256SUMS',
    cause: e,
  });
}
