import type { Instance } from './generated/schema-types.js';

/**
 * Whether an instance's data/ is a generated stand-in rather than (a sample
 * of) the data its notebook read: a synthetic-data note, a subsampling spec
 * whose source is a seeded generator (a sample of generated rows is still
 * generated data), or a step that writes a synthetic table. The benchmark,
 * the dataset card and the report all ask this one question, so that an
 * instance is never "synthetic" in one and "subsampled" in another.
 */
export function isSyntheticData(instance: Pick<Instance, 'data'>): boolean {
  const data = instance.data;
  if (!data) return false;
  if (data.synthetic) return true;
  const spec = data.subsample;
  if (!spec) return false;
  if (spec.source?.kind === 'generator') return true;
  return (spec.steps ?? []).some((s) => (s as { method?: string }).method === 'synthetic-table');
}

/** Why isSyntheticData holds, in a few words for a card or a page; undefined when it does not. */
export function describeSyntheticData(instance: Pick<Instance, 'data'>): string | undefined {
  const data = instance.data;
  if (!data || !isSyntheticData(instance)) return undefined;
  if (data.synthetic) return data.synthetic.reason;
  const source = data.subsample?.source;
  if (source?.kind === 'generator')
    return `generated stand-in data (seeded generator ${source.generator ?? 'of @junobench/subsample'}), sampled`;
  return 'a synthetic table generated from the code that reads it';
}
