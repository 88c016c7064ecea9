import { mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  compareCodePoints,
  formatJson,
  readJsonFile,
  writeFileAtomic,
  type Benchmark,
  type ReleaseImagePush,
  type VerificationReport,
} from '@junobench/core';
import type { ReleasePlan, WrittenRelease } from '@junobench/release';
import { formatBenchmarkCsv } from '@junobench/benchmark';
import { checkBuildSources } from '@junobench/build-lock';

/** The toolchain's own checkout: its version and commit go into every manifest. */
const TOOLCHAIN_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export interface PrepareReleaseOptions {
  version: string;
  /** The curated benchmark. */
  curatedDir: string;
  /** Where release folders live (releases/). */
  outDir: string;
  /** Previous release (folder or tarball); default the latest in outDir. */
  previous?: string;
  /** Rendered Dockerfiles and lock files (docker/). */
  recipeDir: string;
  /** raw/deprecated.json */
  deprecatedFile: string;
  /** raw/release.json (optional file) */
  metadataFile: string;
  /**
   * raw/instances: drafts there are refused even when the build left them out; the report lists those outside the
   * benchmark.
   */
  rawInstancesDir?: string;
  /**
   * raw/annotations: after a deprecation, the agreement figures are recomputed
   * from the remaining instances' annotations. Unset or absent: the curated
   * figures are carried, and the card says they include the deprecated instances.
   */
  annotationsDir?: string;
  profile?: string;
  /** SOURCE_DATE_EPOCH when set; else the toolchain's commit time. */
  sourceDateEpoch?: number;
  /** The pushed image (publish), named in the manifest. */
  imagePush?: ReleaseImagePush | null;
  /** owner/repo of the GitHub releases (download URL in the Croissant file beside the archive). */
  repository?: string;
  minKappa?: number;
  /** Plan only: nothing is written. */
  dryRun?: boolean;
  /** Write the release folder here instead of outDir (outDir is still where the previous release is looked for). */
  writeDir?: string;
  /** Replace a folder of this version whose archive differs (else refused: a version is released once). */
  replace?: boolean;
  /**
   * The project root the build ran in: the sources its lock (curated/.build-lock.json)
   * records are compared with the files now, and a release of a curated/ older
   * than raw/ is refused. Unset: not checked.
   */
  buildRoot?: string;
  /** Override the toolchain identity (tests). */
  toolchain?: { version: string; commit: string | null; dirty: boolean | null; commitTime?: number | null };
}

export interface PreparedRelease {
  plan: ReleasePlan;
  written?: WrittenRelease;
}

/**
 * `junobench release prepare`: read curated/ (as it would be without the
 * deprecated instances), the image recipe, the deprecation list and the
 * previous release; plan the release; write it unless this is a dry run.
 * Refusals are in the plan; writeRelease turns them into an error listing
 * each.
 */
export async function prepareRelease(o: PrepareReleaseOptions): Promise<PreparedRelease> {
  const { planRelease, validateReleaseVersion, readDeprecated, readReleaseInputs, writeRelease } =
    await import('@junobench/release');
  const { RUNNER_CONTEXT_NAME } = await import('@junobench/image');
  const { RUNNER_DIR, readRunnerFiles } = await import('@junobench/runtime');
  validateReleaseVersion(o.version);
  const toolchain = o.toolchain ?? (await readToolchainIdentity());
  const warnings: string[] = [];
  let epoch = o.sourceDateEpoch;
  if (epoch === undefined) {
    if (toolchain.commitTime != null) epoch = toolchain.commitTime;
    else {
      epoch = 0;
      warnings.push('no SOURCE_DATE_EPOCH and no commit time: archive entries are dated 1970-01-01');
    }
  }
  const deprecated = (await readDeprecated(o.deprecatedFile)).instances;
  const view = await writeReleaseView({
    curatedDir: o.curatedDir,
    deprecated: new Set(deprecated.map((d) => d.id)),
    ...(o.annotationsDir ? { annotationsDir: o.annotationsDir } : {}),
    ...(o.rawInstancesDir ? { rawInstancesDir: o.rawInstancesDir } : {}),
  });
  try {
    const inputs = await readReleaseInputs({
      version: o.version,
      curatedDir: o.curatedDir,
      overlay: view.overlay,
      recipeDir: o.recipeDir,
      // The image's build context beside the Dockerfile, laid out as `image build` lays it out.
      contextFiles: (await readRunnerFiles()).map((f) => ({
        path: `${RUNNER_CONTEXT_NAME}/${f.name}`,
        abs: path.join(RUNNER_DIR, f.name),
      })),
      ...(o.profile ? { profile: o.profile } : {}),
      deprecatedFile: o.deprecatedFile,
      metadataFile: o.metadataFile,
      ...(o.rawInstancesDir ? { rawInstancesDir: o.rawInstancesDir } : {}),
      ...(o.previous ? { previous: o.previous } : {}),
      outDir: o.outDir,
      sourceDateEpoch: epoch,
      toolchain: { name: 'junobench', version: toolchain.version, commit: toolchain.commit, dirty: toolchain.dirty },
      imagePush: o.imagePush ?? null,
    });
    inputs.warnings.push(...warnings);
    if (view.agreementRecomputed) inputs.agreementRecomputed = true;
    if (o.repository) inputs.metadata.repository = o.repository;
    if (o.minKappa !== undefined) inputs.metadata.minKappa = o.minKappa;
    const plan = planRelease(inputs);
    if (o.buildRoot !== undefined) await checkCuratedSources(o.buildRoot, o.curatedDir, plan);
    if (o.dryRun) return { plan };
    // Written while the view's files exist: the plan points at them.
    return { plan, written: await writeRelease(plan, o.writeDir ?? o.outDir, { replace: Boolean(o.replace) }) };
  } finally {
    await view.close();
  }
}

/**
 * A release is of what curated/ holds; when raw/ changed after the build that
 * made it (a label edited, an instance added), the release would carry the old
 * state under a new version. Refused, naming the changed sources.
 */
async function checkCuratedSources(root: string, curatedDir: string, plan: ReleasePlan): Promise<void> {
  const shown = path.relative(root, curatedDir) || '.';
  const check = await checkBuildSources({
    root,
    lockFile: path.relative(root, path.join(curatedDir, '.build-lock.json')),
    derivedDir: path.relative(root, curatedDir) || '.',
  });
  if (check.lock !== 'ok') {
    plan.warnings.push(
      `${shown}/.build-lock.json is ${check.lock === 'missing' ? 'not there' : 'not valid'}: cannot tell whether ${shown}/ is up to date with its sources (run \`junobench build\` first to be sure)`,
    );
    return;
  }
  if (check.unrecorded.length > 0) {
    plan.warnings.push(
      `the build lock of ${shown}/ was written by an older toolchain (stages ${check.unrecorded.join(', ')}): cannot tell whether they are up to date with their sources (run \`junobench build\` to record them)`,
    );
  }
  if (check.changed.length === 0) return;
  const list = check.changed.map((c) => `${c.path} (read by ${c.stages.join(', ')})`).join(', ');
  plan.refusals.push({
    code: 'out-of-date',
    message: `${shown}/ is older than its sources: ${list} changed since the build that made it, so the release would carry what that build made; run \`junobench build\`, then prepare again`,
  });
}

/** The toolchain's version (root package.json) and its git commit, dirtiness and commit time. */
export async function readToolchainIdentity(): Promise<{
  version: string;
  commit: string | null;
  dirty: boolean | null;
  commitTime: number | null;
}> {
  const { openGitRepository, readGitIdentity } = await import('@junobench/release');
  const pkg = JSON.parse(await readFile(path.join(TOOLCHAIN_ROOT, 'package.json'), 'utf8')) as { version?: string };
  const git = await readGitIdentity(openGitRepository(TOOLCHAIN_ROOT));
  return { version: pkg.version ?? '0.0.0', ...git };
}

/**
 * curated/ without the deprecated instances, as overlay files: when a
 * deprecated instance is still in the curated benchmark (it was built
 * before the deprecation) or in the annotations, benchmark.json/.csv,
 * verification.json, final-labels.jsonl and stats/ are redone without it in
 * a temporary folder; the agreement figures are recomputed from the other
 * instances' annotations (when raw/annotations is at hand), and report/ is
 * rendered again over exactly what the release ships. Nothing to redo: no
 * overlay.
 *
 * The folder is laid out as a project is (curated/, raw/ beside it, the
 * report in curated/report), so the report's relative links are the ones
 * the build writes and the same inputs give the same bytes wherever the
 * temporary folder is. It holds no instance folder: the report reads them
 * where they are (curated/instances, raw/instances), so a large data/ costs
 * no copy in TMPDIR.
 */
async function writeReleaseView(o: {
  curatedDir: string;
  deprecated: ReadonlySet<string>;
  annotationsDir?: string;
  rawInstancesDir?: string;
}): Promise<{ overlay: Record<string, string>; agreementRecomputed: boolean; close: () => Promise<void> }> {
  const { curatedDir, deprecated } = o;
  const none = { overlay: {}, agreementRecomputed: false, close: async () => undefined };
  if (deprecated.size === 0) return none;
  const benchmarkFile = path.join(curatedDir, 'benchmark.json');
  const verificationFile = path.join(curatedDir, 'verification.json');
  const benchmark = await readJsonFile<Benchmark>(benchmarkFile, { schema: 'benchmark' }).catch(() => undefined);
  const verification = await readJsonFile<VerificationReport>(verificationFile, { schema: 'verification' }).catch(
    () => undefined,
  );
  if (!benchmark || !verification) return none;
  const labels = await import('@junobench/labels');
  // The annotations the build's agreement was computed from; absent (another layout): the curated figures stay, and the
  // card says so.
  const annotations =
    o.annotationsDir &&
    (await stat(o.annotationsDir).then(
      (s) => s.isDirectory(),
      () => false,
    ))
      ? await labels.readAnnotationFolder(o.annotationsDir)
      : undefined;
  const annotated = annotations?.sets.some((s) => s.annotations.some((a) => deprecated.has(a.instance))) ?? false;
  const hit =
    annotated ||
    benchmark.instances.some((e) => deprecated.has(e.id)) ||
    verification.instances.some((v) => deprecated.has(v.instance)) ||
    // A deprecated draft the build's report lists from raw/instances (in no other curated file).
    (await someAsync([...deprecated], (id) =>
      stat(path.join(curatedDir, 'report', 'instances', `${id}.html`)).then(
        () => true,
        () => false,
      ),
    ));
  if (!hit) return none;

  const tmp = await mkdtemp(path.join(os.tmpdir(), 'junobench-release-view-'));
  const close = () => rm(tmp, { recursive: true, force: true });
  try {
    const view = path.join(tmp, 'curated');
    const rawView = path.join(tmp, 'raw');
    const kept: Benchmark = { ...benchmark, instances: benchmark.instances.filter((e) => !deprecated.has(e.id)) };
    const instances = verification.instances.filter((v) => !deprecated.has(v.instance));
    const keptVerification: VerificationReport = {
      ...verification,
      instances,
      summary: {
        total: instances.length,
        verified: instances.filter((v) => v.status === 'verified').length,
        notVerified: instances.filter((v) => v.status === 'not-verified').length,
        skipped: instances.filter((v) => v.status === 'skipped').length,
        flaky: instances.filter((v) => v.status === 'flaky').length,
      },
    };
    const overlay: Record<string, string> = {
      'benchmark.json': path.join(view, 'benchmark.json'),
      'benchmark.csv': path.join(view, 'benchmark.csv'),
      'verification.json': path.join(view, 'verification.json'),
      stats: path.join(view, 'stats'),
    };
    await writeFileAtomic(overlay['benchmark.json']!, formatJson(kept));
    await writeFileAtomic(overlay['benchmark.csv']!, formatBenchmarkCsv(kept));
    await writeFileAtomic(overlay['verification.json']!, formatJson(keptVerification));
    await labels.writeStats(overlay.stats!, labels.computeStats(labels.statsRowsFromBenchmark(kept)));
    const finalLabels = await readFile(path.join(curatedDir, 'labels', 'final-labels.jsonl'), 'utf8').catch(
      () => undefined,
    );
    if (finalLabels !== undefined) {
      const lines = finalLabels
        .split('\n')
        .filter((l) => l.trim() && !deprecated.has((JSON.parse(l) as { instance: string }).instance));
      overlay['labels/final-labels.jsonl'] = path.join(view, 'labels', 'final-labels.jsonl');
      await writeFileAtomic(overlay['labels/final-labels.jsonl'], lines.map((l) => `${l}\n`).join(''));
    }
    // Agreement over the annotations of the instances that remain, as the labels stage computes it (same seed,
    // resamples and gate in agreement.md): the figures the card and the manifest carry describe the release's
    // instances.
    let agreementRecomputed = false;
    const curatedAgreement = await stat(path.join(curatedDir, 'labels', 'agreement.json')).then(
      (s) => s.isFile(),
      () => false,
    );
    if (annotations && curatedAgreement) {
      const sets = annotations.sets.map((s) => ({
        ...s,
        annotations: s.annotations.filter((a) => !deprecated.has(a.instance)),
      }));
      const report = labels.computeAgreement(sets);
      await labels.writeAgreementReport(path.join(view, 'labels'), report, { minKappa: labels.DEFAULT_MIN_KAPPA });
      overlay['labels/agreement.json'] = path.join(view, 'labels', 'agreement.json');
      overlay['labels/agreement.md'] = path.join(view, 'labels', 'agreement.md');
      agreementRecomputed = true;
    }
    // report/: rendered again when the build made one, over the view (the instances the release ships, their
    // labels, stats and agreement), with raw/ as the build gives it minus the deprecated instances.
    if (
      await stat(path.join(curatedDir, 'report')).then(
        (s) => s.isDirectory(),
        () => false,
      )
    ) {
      if (!overlay['labels/agreement.json']) {
        for (const name of ['agreement.json', 'agreement.md']) {
          const text = await readFile(path.join(curatedDir, 'labels', name), 'utf8').catch(() => undefined);
          if (text !== undefined) await writeFileAtomic(path.join(view, 'labels', name), text);
        }
      }
      await mkdir(rawView, { recursive: true });
      const adjudicated = o.annotationsDir
        ? await readFile(path.join(o.annotationsDir, labels.ADJUDICATION_FILE), 'utf8').catch(() => undefined)
        : undefined;
      if (adjudicated !== undefined) {
        // Already read and checked by readAnnotationFolder: the adjudicators' notes, line for line, without the
        // deprecated instances'.
        const notes = adjudicated
          .split('\n')
          .filter((l) => l.trim() && !deprecated.has((JSON.parse(l) as { instance: string }).instance));
        await writeFileAtomic(
          path.join(rawView, 'annotations', labels.ADJUDICATION_FILE),
          notes.map((l) => `${l}\n`).join(''),
        );
      }
      const { generateReport } = await import('@junobench/report');
      // The instance folders are read where they are (curated/instances for the benchmark's, raw/instances for those
      // the build's report lists from raw/: drafts, not verified), never copied; the pages link to them as laid out in
      // the view, which is where the release ships them. The deprecated instances are withdrawn from the report:
      // when the agreement is the build's (not recomputed), its page still must not list them, and says its figures
      // were carried.
      await generateReport({
        from: view,
        raw: rawView,
        out: path.join(view, 'report'),
        instanceFolders: {
          curated: path.join(curatedDir, 'instances'),
          ...(o.rawInstancesDir ? { raw: o.rawInstancesDir } : {}),
        },
        withdrawn: { instances: [...deprecated].sort(compareCodePoints), agreementRecomputed },
      });
      overlay.report = path.join(view, 'report');
    }
    return { overlay, agreementRecomputed, close };
  } catch (e) {
    await close();
    throw e;
  }
}

async function someAsync<T>(items: readonly T[], test: (item: T) => Promise<boolean>): Promise<boolean> {
  for (const item of items) if (await test(item)) return true;
  return false;
}
