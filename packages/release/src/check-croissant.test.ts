import { describe, expect, it } from 'vitest';
import { sha256, type CroissantDataset } from '@junobench/core';
import { checkCroissant, globToRegExp } from './check-croissant.js';
import { planCroissant, sealCroissant } from './plan-croissant.js';
import { DEFAULT_RELEASE_METADATA } from './read-release-metadata.js';

const csv = 'id,library,crash_cell\nnumpy_1,numpy,3\n';
const json = '{"name":"JunoBench","instances":[]}\n';
const files = new Map([
  ['benchmark.csv', { bytes: Buffer.byteLength(csv), sha256: sha256(csv) }],
  ['benchmark.json', { bytes: Buffer.byteLength(json), sha256: sha256(json) }],
  ['instances/numpy_1/fixed.ipynb', { bytes: 2, sha256: sha256('{}') }],
  ['instances/numpy_1/instance.json', { bytes: 2, sha256: sha256('{}') }],
  ['instances/numpy_1/data/sub/train.csv', { bytes: 2, sha256: sha256('{}') }],
]);
const ctx = { files, csvText: new Map([['benchmark.csv', csv]]), version: '0.1.0' };

function doc(): CroissantDataset {
  return planCroissant({
    version: '0.1.0',
    metadata: { ...DEFAULT_RELEASE_METADATA },
    datePublished: '2026-01-01T00:00:00.000Z',
    csvColumns: ['id', 'library', 'crash_cell'],
    benchmarkCsv: { path: 'benchmark.csv', ...files.get('benchmark.csv')! },
    benchmarkJson: { path: 'benchmark.json', ...files.get('benchmark.json')! },
    counts: { instances: 1, verified: 1, skippedEnv: 0 },
  });
}

describe('planCroissant', () => {
  it('is Croissant 1.0: context, type, conformsTo, required dataset properties, one field per CSV column', () => {
    const d = doc();
    expect(d['@type']).toBe('sc:Dataset');
    expect(d.conformsTo).toBe('http://mlcommons.org/croissant/1.0');
    expect(d['@context'].cr).toBe('http://mlcommons.org/croissant/');
    expect(d.license).toBe('https://spdx.org/licenses/CC-BY-4.0.html');
    const fields = d.recordSet[0]!.field;
    expect(fields.map((f) => f.source.extract.column)).toEqual(['id', 'library', 'crash_cell']);
    expect(fields.find((f) => f.name === 'crash_cell')!.dataType).toBe('sc:Integer');
    expect(fields.find((f) => f.name === 'library')!.dataType).toEqual(['sc:Text', 'cr:Label']);
    expect(checkCroissant(d, ctx)).toEqual([]);
  });

  it('sealed beside the archive: the archive is a FileObject with its sha256, the rest containedIn it', () => {
    const archive = {
      name: 'junobench-0.1.0.tar.gz',
      bytes: 1234,
      sha256: 'f'.repeat(64),
      url: 'junobench-0.1.0.tar.gz',
      topFolder: 'junobench-0.1.0',
    };
    const sealed = sealCroissant(doc(), archive);
    const first = sealed.distribution[0]!;
    expect(first).toMatchObject({
      '@type': 'cr:FileObject',
      '@id': 'archive',
      sha256: archive.sha256,
      contentSize: '1234 B',
      encodingFormat: 'application/x-gzip',
    });
    expect(sealed.distribution.slice(1).every((d) => d.containedIn?.['@id'] === 'archive')).toBe(true);
    expect(sealed.distribution.find((d) => d['@id'] === 'notebook-files')).toMatchObject({
      includes: 'junobench-0.1.0/instances/*/*.ipynb',
    });
    expect(checkCroissant(sealed, { ...ctx, archive, topFolder: 'junobench-0.1.0' })).toEqual([]);
    expect(
      checkCroissant(sealed, {
        ...ctx,
        archive: { ...archive, sha256: 'e'.repeat(64) },
        topFolder: 'junobench-0.1.0',
      }).map((i) => i.at),
    ).toEqual(['archive']);
  });
});

describe('checkCroissant', () => {
  const cases: [string, (d: CroissantDataset) => void, string[]][] = [
    [
      'a schema violation',
      (d) => void ((d as { conformsTo: string }).conformsTo = 'http://mlcommons.org/croissant/0.8'),
      ['conformsTo'],
    ],
    [
      'a reference to an undeclared @id',
      (d) => void (d.recordSet[0]!.field[0]!.source.fileObject = { '@id': 'benchmark.tsv' }),
      ['benchmark/id.source.fileObject', 'benchmark'],
    ],
    [
      'a fileSet reference to a FileObject',
      (d) => void (d.recordSet[1]!.field[0]!.source.fileSet = { '@id': 'benchmark.csv' }),
      ['notebooks/path.source.fileSet'],
    ],
    [
      'a column the CSV does not have',
      (d) => void (d.recordSet[0]!.field[1]!.source.extract.column = 'lib'),
      ['benchmark/library.source.extract', 'benchmark'],
    ],
    ['a CSV column no field maps', (d) => void d.recordSet[0]!.field.pop(), ['benchmark']],
    [
      'a wrong sha256',
      (d) => void ((d.distribution[0] as { sha256: string }).sha256 = '0'.repeat(64)),
      ['benchmark.csv'],
    ],
    [
      'a wrong size',
      (d) => void ((d.distribution[0] as { contentSize: string }).contentSize = '7 B'),
      ['benchmark.csv'],
    ],
    [
      'a file that is not there',
      (d) => void ((d.distribution[1] as { contentUrl: string }).contentUrl = 'benchmark.jsonl'),
      ['benchmark.json'],
    ],
    [
      'a FileSet that matches nothing',
      (d) => void ((d.distribution[4] as { includes: string }).includes = 'instances/*/data/*.parquet'),
      ['instance-data'],
    ],
    ['a duplicate @id', (d) => void (d.recordSet[1]!['@id'] = 'benchmark'), ['benchmark']],
    ['a key that is not a field', (d) => void (d.recordSet[0]!.key = { '@id': 'benchmark/uid' }), ['benchmark.key']],
    ['another version', (d) => void (d.version = '0.2.0'), ['version']],
  ];
  it.each(cases)('reports %s', (_name, mutate, at) => {
    const d = doc();
    mutate(d);
    const issues = checkCroissant(d, ctx);
    expect(issues.map((i) => i.at)).toEqual(at);
    for (const i of issues) expect(i.message).not.toBe('');
  });

  it.each([
    ['instances/*/*.ipynb', 'instances/a/fixed.ipynb', true],
    ['instances/*/*.ipynb', 'instances/a/data/x.ipynb', false],
    ['instances/*/data/**', 'instances/a/data/x/y.csv', true],
    ['**/*.csv', 'benchmark.csv', true],
    ['data/?.csv', 'data/ab.csv', false],
    // A hostile release's glob: minutes on a backtracking engine, linear here.
    [`${'*a'.repeat(16)}*b`, 'a'.repeat(60), false],
  ])('glob %s on %s: %s', (glob, p, match) => expect(globToRegExp(glob).test(p)).toBe(match));
});
