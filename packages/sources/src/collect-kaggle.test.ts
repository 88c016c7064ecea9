import { describe, expect, it } from 'vitest';
import { datasetRefOfMetadata, parseDatasetLicense } from './collect-kaggle.js';

describe('parseDatasetLicense', () => {
  it.each([
    [[{ name: 'CC0-1.0' }], 'CC0-1.0'],
    [[{ name: 'unknown' }], null],
    [[], null],
    [undefined, null],
    [[{ name: 'CC-BY-SA-4.0' }, { name: 'other' }], 'CC-BY-SA-4.0, other'],
  ])('%j → %s', (licenses, expected) => expect(parseDatasetLicense({ title: 't', ...(licenses ? { licenses } : {}) })).toBe(expected));
});

describe('datasetRefOfMetadata', () => {
  it.each([
    [{ title: 't', ownerUser: 'uciml', datasetSlug: 'iris' }, 'uciml/iris'],
    [{ title: 't', id: 'uciml/iris' }, 'uciml/iris'],
    [{ title: 't' }, undefined],
  ])('%j → %s', (meta, ref) => expect(datasetRefOfMetadata(meta)).toBe(ref));
});
