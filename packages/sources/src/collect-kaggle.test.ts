// Collecting Kaggle kernels: the pure parts (the dataset licence, the metadata's shapes), then collectKaggleKernels
// through the test-owned fake `kaggle` CLI (test-helpers/fake-kaggle: a real process).
import { mkdtemp, readFile, readdir, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { JunoError, checkSchema, hashInstanceTree, sha256, type SourceRecord } from '@junobench/core';
import { FAKE_KAGGLE_BINARY, FakeKaggle } from '../test-helpers/fake-kaggle/fake-kaggle-server.js';
import { makeNotebook } from '../test-helpers/notebooks.js';
import { pseudonymizeAuthor } from './author-id.js';
import {
  collectKaggleKernels,
  datasetRefOfMetadata,
  parseDatasetLicense,
  unwrapDatasetMetadata,
} from './collect-kaggle.js';
import { datasetCacheDir } from './fetch-kaggle-data.js';
import { KaggleCli } from './kaggle-cli.js';

// Each call starts the fake CLI as a real process: allow for a busy machine.
vi.setConfig({ testTimeout: 300_000 });

let tmp: string;
let fake: FakeKaggle;
const SALT = 'test-salt-0123456789abcdef';
const csv = 'id,price\n1,10\n2,20\n';

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'jb-collect-kaggle-'));
  fake = await FakeKaggle.create(path.join(tmp, 'server'));
  const nb = makeNotebook([
    { source: "import pandas as pd\ndf = pd.read_csv('/kaggle/input/house-prices/train.csv')" },
    { source: "df['prize']", error: { ename: 'KeyError', evalue: "'prize'" } },
  ]);
  await fake.addKernel('alice/house-crash', nb, { dataset_sources: ['alice/house-prices'], id_no: 4242 });
  await fake.addDataset('alice/house-prices', {
    title: 'House prices',
    licenses: [{ name: 'CC0-1.0' }],
    files: { 'train.csv': csv, 'docs/readme.txt': 'hi' },
  });
  await fake.addKernel('alice/unlicensed-crash', nb, {
    dataset_sources: ['carol/no-licence'],
    model_sources: ['google/gemma/transformers/2b/1'],
  });
  await fake.addDataset('carol/no-licence', { title: 'Scraped', licenses: [], files: { 'train.csv': csv } });
  await fake.addKernel('alice/other-licence-crash', nb, { dataset_sources: ['dave/other-terms'] });
  await fake.addDataset('dave/other-terms', {
    title: 'Terms in prose',
    licenses: [{ name: 'other' }],
    files: { 'train.csv': csv },
  });
  await fake.addKernel('alice/evil-zip-crash', nb, { dataset_sources: ['mallory/evil'] });
  await fake.addDataset('mallory/evil', {
    title: 'Evil',
    licenses: [{ name: 'CC0-1.0' }],
    files: { 'ok.csv': csv },
    zipExtra: [{ name: '../../escaped.txt', content: 'pwned' }],
  });
  await fake.addKernel('alice/not-a-notebook', '{"this": "is not a notebook"}');
  await fake.addKernel('alice/rules-crash', nb, { competition_sources: ['titanic'] });
  await fake.addCompetition('titanic', { 'train.csv': csv }, false);
});

const options = (out: string, withData = true) => ({
  cli: new KaggleCli({ binary: FAKE_KAGGLE_BINARY, env: { ...process.env, ...fake.env() }, backoffMs: 1 }),
  outDir: out,
  cacheDir: path.join(tmp, 'cache'),
  withData,
  salt: SALT,
});

async function caught(p: Promise<unknown>): Promise<JunoError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof JunoError) return e;
    throw e;
  }
  throw new Error('expected a JunoError');
}

const listOrEmpty = (d: string) => readdir(d, { recursive: true }).catch(() => [] as string[]);

describe('collectKaggleKernels', () => {
  it('writes the notebook as fetched, kernel-metadata.json and source.json; the dataset goes to the cache', async () => {
    const out = path.join(tmp, 'out1');
    const [c] = await collectKaggleKernels(['alice/house-crash'], options(out));
    expect(c!.dir).toBe(path.join(out, 'kaggle', 'alice', 'house-crash'));
    const files = (await readdir(c!.dir, { recursive: true })).sort();
    expect(files).toEqual([
      'datasets',
      'datasets/alice',
      'datasets/alice/house-prices',
      'datasets/alice/house-prices/dataset-metadata.json',
      'house-crash.ipynb',
      'kernel-metadata.json',
      'source.json',
    ]);
    const record = JSON.parse(await readFile(path.join(c!.dir, 'source.json'), 'utf8')) as SourceRecord;
    expect(checkSchema('source', record)).toEqual([]);
    const nbBytes = await readFile(path.join(c!.dir, 'house-crash.ipynb'));
    expect(record).toMatchObject({
      platform: 'kaggle',
      ref: 'alice/house-crash',
      url: 'https://www.kaggle.com/code/alice/house-crash',
      version: { kernelId: 4242 },
      codeLicense: 'Apache-2.0',
      notebook: { path: 'house-crash.ipynb', sha256: sha256(nbBytes), bytes: nbBytes.byteLength },
      authorId: pseudonymizeAuthor('kaggle', 'alice', SALT),
    });
    // Kept as the CLI wrote it: the real CLI 1.7 (kagglesdk) writes the API response, {"info": {…}}, defaults left out.
    const dsMeta = JSON.parse(
      await readFile(path.join(c!.dir, 'datasets/alice/house-prices/dataset-metadata.json'), 'utf8'),
    ) as { info: Record<string, unknown> };
    expect(Object.keys(dsMeta)).toEqual(['info']);
    expect(dsMeta.info).toMatchObject({
      ownerUser: 'alice',
      datasetSlug: 'house-prices',
      title: 'House prices',
      licenses: [{ name: 'CC0-1.0' }],
    });
    expect(dsMeta.info).not.toHaveProperty('isPrivate');
    const d = record.datasets[0]!;
    expect(d).toMatchObject({
      kind: 'dataset',
      ref: 'alice/house-prices',
      title: 'House prices',
      license: 'CC0-1.0',
      mount: 'house-prices',
    });
    expect(d.files).toEqual([
      { path: 'docs/readme.txt', bytes: 2, sha256: sha256('hi') },
      { path: 'train.csv', bytes: csv.length, sha256: sha256(csv) },
    ]);
    const cached = datasetCacheDir(path.join(tmp, 'cache'), d.treeSha256!);
    expect(await hashInstanceTree(cached)).toBe(d.treeSha256);
    // Nothing of the data in raw/sources, and no archive left anywhere.
    expect(files.some((f) => f.endsWith('.csv') || f.endsWith('.zip'))).toBe(false);
    expect((await listOrEmpty(path.join(tmp, 'cache', 'sources', 'tmp'))).length).toBe(0);
  });

  it('flags a dataset without a licence: data must then be synthetic', async () => {
    const [c] = await collectKaggleKernels(['alice/unlicensed-crash'], options(path.join(tmp, 'out2'), false));
    expect(c!.record.datasets[0]).toMatchObject({ ref: 'carol/no-licence', license: null });
    expect(c!.record.datasets[0]!.files).toBeUndefined();
    expect(c!.record.warnings?.join('\n')).toMatch(/carol\/no-licence declares no licence.*synthetic data/);
    // A Kaggle model input is not downloaded: said, not left to fail later on a missing file.
    expect(c!.record.warnings?.join('\n')).toMatch(
      /Kaggle model google\/gemma\/transformers\/2b\/1 is an input of this notebook: it is not collected/,
    );
  });

  it('flags a dataset whose licence is "other" (terms in its description): to be read before its data is shared', async () => {
    const [c] = await collectKaggleKernels(['alice/other-licence-crash'], options(path.join(tmp, 'out2b'), false));
    expect(c!.record.datasets[0]).toMatchObject({ ref: 'dave/other-terms', license: 'other' });
    expect(c!.record.warnings?.join('\n')).toMatch(
      /dave\/other-terms has the licence "other" \(specified in its description on kaggle\.com\/datasets\/dave\/other-terms\): read the terms before sharing/,
    );
  });

  it('refuses an archive entry escaping the target folder; nothing is written', async () => {
    const out = path.join(tmp, 'out3');
    const e = await caught(collectKaggleKernels(['alice/evil-zip-crash'], options(out)));
    expect(e.code).toBe('E_UNSAFE_ARCHIVE');
    expect(e.message).toMatch(/mallory\/evil is unsafe: unsafe archive entry "\.\.\/\.\.\/escaped\.txt"/);
    expect(await listOrEmpty(out)).toEqual([]);
    await expect(stat(path.join(tmp, 'cache', 'escaped.txt'))).rejects.toThrow();
    await expect(stat(path.join(tmp, 'escaped.txt'))).rejects.toThrow();
  });

  it('refuses a kernel that is not a notebook; nothing is written', async () => {
    const out = path.join(tmp, 'out4');
    const e = await caught(collectKaggleKernels(['alice/not-a-notebook'], options(out)));
    expect(e.code).toBe('E_NOTEBOOK');
    expect(e.message).toMatch(/unsupported notebook format \(no nbformat field\)/);
    expect(await listOrEmpty(out)).toEqual([]);
  });

  it('says when competition rules are not accepted', async () => {
    const e = await caught(collectKaggleKernels(['alice/rules-crash'], options(path.join(tmp, 'out5'))));
    expect([e.code, e.exitCode]).toEqual(['E_SOURCE_FORBIDDEN', 2]);
    expect(e.hint).toMatch(/accept the rules at https:\/\/www\.kaggle\.com\/competitions\/titanic\/rules/);
  });

  it('checks every ref before downloading anything', async () => {
    await fake.clearCalls();
    const e = await caught(collectKaggleKernels(['alice/house-crash', 'not a ref'], options(path.join(tmp, 'out6'))));
    expect(e.message).toMatch(/"not a ref" is not a valid Kaggle kernel ref/);
    expect(await fake.calls()).toEqual([]);
  });
});

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
