import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { JunoError, readJsonFile, sha256, type ReleaseManifest } from '@junobench/core';
import type { GenerateReportResult, Leaderboard } from '@junobench/report';

export interface ReleaseReportOptions {
  /** A release folder (the archive and the files beside it), its .tar.gz, or an extracted release. */
  input: string;
  /** Where the report goes (replaced whole); default `<release folder>/report`. */
  out?: string;
  leaderboard?: Leaderboard;
}

/**
 * `report --release`: the report of a release, from its own files (checked
 * first: a release whose files are not the released ones is not shown as
 * one). Its provenance is the release's: the dataset's version, the
 * toolchain and commit that prepared it, its date (SOURCE_DATE_EPOCH of the
 * prepare), the gate it passed, its deprecated instances, and the files beside
 * the archive with their sha256 and, once published on GitHub, their download
 * URLs. Links to instance files point into the folder the archive extracts to,
 * beside the report's folder (`tar xzf <archive>` there makes them work).
 */
export async function generateReleaseReport(
  o: ReleaseReportOptions,
): Promise<GenerateReportResult & { version: string }> {
  const { checkRelease, openRelease, parseSha256Sums, RELEASE_FILES } = await import('@junobench/release');
  const { generateReport } = await import('@junobench/report');
  const opened = await openRelease(path.resolve(o.input));
  try {
    const check = await checkRelease(opened);
    if (check.problems.length > 0) {
      throw new JunoError(
        'E_STATE',
        `the release does not pass its checks, so it is not reported as one: ${check.problems
          .slice(0, 5)
          .map((p) => `${p.code}: ${p.message}`)
          .join('; ')}${check.problems.length > 5 ? `; and ${check.problems.length - 5} more` : ''}`,
        {
          exitCode: 1,
          location: { file: o.input },
          hint: `junobench release verify ${o.input} --no-run lists every problem`,
        },
      );
    }
    const manifest = await readJsonFile<ReleaseManifest>(path.join(opened.top, RELEASE_FILES.manifest), {
      schema: 'release-manifest',
    });
    const home = opened.outerDir ?? path.dirname(opened.top);
    const out = path.resolve(o.out ?? path.join(home, 'report'));
    const files: { name: string; bytes?: number; sha256: string; url?: string }[] = [];
    let page: string | undefined;
    if (opened.outerDir) {
      const sums = parseSha256Sums(await readFile(path.join(opened.outerDir, RELEASE_FILES.sums), 'utf8'));
      const croissant = JSON.parse(await readFile(path.join(opened.outerDir, RELEASE_FILES.croissant), 'utf8')) as {
        distribution?: { contentUrl?: string }[];
      };
      // Published: the archive's download URL is the GitHub release's, and every asset sits beside it there.
      const archiveUrl = croissant.distribution
        ?.map((d) => d.contentUrl)
        .find((u) => u !== undefined && /^https:\/\/github\.com\/[^/]+\/[^/]+\/releases\/download\//.test(u));
      const base = archiveUrl ? archiveUrl.slice(0, archiveUrl.lastIndexOf('/') + 1) : undefined;
      if (base) page = base.replace('/releases/download/', '/releases/tag/').replace(/\/$/, '');
      for (const l of sums)
        files.push({
          name: l.path,
          sha256: l.sha256,
          ...(opened.archive && l.path === path.basename(opened.archive.path) ? { bytes: opened.archive.bytes } : {}),
          ...(base ? { url: `${base}${l.path}` } : {}),
        });
      const sumsFile = await readFile(path.join(opened.outerDir, RELEASE_FILES.sums));
      files.push({
        name: RELEASE_FILES.sums,
        bytes: sumsFile.length,
        sha256: sha256(sumsFile),
        ...(base ? { url: `${base}${RELEASE_FILES.sums}` } : {}),
      });
    }
    const r = await generateReport({
      from: opened.top,
      out,
      // Where `tar xzf` puts the archive's top folder: beside the report (the release folder).
      linkedFrom: opened.archive ? path.join(home, `${manifest.name.toLowerCase()}-${manifest.version}`) : opened.top,
      provenance: {
        toolchain: {
          version: manifest.toolchain.version,
          commit: manifest.toolchain.commit,
          dirty: manifest.toolchain.dirty,
        },
        datasetVersion: manifest.version,
        builtAt: { iso: manifest.createdAt, source: 'the release was prepared with SOURCE_DATE_EPOCH at this time' },
      },
      deprecated: manifest.deprecated,
      release: { version: manifest.version, files, ...(page ? { page } : {}) },
      ...(o.leaderboard ? { leaderboard: o.leaderboard } : {}),
    });
    return { ...r, version: manifest.version };
  } finally {
    await opened.close();
  }
}
