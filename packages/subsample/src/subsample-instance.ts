import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import {
  JunoError,
  copyInstanceTree,
  formatJson,
  noProgress,
  readJsonFile,
  validateOrThrow,
  writeFileAtomic,
  type ExpectedCrash,
  type Instance,
  type InstanceVerification,
  type ProgressListener,
  type SubsampleSpec,
  type SyntheticDataNote,
  type VersionResult,
} from '@junobench/core';
import type { SharpFactory } from './reencode-image.js';
import { DEFAULT_CACHE_DIR, resolveSubsampleSource } from './regenerate-instance-data.js';
import { parseSubsampleSpec } from './spec.js';
import { subsampleData } from './subsample-data.js';
import type { InstanceSubsampleReport } from './summarize-reports.js';

/** Verifies an instance folder (notebooks, data/, instance.json); injected so tests need no kernel. */
export type VerifyInstanceDir = (instanceDir: string) => Promise<InstanceVerification>;

export interface SubsampleInstanceOptions {
  instanceDir: string;
  /** The spec to apply; default the one saved in instance.json (data.subsample). */
  spec?: SubsampleSpec;
  /** The full data; default the spec's generator output, else the instance's current data/. */
  sourceDir?: string;
  /** Generated sources and the full data that subsampling replaced are kept here (default `.junobench-cache`). */
  cacheDir?: string;
  verify: VerifyInstanceDir;
  /** Subsample into staging and report sizes, then discard: no verification, nothing changed. */
  dryRun?: boolean;
  onProgress?: ProgressListener;
  sharp?: SharpFactory;
}

export interface SubsampleInstanceResult extends InstanceSubsampleReport {
  /** The verification of the reduced instance (absent for a dry run). */
  verification?: InstanceVerification;
  /** The spec as saved (with the source's hash and the result's hash). */
  spec: SubsampleSpec;
  /** Where the full data went when it was the instance's own data/ (nothing is lost). */
  originalDataKeptAt?: string;
}

/**
 * Subsample one instance without losing its crash: write the reduced data
 * into a staging copy of the instance, verify that copy (reproduced still
 * crashes as labelled, fixed still runs), and only then swap it in for
 * data/ and save the spec in instance.json. When the copy is not verified,
 * the instance is left exactly as it was and the result says what changed.
 */
export async function subsampleInstance(options: SubsampleInstanceOptions): Promise<SubsampleInstanceResult> {
  const started = Date.now();
  const progress = options.onProgress ?? noProgress;
  const instanceDir = path.resolve(options.instanceDir);
  const instanceFile = path.join(instanceDir, 'instance.json');
  const instance = await readJsonFile<Instance>(instanceFile, { schema: 'instance' });
  const rawSpec = options.spec ?? instance.data?.subsample;
  if (!rawSpec) {
    throw new JunoError('E_USAGE', `no subsampling spec for instance ${instance.id}`, {
      location: { file: instanceFile, field: 'data.subsample' },
      hint: `give one: junobench subsample ${instance.id} --spec <file> (or --method table --path <file> --rows <n>)`,
    });
  }
  const spec = parseSubsampleSpec(rawSpec, options.spec ? {} : { file: instanceFile, field: 'data.subsample' });
  const cacheDir = path.resolve(options.cacheDir ?? DEFAULT_CACHE_DIR);
  const dataDir = path.join(instanceDir, 'data');

  // The full data: given, generated, or (first subsampling) the instance's own data/.
  const ownData = !options.sourceDir && spec.source.kind !== 'generator';
  const source = await resolveSubsampleSource(spec, { cacheDir, sourceDir: ownData ? dataDir : options.sourceDir });
  const saved: SubsampleSpec = { ...spec, source: { ...spec.source, sha256: source.sha256 } };
  delete saved.result;

  const stagingRoot = path.join(
    path.dirname(instanceDir),
    `.subsample-${process.pid}-${randomBytes(4).toString('hex')}`,
  );
  const staging = path.join(stagingRoot, path.basename(instanceDir));
  try {
    progress({ task: 'subsample', done: 0, item: instance.id, message: 'staging' });
    // The instance (without data/, which the steps write) under the one link rule:
    // links inside become their content, anything leaving the instance is refused.
    await copyInstanceTree(instanceDir, staging, { ignore: (rel) => rel === 'data' || rel.startsWith('data/') });
    const data = await subsampleData({
      sourceDir: source.dir,
      outDir: path.join(staging, 'data'),
      spec,
      onProgress: options.onProgress,
      sharp: options.sharp,
    });
    saved.result = data.result;
    const updated = withSubsampleSpec(instance, saved);
    validateOrThrow('instance', updated, { file: instanceFile });
    await writeFileAtomic(path.join(staging, 'instance.json'), formatJson(updated));

    const base = { instance: instance.id, data, spec: saved };
    if (options.dryRun) return { ...base, status: 'dry-run', durationMs: Date.now() - started };

    progress({ task: 'subsample', done: 0, item: instance.id, message: 'verifying the reduced instance' });
    const verification = await options.verify(staging);
    if (!verification.verified) {
      return {
        ...base,
        status: 'refused',
        verification,
        reason: describeVerificationChange(instance.crash, verification),
        durationMs: Date.now() - started,
      };
    }
    const originalDataKeptAt = await swapData(
      instanceDir,
      staging,
      ownData ? path.join(cacheDir, 'originals', `${instance.id}-${source.sha256.slice(0, 16)}`) : undefined,
    );
    await writeFileAtomic(instanceFile, formatJson(updated));
    return { ...base, status: 'applied', verification, originalDataKeptAt, durationMs: Date.now() - started };
  } finally {
    await rm(stagingRoot, { recursive: true, force: true });
  }
}

/** instance.json with data.subsample set, and data.synthetic when a step generated data. */
export function withSubsampleSpec(instance: Instance, spec: SubsampleSpec): Instance {
  const synthetic = spec.steps.filter((s) => s.method === 'synthetic-table');
  const data: NonNullable<Instance['data']> = { ...instance.data, subsample: spec };
  if (synthetic.length > 0) {
    const first = synthetic[0]!;
    const note: SyntheticDataNote = {
      reason: first.method === 'synthetic-table' ? first.parameters.reason : '',
      license: first.method === 'synthetic-table' ? first.parameters.license : undefined,
      files: synthetic.map((s) => `data/${s.path}`),
      seed: spec.seed,
    };
    data.synthetic = note;
  }
  return { ...instance, data };
}

/**
 * Replace data/ by the staged one: data/ is renamed aside, the new one
 * renamed in, and the old one removed (or kept in `keepOldAt`) only then.
 * On failure the old data/ is put back.
 */
async function swapData(
  instanceDir: string,
  staging: string,
  keepOldAt: string | undefined,
): Promise<string | undefined> {
  const dataDir = path.join(instanceDir, 'data');
  const aside = path.join(instanceDir, `.data-old-${randomBytes(4).toString('hex')}`);
  const hadData = await stat(dataDir).then(
    () => true,
    () => false,
  );
  if (hadData) await rename(dataDir, aside);
  try {
    await rename(path.join(staging, 'data'), dataDir);
  } catch (e) {
    if (hadData) await rename(aside, dataDir);
    throw e;
  }
  if (!hadData) return undefined;
  if (!keepOldAt) {
    await rm(aside, { recursive: true, force: true });
    return undefined;
  }
  if (
    await stat(keepOldAt).then(
      () => true,
      () => false,
    )
  ) {
    // The same full data (same hash) is already kept.
    await rm(aside, { recursive: true, force: true });
    return keepOldAt;
  }
  await mkdir(path.dirname(keepOldAt), { recursive: true });
  try {
    await rename(aside, keepOldAt);
  } catch {
    // Another file system: copy (links as their content, as everywhere), then remove.
    await copyInstanceTree(aside, keepOldAt);
    await rm(aside, { recursive: true, force: true });
  }
  return keepOldAt;
}

function describeVersion(v: VersionResult): string {
  const seen = v.observed ? `${v.observed.ename}: ${v.observed.evalue} (cell ${v.observed.cell})` : undefined;
  return [v.outcome, seen, v.reason].filter(Boolean).join(' — ');
}

/** What went wrong in a verification, compared with the crash the instance expects. */
export function describeVerificationChange(expected: ExpectedCrash, v: InstanceVerification): string {
  const parts: string[] = [];
  if (v.reproduced.outcome !== 'crash-reproduced') {
    parts.push(
      `reproduced: expected ${expected.ename}: ${expected.evalue} (cell ${expected.cell}), got ${describeVersion(v.reproduced)}`,
    );
  }
  if (v.fixed.outcome !== 'fixed-ok') parts.push(`fixed: ${describeVersion(v.fixed)}`);
  if (parts.length === 0) parts.push(`status ${v.status}`);
  return `${parts.join('; ')}; data/ was left as it was`;
}
