import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  JunoError,
  hashTree,
  readJsonFile,
  type Instance,
  type ProgressListener,
  type SubsampleResult,
  type SubsampleSpec,
} from '@junobench/core';
import { generateSource, SOURCE_GENERATORS, type SourceGenerator } from './generate-source.js';
import type { SharpFactory } from './reencode-image.js';
import { parseSubsampleSpec } from './spec.js';
import { subsampleData, type SubsampleDataReport } from './subsample-data.js';

export const DEFAULT_CACHE_DIR = '.junobench-cache';

export interface ResolvedSource {
  dir: string;
  sha256: string;
  /** How it was obtained, for reports. */
  origin: 'generated' | 'cached' | 'given';
}

/**
 * Where a spec's full data is: a generator's output (made on demand in
 * `<cacheDir>/sources/`), or the folder the caller gives (kind local/dataset:
 * it cannot be downloaded here). When the spec records the source's tree
 * hash, a different source is refused: it would not give the same data/.
 */
export async function resolveSubsampleSource(
  spec: SubsampleSpec,
  options: { cacheDir?: string; sourceDir?: string; generators?: ReadonlyMap<string, SourceGenerator> } = {},
): Promise<ResolvedSource> {
  let resolved: ResolvedSource;
  if (options.sourceDir) {
    resolved = { dir: options.sourceDir, sha256: await hashTree(options.sourceDir), origin: 'given' };
  } else if (spec.source.kind === 'generator') {
    const g = await generateSource(
      path.join(options.cacheDir ?? DEFAULT_CACHE_DIR, 'sources'),
      spec.source.generator!,
      spec.source.parameters ?? {},
      spec.source.seed ?? spec.seed,
      options.generators ?? SOURCE_GENERATORS,
    );
    resolved = { dir: g.dir, sha256: g.sha256, origin: g.cached ? 'cached' : 'generated' };
  } else {
    throw new JunoError(
      'E_USAGE',
      `the full data (a ${spec.source.kind} source${spec.source.url ? ` from ${spec.source.url}` : ''}) is not available here`,
      {
        hint: 'download it and pass its folder with --source <dir>',
      },
    );
  }
  if (spec.source.sha256 && spec.source.sha256 !== resolved.sha256) {
    throw new JunoError(
      'E_SUBSAMPLE',
      'the full data differs from the data the spec was made from (tree hash mismatch)',
      {
        location: { file: resolved.dir, field: 'source.sha256' },
        hint: `pass the full data the spec was made from with --source <dir> (the full data a \`junobench subsample\` replaced is kept in ${path.join(options.cacheDir ?? DEFAULT_CACHE_DIR, 'originals')}/), or subsample again with a new spec`,
      },
    );
  }
  return resolved;
}

export interface RegenerateOptions {
  /** Where generated sources are cached (default `.junobench-cache`, relative to the current folder). */
  cacheDir?: string;
  /** The full data, for specs whose source is not a generator. */
  sourceDir?: string;
  /**
   * Where to write the data (must not exist); default `<os tmp>/junobench-<id>-XXXXXX/data`, which the caller removes.
   */
  outDir?: string;
  onProgress?: ProgressListener;
  sharp?: SharpFactory;
}

export interface RegenerateResult {
  outDir: string;
  source: ResolvedSource;
  report: SubsampleDataReport;
  /** What instance.json records (undefined when it records nothing). */
  expected?: SubsampleResult;
  /** Whether the regenerated data is byte for byte what instance.json records. */
  matches?: boolean;
}

/**
 * Redo an instance's data/ from its full data with the spec saved in
 * instance.json (data.subsample), and say whether the result is byte for
 * byte the recorded one. This is what `junobench build` calls: e.g.
 * `regenerateInstanceData('raw/instances/pandas_3', { cacheDir: '.junobench-cache', outDir:
 * 'curated/instances/pandas_3/data' })`.
 */
export async function regenerateInstanceData(
  instanceDir: string,
  options: RegenerateOptions = {},
): Promise<RegenerateResult> {
  const file = path.join(instanceDir, 'instance.json');
  const instance = await readJsonFile<Instance>(file, { schema: 'instance' });
  if (!instance.data?.subsample) {
    throw new JunoError('E_INSTANCE', 'the instance has no subsampling spec (data.subsample)', {
      location: { file, field: 'data.subsample' },
      hint: `its data/ is used as it is; run \`junobench subsample ${instance.id} --spec <file>\` to reduce it`,
    });
  }
  const spec = parseSubsampleSpec(instance.data.subsample, { file, field: 'data.subsample' });
  const source = await resolveSubsampleSource(spec, options);
  const outDir = options.outDir ?? path.join(await mkdtemp(path.join(tmpdir(), `junobench-${instance.id}-`)), 'data');
  const report = await subsampleData({
    sourceDir: source.dir,
    outDir,
    spec,
    onProgress: options.onProgress,
    sharp: options.sharp,
  });
  const expected = spec.result;
  return { outDir, source, report, expected, matches: expected ? expected.sha256 === report.result.sha256 : undefined };
}
