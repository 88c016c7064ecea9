import { readFile } from 'node:fs/promises';
import { JunoError, validateOrThrow, type ReleaseMetadata } from '@junobench/core';
import type { ResolvedMetadata } from './release-types.js';

/** What a release says about JunoBench when raw/release.json does not say otherwise. */
export const DEFAULT_RELEASE_METADATA: ResolvedMetadata = {
  name: 'JunoBench',
  prettyName: 'JunoBench: crashes in Python machine-learning Jupyter notebooks',
  description:
    'A benchmark of real crashes in Python machine-learning Jupyter notebooks collected from Kaggle. Each case has the original notebook, ' +
    'a reproduced version that crashes the same way every time, a fixed version that runs, its input data (subsampled, or synthetic when the ' +
    'licence forbids sharing), labels in four dimensions (library cause, crash type, root cause, ML pipeline stage) with a diagnosis agreed by ' +
    'two annotators, and one container image that runs them all.',
  url: 'https://junobench.dev',
  license: 'CC-BY-4.0',
  codeLicense: 'Apache-2.0',
  citation:
    '@misc{junobench2026,\n' +
    '  title  = {JunoBench: A Benchmark Dataset of Crashes in Python Machine Learning Jupyter Notebooks},\n' +
    '  author = {{JunoBench authors}},\n' +
    '  year   = {2026},\n' +
    '  note   = {Dataset}\n' +
    '}',
  creators: ['JunoBench authors'],
  keywords: ['jupyter', 'notebooks', 'crashes', 'bugs', 'machine learning', 'debugging', 'program repair', 'benchmark'],
  minKappa: 0.9,
};

/** raw/release.json (schemas/release-metadata.schema.json) over the defaults; a missing file means the defaults. */
export async function readReleaseMetadata(file: string | undefined): Promise<ResolvedMetadata> {
  if (!file) return { ...DEFAULT_RELEASE_METADATA };
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { ...DEFAULT_RELEASE_METADATA };
    throw e;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new JunoError('E_INPUT_FORMAT', `not valid JSON: ${(e as Error).message}`, { location: { file }, cause: e });
  }
  return resolveReleaseMetadata(validateOrThrow<ReleaseMetadata>('release-metadata', value, { file }));
}

export function resolveReleaseMetadata(m: ReleaseMetadata): ResolvedMetadata {
  const out: ResolvedMetadata = { ...DEFAULT_RELEASE_METADATA };
  for (const [k, v] of Object.entries(m)) if (v !== undefined) (out as unknown as Record<string, unknown>)[k] = v;
  return out;
}
