import path from 'node:path';
import {
  isJunoError,
  readJsonFile,
  type JunoError,
  type ProgressListener,
  type ReleaseManifest,
  type VerificationReport,
} from '@junobench/core';
import type { ReleaseProblem } from '@junobench/release';
import type { Runtime } from '@junobench/runtime';

export interface VerifyReleaseOptions {
  /** A release folder, its .tar.gz, or an extracted release. */
  input: string;
  /** Re-execute every instance (the default); false = `--no-run`. */
  run: boolean;
  /** The runtime for the re-run, given the release's manifest (e.g. its pushed image). */
  createRuntime?: (manifest: ReleaseManifest) => Promise<Runtime>;
  jobs?: number;
  onProgress?: ProgressListener;
  /** Where the archive is extracted (a temporary folder inside it, removed at the end). */
  tmpDir?: string;
}

export interface RerunDifference {
  instance: string;
  expected: { status: string; reproduced: string; fixed: string };
  observed: { status: string; reproduced: string; fixed: string };
  message: string;
}

export interface ReleaseRerun {
  runtime: 'local' | 'docker';
  instances: number;
  /** Outcomes that differ from the release's verification.json. */
  differences: RerunDifference[];
  /** Could not be re-checked here (a module this runtime lacks): neither a pass nor a difference. */
  unchecked: { instance: string; reason: string }[];
  /** Skipped-env in the release but verified here: better than released, not a failure. */
  improved: string[];
  report: VerificationReport;
}

export interface ReleaseVerification {
  version: string | null;
  manifest: ReleaseManifest | null;
  archive?: { path: string; bytes: number; sha256: string };
  problems: ReleaseProblem[];
  filesChecked: number;
  bytesChecked: number;
  rerun?: ReleaseRerun;
  /** Why the instances were not re-run although `run` was asked (the static checks failed). */
  rerunRefused?: string;
  /**
   * The re-run was asked but no runtime could be made here (an exit-3 error: environment missing); the checks were
   * done.
   */
  rerunUnavailable?: JunoError;
  /** Everything holds: no problem and no difference. */
  ok: boolean;
}

/**
 * `junobench release verify`: open the release (safe extraction into a
 * temporary folder), run every static check (SHA256SUMS, manifest, schemas,
 * Croissant, cross-file consistency), then unless `run` is false re-verify
 * every instance from the extracted files in a fresh runtime, without any
 * cache, and compare the outcomes with the release's verification.json.
 * A release that failed a static check is never run.
 */
export async function verifyRelease(o: VerifyReleaseOptions): Promise<ReleaseVerification> {
  const { checkRelease, openRelease } = await import('@junobench/release');
  const opened = await openRelease(o.input, o.tmpDir ? { tmpDir: o.tmpDir } : {});
  try {
    const check = await checkRelease(opened);
    const result: ReleaseVerification = {
      version: check.manifest?.version ?? null,
      manifest: check.manifest,
      ...(opened.archive ? { archive: opened.archive } : {}),
      problems: check.problems,
      filesChecked: check.filesChecked,
      bytesChecked: check.bytesChecked,
      ok: false,
    };
    if (o.run && check.problems.length > 0) {
      // Files that are not the released ones: running them would prove nothing, and would run code someone altered.
      result.rerunRefused = `the release failed ${check.problems.length} check${check.problems.length > 1 ? 's' : ''} above: its files are not the ones released, so nothing of it is run`;
    } else if (o.run && check.manifest && o.createRuntime) {
      let runtime: Runtime | undefined;
      try {
        runtime = await o.createRuntime(check.manifest);
      } catch (e) {
        // No runtime here (exit 3: no kernel stack, no engine, no image): the checks above still stand, and are
        // reported.
        if (!isJunoError(e) || e.exitCode !== 3) throw e;
        result.rerunUnavailable = e;
      }
      if (runtime) result.rerun = await rerunRelease(opened.top, check.manifest, runtime, o);
    }
    result.ok =
      result.problems.length === 0 &&
      (result.rerun?.differences.length ?? 0) === 0 &&
      (!o.run || result.rerun !== undefined);
    return result;
  } finally {
    await opened.close();
  }
}

async function rerunRelease(
  top: string,
  manifest: ReleaseManifest,
  runtime: Runtime,
  o: VerifyReleaseOptions,
): Promise<ReleaseRerun> {
  const { verifyInstances } = await import('@junobench/verify');
  const released = await readJsonFile<VerificationReport>(path.join(top, 'verification.json'), {
    schema: 'verification',
  }).catch(() => undefined);
  const expectedById = new Map((released?.instances ?? []).map((v) => [v.instance, v]));
  let report: VerificationReport;
  try {
    report = await verifyInstances({
      instancesDir: path.join(top, 'instances'),
      ids: manifest.instances.map((i) => i.id),
      runtime,
      ...(o.jobs ? { jobs: o.jobs } : {}),
      // No cacheDir: a re-run that could answer from a cache would prove nothing.
      ...(o.onProgress ? { onProgress: o.onProgress } : {}),
    });
  } finally {
    await runtime.close();
  }
  const rerun: ReleaseRerun = {
    runtime: report.runtime,
    instances: report.instances.length,
    differences: [],
    unchecked: [],
    improved: [],
    report,
  };
  for (const m of manifest.instances) {
    const got = report.instances.find((v) => v.instance === m.id);
    const exp = expectedById.get(m.id);
    const expected = {
      status: exp?.status ?? (m.status === 'verified' ? 'verified' : 'skipped'),
      reproduced: exp?.reproduced.outcome ?? m.verification.reproduced,
      fixed: exp?.fixed.outcome ?? m.verification.fixed,
    };
    if (!got) {
      rerun.differences.push({
        instance: m.id,
        expected,
        observed: { status: 'not-run', reproduced: '', fixed: '' },
        message: `${m.id} was not re-run`,
      });
      continue;
    }
    const observed = { status: got.status, reproduced: got.reproduced.outcome, fixed: got.fixed.outcome };
    if (got.status === 'skipped') {
      rerun.unchecked.push({
        instance: m.id,
        reason: got.reproduced.reason ?? got.fixed.reason ?? 'skipped in this runtime',
      });
      continue;
    }
    if (expected.status === 'skipped' && got.status === 'verified') {
      rerun.improved.push(m.id);
      continue;
    }
    if (
      observed.status !== expected.status ||
      observed.reproduced !== expected.reproduced ||
      observed.fixed !== expected.fixed
    ) {
      const why = [
        observed.reproduced !== expected.reproduced
          ? `reproduced ${expected.reproduced} → ${observed.reproduced}${got.reproduced.reason ? ` (${got.reproduced.reason})` : ''}`
          : '',
        observed.fixed !== expected.fixed
          ? `fixed ${expected.fixed} → ${observed.fixed}${got.fixed.reason ? ` (${got.fixed.reason})` : ''}`
          : '',
        observed.status !== expected.status ? `status ${expected.status} → ${observed.status}` : '',
      ].filter(Boolean);
      rerun.differences.push({ instance: m.id, expected, observed, message: `${m.id}: ${why.join('; ')}` });
    }
  }
  return rerun;
}
