import { describe, expect, it } from 'vitest';
import { checkSchema, pointerToField, validateOrThrow } from './validate.js';

const instance = {
  id: 'pandas_1',
  source: { platform: 'local', datasets: [] },
  crash: { ename: 'KeyError', evalue: "'price'", match: 'exact', cell: 3 },
  execution: { order: 'file' },
  requires: ['pandas'],
  labels: {
    library: 'pandas',
    crashType: 'key error',
    rootCause: 'API misuse',
    pipelineStage: 'data preparation',
    diagnosis: 'x',
  },
};

describe('schema validation', () => {
  it('accepts a valid instance', () => {
    expect(checkSchema('instance', instance)).toEqual([]);
  });

  it.each([
    [
      { ...instance, crash: { ...instance.crash, match: 'fuzzy' } },
      'crash.match must be one of: "exact", "prefix", "regex"',
    ],
    [{ ...instance, labels: { ...instance.labels, rootCause: 'API Misuse' } }, 'labels.rootCause must be one of'],
    [{ ...instance, extra: 1 }, 'has unknown property "extra"'],
    [{ ...instance, crash: { ...instance.crash, cell: -1 } }, 'crash.cell must be >= 0'],
  ])('explains what is wrong (%#)', (value, message) => {
    expect(() => validateOrThrow('instance', value, { file: 'instance.json' })).toThrow(message);
  });

  it.each([
    ['', ''],
    ['/labels/rootCause', 'labels.rootCause'],
    ['/steps/2/keep/any/0', 'steps[2].keep.any[0]'],
  ])('pointerToField(%s) = %s', (p, f) => {
    expect(pointerToField(p)).toBe(f);
  });
});
