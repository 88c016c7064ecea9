import { describe, expect, it } from 'vitest';
import { datasetRefOfMetadata, parseDatasetLicense, unwrapDatasetMetadata } from './collect-kaggle.js';

describe('parseDatasetLicense', () => {
  it.each([
    [[{ name: 'CC0-1.0' }], 'CC0-1.0'],
    [[{ name: 'unknown' }], null],
    [[], null],
    [undefined, null],
    [[{ name: 'CC-BY-SA-4.0' }, { name: 'other' }], 'CC-BY-SA-4.0, other'],
  ])('%j → %s', (licenses, expected) =>
    expect(parseDatasetLicense({ title: 't', ...(licenses ? { licenses } : {}) })).toBe(expected),
  );
});

describe('datasetRefOfMetadata', () => {
  it.each([
    [{ title: 't', ownerUser: 'uciml', datasetSlug: 'iris' }, 'uciml/iris'],
    [{ title: 't', id: 'uciml/iris' }, 'uciml/iris'],
    [{ title: 't' }, undefined],
  ])('%j → %s', (meta, ref) => expect(datasetRefOfMetadata(meta)).toBe(ref));
});

describe('unwrapDatasetMetadata', () => {
  it.each([
    // the Kaggle CLI 1.7 (kagglesdk): the API response, defaults left out
    [
      { info: { datasetSlug: 'iris', ownerUser: 'uciml', title: 'Iris', licenses: [{ name: 'CC0-1.0' }] } },
      { datasetSlug: 'iris', ownerUser: 'uciml', title: 'Iris', licenses: [{ name: 'CC0-1.0' }] },
    ],
    [{ info: { datasetSlug: 'iris', ownerUser: 'uciml' } }, { datasetSlug: 'iris', ownerUser: 'uciml' }],
    // CLIs before 1.7: the fields at the top level
    [
      { id: 'uciml/iris', id_no: 1, title: 'Iris' },
      { id: 'uciml/iris', id_no: 1, title: 'Iris' },
    ],
    // not an object under info: left for the schema to refuse
    [
      { info: 'x', title: 'T' },
      { info: 'x', title: 'T' },
    ],
    [[1], [1]],
    [null, null],
  ])('%j → %j', (value, expected) => expect(unwrapDatasetMetadata(value)).toEqual(expected));
});
