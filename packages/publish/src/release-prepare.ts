import path from 'node:path';
import { readAgreementGate, type ReleaseImagePush } from '@junobench/core';
import type { ReleasePlan, WrittenRelease } from '@junobench/release';
import { checkBuildSources, readToolchainIdentity as readIdentity } from '@junobench/build-lock';
import { writeReleaseView } from './release-view.js';

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
  /** --min-kappa: the agreement gate for this run only, over raw/release.json's minKappa. */
  minKappa?: number;
  /** Where the card tells a downloader to clone the toolchain (default: raw/release.json's, else the checkout's remote). */
  toolchainRepository?: string;
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
  const {
    planRelease,
    validateReleaseVersion,
    readDeprecated,
    readReleaseInputs,
    resolveToolchainRepository,
    writeRelease,
  } = await import('@junobench/release');
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
  // The one setting (raw/release.json's minKappa), or --min-kappa for this run: the plan, the card, the manifest,
  // agreement.json and the report all state this gate.
  const gate = await readAgreementGate(o.metadataFile, o.minKappa);
  const view = await writeReleaseView({
    curatedDir: o.curatedDir,
    deprecated,
    ...(o.annotationsDir ? { annotationsDir: o.annotationsDir } : {}),
    ...(o.rawInstancesDir ? { rawInstancesDir: o.rawInstancesDir } : {}),
    gate,
    provenance: {
      toolchain: { version: toolchain.version, commit: toolchain.commit, dirty: toolchain.dirty },
      datasetVersion: o.version,
      builtAt: { iso: new Date(epoch * 1000).toISOString(), source: 'SOURCE_DATE_EPOCH of the release' },
    },
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
    inputs.metadata.minKappa = gate.minKappa;
    // Not the --github repository: the archive (its card) must not depend on where it is published, or `prepare` and
    // `publish` would seal different archives of the same release.
    const setting = o.toolchainRepository ?? inputs.metadata.toolchainRepository;
    const clone = await resolveToolchainRepository(setting ? { setting } : {});
    if (clone.url) inputs.metadata.toolchainRepository = clone.url;
    else
      inputs.warnings.push(
        `the dataset card cannot say where to clone the toolchain: ${clone.problem}; \`release publish\` refuses such a card (set toolchainRepository in raw/release.json, or push the toolchain to a hosted repository and add it as a remote)`,
      );
    const plan = planRelease(inputs);
    // The deprecations and the gate are read here, afresh (the view renders the report and judges the agreement with
    // them): a change to either since the build does not make curated/ stale for this release.
    if (o.buildRoot !== undefined)
      await checkCuratedSources(o.buildRoot, o.curatedDir, plan, [o.deprecatedFile, o.metadataFile]);
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
async function checkCuratedSources(
  root: string,
  curatedDir: string,
  plan: ReleasePlan,
  readAfresh: readonly string[],
): Promise<void> {
  const shown = path.relative(root, curatedDir) || '.';
  const check = await checkBuildSources({
    root,
    lockFile: path.relative(root, path.join(curatedDir, '.build-lock.json')),
    derivedDir: path.relative(root, curatedDir) || '.',
    readAfresh: readAfresh.map((f) => path.relative(root, f)),
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

/** The toolchain's version and git commit (@junobench/build-lock reads them). */
export async function readToolchainIdentity(): Promise<{
  version: string;
  commit: string | null;
  dirty: boolean | null;
  commitTime: number | null;
}> {
  return readIdentity();
}
