import {
  writeJsonAtomic,
  type ReleasePrepareReport,
  type ReleaseVerifyReport,
  type VerificationReport,
} from '@junobench/core';
import type { ReleasePlan } from './release-types.js';

/**
 * What `release prepare --json` writes: the plan's version, refusals, warnings, files (path, size, sha256) and
 * changelog, and the archive once written (absent with --dry-run). Pure.
 */
export function planReleasePrepareReport(
  plan: ReleasePlan,
  archive?: { path: string; bytes: number; sha256: string },
): ReleasePrepareReport {
  return {
    version: plan.version,
    refusals: plan.refusals,
    warnings: plan.warnings,
    files: plan.files.map((f) => ({ path: f.path, bytes: f.bytes, sha256: f.sha256 })),
    changelog: plan.changelog,
    ...(archive ? { archive: { path: archive.path, bytes: archive.bytes, sha256: archive.sha256 } } : {}),
  };
}

/** What `release verify` found (pipeline's verifyRelease result), as far as release verify --json reports it. */
export type ReleaseVerifyOutcome = Omit<ReleaseVerifyReport, 'rerun' | 'verification'> & {
  rerun?: NonNullable<ReleaseVerifyReport['rerun']> & { report: VerificationReport };
};

/**
 * What `release verify --json` writes: the checks' findings and, after a re-run, its summary (`rerun`) and its full
 * verification report (`verification`); the parsed manifest is left out (it is in the release). Pure.
 */
export function planReleaseVerifyReport(result: ReleaseVerifyOutcome): ReleaseVerifyReport {
  const r = result.rerun;
  return {
    version: result.version,
    ...(result.archive
      ? { archive: { path: result.archive.path, bytes: result.archive.bytes, sha256: result.archive.sha256 } }
      : {}),
    problems: result.problems,
    filesChecked: result.filesChecked,
    bytesChecked: result.bytesChecked,
    ...(r
      ? {
          rerun: {
            runtime: r.runtime,
            instances: r.instances,
            differences: r.differences,
            unchecked: r.unchecked,
            improved: r.improved,
          },
          verification: r.report,
        }
      : {}),
    ...(result.rerunRefused !== undefined ? { rerunRefused: result.rerunRefused } : {}),
    ok: result.ok,
  };
}

/**
 * Write `release prepare --json <file>` (schemas/release-prepare-report.schema.json), checked first: a report that
 * drifted from its documented format is an internal error (exit 70) and no file, never a file a script then misreads.
 */
export async function writeReleasePrepareReport(file: string, report: ReleasePrepareReport): Promise<void> {
  await writeJsonAtomic(file, report, { schema: 'release-prepare-report' });
}

/**
 * Write `release verify --json <file>` (schemas/release-verify-report.schema.json), checked first like
 * writeReleasePrepareReport.
 */
export async function writeReleaseVerifyReport(file: string, report: ReleaseVerifyReport): Promise<void> {
  await writeJsonAtomic(file, report, { schema: 'release-verify-report' });
}
