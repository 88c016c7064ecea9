import { describe, expect, it } from 'vitest';
import type { Instance } from './generated/schema-types.js';
import { isSyntheticData } from './synthetic-data.js';

const subsample = (kind: 'generator' | 'dataset', method = 'table') =>
  ({
    data: {
      subsample: { seed: 1, source: { kind }, steps: [{ method, path: 'x.csv', parameters: {} }] },
    },
  }) as unknown as Pick<Instance, 'data'>;

describe('isSyntheticData', () => {
  it.each([
    ['no data note', {} as Pick<Instance, 'data'>, false],
    ['a synthetic-data note', { data: { synthetic: { reason: 'licence' } } } as Pick<Instance, 'data'>, true],
    ['a sample of a real dataset', subsample('dataset'), false],
    ["a sample of a generator's rows (pandas_3's stand-in)", subsample('generator'), true],
    ['a synthetic-table step', subsample('dataset', 'synthetic-table'), true],
  ])('%s → %s', (_what, instance, expected) => {
    expect(isSyntheticData(instance)).toBe(expected);
  });
});
