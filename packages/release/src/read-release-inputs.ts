import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import {
  JunoError,
  compareCodePoints,
  hashFile,
  listInstanceIds,
  readInstance,
  readInstanceTree,
  readJsonFile,
  validateInstanceId,
  type AgreementReport,
  type Benchmark,
  type ChecksReport,
  type DeprecatedInstance,
  type ImageRecord,
  type ReleaseImagePush,
  type ReleaseManifest,
  type VerificationReport,
} from '@junobench/core';
import { readDeprecated } from './deprecate-instance.js';
import { readReleaseMetadata } from './read-release-metadata.js';
import { findPreviousRelease, readReleaseManifest } from './read-release-manifest.js';
import type { InstanceInput, ReleaseInputs, SourceFile } from './release-types.js';

export interface ReadReleaseInputsOptions {
  version: string;
  /** The curated benchmark (`junobench build`'s output). */
  curatedDir: string;
  /**
   * Files that replace curated ones, by archive path (e.g. benchmark.json
   * without a deprecated instance). A folder replaces the curated folder of
   * the same path (stats/) as a whole.
   */
  overlay?: Record<string, string>;
  /** Folder with Dockerfile.<profile> and <profile>.lock.json (docker/). */
  recipeDir: string;
  /**
   * The other files of the image's build context (the runner), by path in the context (runner/junobench_runner.py…).
   */
  contextFiles: { path: string; abs: string }[];
  /** Image profile; default the one image.json names, else debian. */
  profile?: string;
  deprecatedFile?: string;
  metadataFile?: string;
  /** raw/instances: a draft there (left out of curated/ by the build) is still a reason to refuse. */
  rawInstancesDir?: string;
  /** Previous release (folder or tarball); default the latest release in outDir other than this version. */
  previous?: string;
  outDir: string;
  sourceDateEpoch: number;
  toolchain: ReleaseInputs['toolchain'];
  imagePush?: ReleaseImagePush | null;
}

/** Top-level curated entries a release carries, beside instances/ (folders: everything below). */
const CURATED_FILES = ['benchmark.json', 'benchmark.csv', 'verification.json'];
const CURATED_OPTIONAL = ['checks.json', 'labels/agreement.json', 'labels/agreement.md', 'labels/final-labels.jsonl'];
const CURATED_FOLDERS = ['stats', 'report'];

/**
 * Read what a release is made of: curated/ (benchmark, verification, labels,
 * stats, report when present, image.json, and every instance through the
 * instance-tree link rule, hashed), the image recipe, raw/deprecated.json,
 * raw/release.json and the previous release's manifest. Checks every JSON
 * input against its schema. Nothing is written.
 */
export async function readReleaseInputs(o: ReadReleaseInputsOptions): Promise<ReleaseInputs> {
  const curated = path.resolve(o.curatedDir);
  const overlay = o.overlay ?? {};
  const warnings: string[] = [];
  const where = (rel: string) => overlay[rel] ?? path.join(curated, ...rel.split('/'));

  const st = await stat(curated).catch(() => undefined);
  if (!st?.isDirectory()) {
    throw new JunoError('E_INPUT_NOT_FOUND', 'no curated benchmark here', {
      location: { file: o.curatedDir },
      hint: 'build it first: `npx junobench build` (or pass --from <dir>)',
    });
  }
  for (const rel of CURATED_FILES) {
    const ok = await stat(where(rel)).then(
      (s) => s.isFile(),
      () => false,
    );
    if (!ok) {
      throw new JunoError('E_INPUT_NOT_FOUND', `${rel} is missing from the curated benchmark`, {
        location: { file: where(rel) },
        hint: 'run `npx junobench build` to write it',
      });
    }
  }

  const benchmark = await readJsonFile<Benchmark>(where('benchmark.json'), { schema: 'benchmark' });
  const benchmarkCsv = await readFile(where('benchmark.csv'), 'utf8');
  const verification = await readJsonFile<VerificationReport>(where('verification.json'), { schema: 'verification' });
  const checksFile = where('checks.json');
  const checks = (await stat(checksFile).then(
    (s) => s.isFile(),
    () => false,
  ))
    ? await readJsonFile<ChecksReport>(checksFile, { schema: 'checks-report' })
    : null;
  if (!checks)
    warnings.push(
      "curated/checks.json is missing: the release records no instance's checks or mutation test (run `npx junobench build`)",
    );
  const agreementFile = where('labels/agreement.json');
  const agreement = (await stat(agreementFile).then(
    () => true,
    () => false,
  ))
    ? await readJsonFile<AgreementReport>(agreementFile, { schema: 'agreement-report' })
    : null;

  const deprecated: DeprecatedInstance[] = o.deprecatedFile ? (await readDeprecated(o.deprecatedFile)).instances : [];
  const deprecatedIds = new Set(deprecated.map((d) => d.id));
  // The build keeps deprecated instances, so its report shows them (a page each, rows, counts): unless a report
  // made without them is given (overlay), the release carries none rather than publish what was withdrawn.
  const builtWith = overlay['benchmark.json']
    ? await readJsonFile<Benchmark>(path.join(curated, 'benchmark.json'), { schema: 'benchmark' })
    : benchmark;
  const inReport = builtWith.instances.filter((e) => deprecatedIds.has(e.id)).map((e) => e.id);

  const files: SourceFile[] = [];
  const addFile = async (rel: string, abs: string) => {
    const s = await stat(abs);
    files.push({ path: rel, bytes: s.size, sha256: await hashFile(abs), abs });
  };
  for (const rel of [...CURATED_FILES, ...CURATED_OPTIONAL]) {
    const abs = where(rel);
    if (
      await stat(abs).then(
        (s) => s.isFile(),
        () => false,
      )
    )
      await addFile(rel, abs);
  }
  for (const dir of CURATED_FOLDERS) {
    const abs = where(dir);
    if (
      !(await stat(abs).then(
        (s) => s.isDirectory(),
        () => false,
      ))
    ) {
      if (dir === 'stats')
        warnings.push('curated/stats is missing: the release has no statistics files (run `npx junobench build`)');
      continue;
    }
    if (dir === 'report' && !overlay.report && inReport.length > 0) {
      warnings.push(
        `curated/report shows deprecated instance${inReport.length === 1 ? '' : 's'} ${inReport.join(', ')} (the build keeps them): the release carries no report/`,
      );
      continue;
    }
    // report/'s own bookkeeping (its manifest, a dotfile at its top) is not part of what a release ships.
    const ignore = dir === 'report' ? (rel: string) => !rel.includes('/') && rel.startsWith('.') : undefined;
    for (const f of await readInstanceTree(abs, ignore ? { ignore } : {}))
      files.push({ path: `${dir}/${f.rel}`, bytes: f.size, sha256: await hashFile(f.abs), abs: f.abs });
  }

  // The image: what `image build` recorded (when it ran) and the recipe it was built from.
  const imageFile = where('image.json');
  const record = (await stat(imageFile).then(
    () => true,
    () => false,
  ))
    ? await readJsonFile<ImageRecord>(imageFile, { schema: 'image-record' })
    : null;
  if (record) await addFile('image/image.json', imageFile);
  const profile = o.profile ?? record?.profile ?? 'debian';
  const recipe: string[] = [];
  for (const [name, required] of [
    [`Dockerfile.${profile}`, true],
    [`${profile}.lock.json`, false],
  ] as const) {
    const abs = path.join(o.recipeDir, name);
    if (
      await stat(abs).then(
        (s) => s.isFile(),
        () => false,
      )
    ) {
      await addFile(`image/${name}`, abs);
      recipe.push(`image/${name}`);
    } else if (required) {
      warnings.push(
        `no rendered ${name} in ${o.recipeDir}: the release carries no Dockerfile (run \`npx junobench image render --profile ${profile}\`)`,
      );
    } else {
      warnings.push(
        `no ${name} in ${o.recipeDir}: package versions of the image are not pinned in the release (build the image once: \`npx junobench image build\`)`,
      );
    }
  }
  if (recipe.length > 0) {
    for (const f of o.contextFiles) {
      await addFile(`image/${f.path}`, f.abs);
      recipe.push(`image/${f.path}`);
    }
  }

  const instancesDir = path.join(curated, 'instances');
  const ids = await listInstanceIds(instancesDir).catch(() => [] as string[]);
  const instances: InstanceInput[] = [];
  for (const id of ids) {
    validateInstanceId(id, { file: path.join(instancesDir, id) });
    if (deprecatedIds.has(id)) continue;
    const dir = path.join(instancesDir, id);
    const instance = (await readInstance(dir)) as InstanceInput['instance'];
    const tree = await readInstanceTree(dir);
    const list: SourceFile[] = [];
    for (const f of tree)
      list.push({ path: `instances/${id}/${f.rel}`, bytes: f.size, sha256: await hashFile(f.abs), abs: f.abs });
    instances.push({ id, instance, files: list });
  }

  const drafts = new Set(instances.filter((i) => i.instance.status === 'draft').map((i) => i.id));
  if (o.rawInstancesDir) {
    for (const id of await listInstanceIds(o.rawInstancesDir).catch(() => [] as string[])) {
      if (deprecatedIds.has(id)) continue;
      // Only the status is needed, and a draft may be incomplete: no schema check here.
      const raw = await readFile(path.join(o.rawInstancesDir, id, 'instance.json'), 'utf8').catch(() => '{}');
      try {
        if ((JSON.parse(raw) as { status?: unknown }).status === 'draft') drafts.add(id);
      } catch {
        // Not JSON: the build reports that instance; a release of it is refused as not verified.
      }
    }
  }

  const previousSource = o.previous ?? (await findPreviousRelease(o.outDir, o.version));
  const previous: ReleaseManifest | null = previousSource ? await readReleaseManifest(previousSource) : null;

  return {
    version: o.version,
    sourceDateEpoch: o.sourceDateEpoch,
    toolchain: o.toolchain,
    metadata: await readReleaseMetadata(o.metadataFile),
    benchmark,
    benchmarkCsv,
    verification,
    checks,
    agreement,
    instances,
    files: files.sort((a, b) => compareCodePoints(a.path, b.path)),
    image: { profile, recipe, record, push: o.imagePush ?? null },
    deprecated,
    drafts: [...drafts].sort(compareCodePoints),
    previous,
    warnings,
  };
}
