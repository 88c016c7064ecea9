import { mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { JunoError, RAISE_KAPPA_HINT, formatJson, hashFile, sha256, writeFileAtomic } from '@junobench/core';
import { sealCroissant } from './plan-croissant.js';
import { RELEASE_FILES } from './plan-release.js';
import { formatSha256Sums } from './sha256sums.js';
import { writeReleaseArchive, type ArchiveDigest } from './write-release-archive.js';
import type { ReleasePlan, SealedRelease } from './release-types.js';

/**
 * Where a published archive is downloaded from, when the GitHub repository is known; else its name beside
 * croissant.json.
 */
export function archiveDownloadUrl(plan: Pick<ReleasePlan, 'tag' | 'archiveName'>, repository?: string): string {
  return repository
    ? `https://github.com/${repository}/releases/download/${plan.tag}/${plan.archiveName}`
    : plan.archiveName;
}

/**
 * The files of the release folder beside the archive, once its digest is
 * known: manifest.json, README.md and CHANGELOG.md as in the archive,
 * croissant.json with the archive as a FileObject (its sha256), and
 * SHA256SUMS over all of them and the archive. Pure.
 */
export function sealRelease(plan: ReleasePlan, archive: { bytes: number; sha256: string }): SealedRelease {
  const content = (p: string) => {
    const f = plan.files.find((x) => x.path === p);
    if (!f || f.from !== 'generated') throw new JunoError('E_INTERNAL', `the plan has no generated ${p}`);
    return f.content;
  };
  const croissant = sealCroissant(plan.croissant, {
    name: plan.archiveName,
    bytes: archive.bytes,
    sha256: archive.sha256,
    url: archiveDownloadUrl(plan, plan.metadata.repository),
    topFolder: plan.name,
  });
  const files: { name: string; content: string }[] = [
    { name: RELEASE_FILES.manifest, content: content(RELEASE_FILES.manifest) },
    { name: RELEASE_FILES.card, content: content(RELEASE_FILES.card) },
    { name: RELEASE_FILES.changelog, content: content(RELEASE_FILES.changelog) },
    { name: RELEASE_FILES.croissant, content: formatJson(croissant) },
  ];
  const sums = formatSha256Sums([
    { path: plan.archiveName, sha256: archive.sha256 },
    ...files.map((f) => ({ path: f.name, sha256: sha256(f.content) })),
  ]);
  files.push({ name: RELEASE_FILES.sums, content: sums });
  return { archive: { name: plan.archiveName, bytes: archive.bytes, sha256: archive.sha256 }, croissant, files };
}

export interface WrittenRelease {
  dir: string;
  archive: { path: string } & ArchiveDigest;
  sealed: SealedRelease;
}

/**
 * Write a planned release: `<outDir>/junobench-<version>/` with the
 * deterministic archive and the files beside it. Refused (E_RELEASE_REFUSED,
 * exit 1, every reason listed) when the plan has refusals. The folder is
 * assembled beside its final place and swapped in whole, so a failure never
 * leaves half a release. A folder of this version whose archive differs is
 * kept and the write refused (E_STATE, exit 2) unless `replace`: a version is
 * released once, and the same inputs give the same archive, so a re-run is free.
 */
export async function writeRelease(
  plan: ReleasePlan,
  outDir: string,
  options: { replace?: boolean } = {},
): Promise<WrittenRelease> {
  assertReleasable(plan);
  await mkdir(outDir, { recursive: true });
  const final = path.join(outDir, plan.name);
  const tmp = path.join(outDir, `.${plan.name}.partial-${process.pid}`);
  // What a killed prepare left (SIGKILL, a crash of the machine): nothing else removes it.
  for (const name of planStaleReleaseFolders(await readdir(outDir), isAlive))
    await rm(path.join(outDir, name), { recursive: true, force: true });
  await rm(tmp, { recursive: true, force: true });
  await mkdir(tmp, { recursive: true });
  try {
    const archivePath = path.join(tmp, plan.archiveName);
    const digest = await writeReleaseArchive(archivePath, plan.name, plan.files, plan.sourceDateEpoch);
    const sealed = sealRelease(plan, digest);
    for (const f of sealed.files) await writeFileAtomic(path.join(tmp, f.name), f.content);
    const before = options.replace
      ? undefined
      : await hashFile(path.join(final, plan.archiveName)).catch(() => undefined);
    if (before === digest.sha256 && !plan.metadata.repository) {
      // The same archive, prepared again without a GitHub repository: the folder stays as it is, for its
      // croissant.json may carry the download URL `publish --github` gave it (the published asset).
      const kept = await readSealedFiles(final, sealed);
      if (kept) {
        await rm(tmp, { recursive: true, force: true });
        return { dir: final, archive: { path: path.join(final, plan.archiveName), ...digest }, sealed: kept };
      }
    }
    if (before !== undefined && before !== digest.sha256) {
      throw new JunoError(
        'E_STATE',
        `the folder already holds release ${plan.version} with another archive (sha256 ${before}; this one would be ${digest.sha256}): kept as it is`,
        {
          exitCode: 2,
          location: { file: final },
          hint: `a version is released once: prepare a greater version; if ${plan.version} was never published, replace it with \`release prepare ${plan.version} --force\``,
        },
      );
    }
    const old = path.join(outDir, `.${plan.name}.old-${process.pid}`);
    await rename(final, old).catch(() => undefined);
    await rename(tmp, final);
    await rm(old, { recursive: true, force: true });
    return { dir: final, archive: { path: path.join(final, plan.archiveName), ...digest }, sealed };
  } catch (e) {
    await rm(tmp, { recursive: true, force: true });
    throw e;
  }
}

/**
 * Pure: the folders a release write leaves while it runs (`.junobench-<version>.partial-<pid>`, and
 * `.junobench-<version>.old-<pid>` during the swap) whose process no longer runs: a prepare killed there left them.
 * This process's own and those of a live process (another prepare at work) are kept.
 */
export function planStaleReleaseFolders(names: readonly string[], alive: (pid: number) => boolean): string[] {
  return names.filter((name) => {
    const m = /^\.junobench-[^/]+\.(?:partial|old)-([1-9][0-9]{0,9})$/.exec(name);
    if (!m) return false;
    const pid = Number(m[1]);
    return pid !== process.pid && !alive(pid);
  });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it runs, as another user.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The files beside the archive as a folder holds them; undefined when one is missing or croissant.json is not JSON. */
async function readSealedFiles(dir: string, sealed: SealedRelease): Promise<SealedRelease | undefined> {
  const files: { name: string; content: string }[] = [];
  for (const f of sealed.files) {
    const content = await readFile(path.join(dir, f.name), 'utf8').catch(() => undefined);
    if (content === undefined) return undefined;
    files.push({ name: f.name, content });
  }
  try {
    const croissant = JSON.parse(
      files.find((f) => f.name === RELEASE_FILES.croissant)!.content,
    ) as SealedRelease['croissant'];
    return { ...sealed, croissant, files };
  } catch {
    return undefined;
  }
}

/** Throws E_RELEASE_REFUSED listing every refusal of the plan. */
export function assertReleasable(plan: Pick<ReleasePlan, 'refusals' | 'version'>): void {
  if (plan.refusals.length === 0) return;
  throw new JunoError(
    'E_RELEASE_REFUSED',
    `release ${plan.version} refused (${plan.refusals.length} reason${plan.refusals.length === 1 ? '' : 's'}):\n${plan.refusals.map((r) => `  - ${r.message}`).join('\n')}`,
    { hint: planRefusalHint(plan.refusals) },
  );
}

/** What fixes each kind of refusal, for the refusals at hand (and only what does: resolving never raises kappa). */
export function planRefusalHint(refusals: Pick<ReleasePlan, 'refusals'>['refusals']): string {
  const codes = new Set(refusals.map((r) => r.code));
  const fixes: string[] = [];
  if (codes.has('draft'))
    fixes.push('a draft: finish it (its fixed.ipynb, "status": "ready", its labels) or deprecate it');
  if (['not-run', 'not-verified', 'flaky', 'skipped-not-env', 'inconsistent'].some((c) => codes.has(c as never)))
    fixes.push('an instance not verified: fix it, then `junobench build` verifies it again');
  if (codes.has('out-of-date')) fixes.push('curated/ older than raw/: run `junobench build`');
  if (codes.has('agreement-missing')) fixes.push('no agreement: run `junobench build` (its labels stage)');
  if (codes.has('agreement-below-gate')) fixes.push(`agreement below the gate: ${RAISE_KAPPA_HINT}`);
  if (codes.has('version-not-greater')) fixes.push('the version: choose one greater than the previous release');
  if (fixes.length === 0) fixes.push('fix each reason');
  return `${fixes.join('; ')}; then prepare again`;
}
