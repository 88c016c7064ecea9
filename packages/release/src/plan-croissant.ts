import type { CroissantDataset, CroissantField, CroissantFileObject, CroissantFileSet } from '@junobench/core';
import type { ResolvedMetadata } from './release-types.js';

/** The JSON-LD context the Croissant 1.0 specification recommends (its Appendix 1). */
export const CROISSANT_CONTEXT: CroissantDataset['@context'] = {
  '@language': 'en',
  '@vocab': 'https://schema.org/',
  sc: 'https://schema.org/',
  cr: 'http://mlcommons.org/croissant/',
  dct: 'http://purl.org/dc/terms/',
  rai: 'http://mlcommons.org/croissant/RAI/',
  citeAs: 'cr:citeAs',
  column: 'cr:column',
  conformsTo: 'dct:conformsTo',
  data: { '@id': 'cr:data', '@type': '@json' },
  dataType: { '@id': 'cr:dataType', '@type': '@vocab' },
  examples: { '@id': 'cr:examples', '@type': '@json' },
  extract: 'cr:extract',
  field: 'cr:field',
  fileProperty: 'cr:fileProperty',
  fileObject: 'cr:fileObject',
  fileSet: 'cr:fileSet',
  format: 'cr:format',
  includes: 'cr:includes',
  isLiveDataset: 'cr:isLiveDataset',
  jsonPath: 'cr:jsonPath',
  key: 'cr:key',
  md5: 'cr:md5',
  parentField: 'cr:parentField',
  path: 'cr:path',
  recordSet: 'cr:recordSet',
  references: 'cr:references',
  regex: 'cr:regex',
  repeated: 'cr:repeated',
  replace: 'cr:replace',
  separator: 'cr:separator',
  source: 'cr:source',
  subField: 'cr:subField',
  transform: 'cr:transform',
};

export const CROISSANT_CONFORMS_TO = 'http://mlcommons.org/croissant/1.0';

type DataType = CroissantField['dataType'];

/** What each benchmark.csv column holds; a column not listed here is described as text. */
const COLUMN_INFO: Record<string, { description: string; dataType: DataType }> = {
  id: { description: 'Stable instance id (never reused); the folder instances/<id>/.', dataType: 'sc:Text' },
  platform: { description: 'Where the notebook was collected: kaggle, github or local.', dataType: 'sc:Text' },
  notebook_url: { description: 'URL of the original notebook (empty when not public).', dataType: 'sc:URL' },
  datasets: { description: 'Titles of the input datasets, separated by "; ".', dataType: 'sc:Text' },
  dataset_licenses: {
    description: 'Licence of each input dataset, in the same order, separated by "; ".',
    dataType: 'sc:Text',
  },
  dataset_urls: {
    description: 'URL of each input dataset, in the same order, separated by "; ".',
    dataType: 'sc:Text',
  },
  synthetic_data: {
    description: '"yes" when the data in the instance is synthetic (the original licence forbids sharing it).',
    dataType: 'sc:Text',
  },
  crash_ename: { description: 'Exception class the reproduced notebook raises.', dataType: 'sc:Text' },
  crash_evalue: { description: 'Exception message (matched as crash_match says).', dataType: 'sc:Text' },
  crash_match: { description: 'How the message is matched: exact, prefix or regex.', dataType: 'sc:Text' },
  crash_cell: {
    description: 'Index of the crashing cell among the code cells of reproduced.ipynb.',
    dataType: 'sc:Integer',
  },
  execution_order: {
    description: 'Cell order: file (top to bottom) or execution-count (replay of the saved execution counts).',
    dataType: 'sc:Text',
  },
  requires: { description: 'Top-level Python modules the notebooks import, space-separated.', dataType: 'sc:Text' },
  library: {
    description: 'Library cause label (None = no library caused the crash).',
    dataType: ['sc:Text', 'cr:Label'],
  },
  crash_type: { description: 'Crash type label.', dataType: ['sc:Text', 'cr:Label'] },
  root_cause: { description: 'Root cause label.', dataType: ['sc:Text', 'cr:Label'] },
  pipeline_stage: { description: 'ML pipeline stage label.', dataType: ['sc:Text', 'cr:Label'] },
  diagnosis: { description: 'Natural-language diagnosis of the crash.', dataType: 'sc:Text' },
  verification_status: {
    description:
      'verified, or skipped (skipped-env: a required module was missing in the runtime that verified the release).',
    dataType: 'sc:Text',
  },
  reproduced_outcome: {
    description: 'Outcome of reproduced.ipynb: crash-reproduced, or skipped-env.',
    dataType: 'sc:Text',
  },
  fixed_outcome: { description: 'Outcome of fixed.ipynb: fixed-ok, or skipped-env.', dataType: 'sc:Text' },
  verification_note: { description: 'Why an instance was skipped, when it was.', dataType: 'sc:Text' },
};

export interface CroissantFileFacts {
  path: string;
  bytes: number;
  sha256: string;
}

export interface PlanCroissantInput {
  version: string;
  metadata: ResolvedMetadata;
  /** ISO date-time of the release (from SOURCE_DATE_EPOCH). */
  datePublished: string;
  /** The columns of benchmark.csv, as its header names them. */
  csvColumns: readonly string[];
  benchmarkCsv: CroissantFileFacts;
  benchmarkJson: CroissantFileFacts;
  /** Counts shown in the description. */
  counts: { instances: number; verified: number; skippedEnv: number };
}

const ARCHIVE_ID = 'archive';

/**
 * croissant.json as it is inside the archive: it describes the extracted
 * folder (contentUrl and includes are relative to it). It cannot name the
 * checksum of the archive that contains it; sealCroissant adds the archive.
 */
export function planCroissant(input: PlanCroissantInput): CroissantDataset {
  const m = input.metadata;
  const c = input.counts;
  const fileObject = (
    id: string,
    f: CroissantFileFacts,
    encodingFormat: string,
    description: string,
  ): CroissantFileObject => ({
    '@type': 'cr:FileObject',
    '@id': id,
    name: f.path,
    description,
    contentUrl: f.path,
    contentSize: `${f.bytes} B`,
    encodingFormat,
    sha256: f.sha256,
  });
  const fileSet = (id: string, includes: string, encodingFormat: string, description: string): CroissantFileSet => ({
    '@type': 'cr:FileSet',
    '@id': id,
    name: id,
    description,
    encodingFormat,
    includes,
  });
  const fields: CroissantField[] = input.csvColumns.map((column) => {
    const info = COLUMN_INFO[column] ?? {
      description: `Column ${column} of benchmark.csv.`,
      dataType: 'sc:Text' as const,
    };
    return {
      '@type': 'cr:Field',
      '@id': `benchmark/${column}`,
      name: column,
      description: info.description,
      dataType: info.dataType,
      source: { fileObject: { '@id': 'benchmark.csv' }, extract: { column } },
    };
  });
  return {
    '@context': CROISSANT_CONTEXT,
    '@type': 'sc:Dataset',
    conformsTo: CROISSANT_CONFORMS_TO,
    name: m.name,
    description:
      `${m.description}\n\nRelease ${input.version}: ${c.instances} instances, ${c.verified} verified by executing them` +
      (c.skippedEnv > 0
        ? `, ${c.skippedEnv} released as skipped-env (a required module was missing where the release was verified; never counted as verified)`
        : '') +
      '.',
    license: spdxUrl(m.license),
    url: m.url,
    version: input.version,
    citeAs: m.citation,
    datePublished: input.datePublished,
    creator: m.creators.map((name) => ({ '@type': 'sc:Person' as const, name })),
    keywords: [...m.keywords],
    distribution: [
      fileObject(
        'benchmark.csv',
        input.benchmarkCsv,
        'text/csv',
        'One row per instance: source, datasets and licences, crash, labels, diagnosis, verification status.',
      ),
      fileObject(
        'benchmark.json',
        input.benchmarkJson,
        'application/json',
        'The same as benchmark.csv, as JSON (schemas/benchmark.schema.json).',
      ),
      fileSet(
        'notebook-files',
        'instances/*/*.ipynb',
        'application/x-ipynb+json',
        'original.ipynb, reproduced.ipynb and fixed.ipynb of every instance.',
      ),
      fileSet(
        'instance-metadata',
        'instances/*/instance.json',
        'application/json',
        'instance.json of every instance: source, expected crash, execution order, requirements, final labels.',
      ),
      fileSet(
        'instance-data',
        'instances/*/data/**',
        'application/octet-stream',
        'Input data of every instance (subsampled, or synthetic where the licence forbids sharing).',
      ),
    ],
    recordSet: [
      {
        '@type': 'cr:RecordSet',
        '@id': 'benchmark',
        name: 'benchmark',
        description: 'The instances of the benchmark: one record per row of benchmark.csv.',
        key: { '@id': 'benchmark/id' },
        field: fields,
      },
      {
        '@type': 'cr:RecordSet',
        '@id': 'notebooks',
        name: 'notebooks',
        description: 'Every notebook of every instance, by path (instances/<id>/<version>.ipynb).',
        field: [
          {
            '@type': 'cr:Field',
            '@id': 'notebooks/path',
            name: 'path',
            description: 'Path of the notebook in the release.',
            dataType: 'sc:Text',
            source: { fileSet: { '@id': 'notebook-files' }, extract: { fileProperty: 'fullpath' } },
          },
          {
            '@type': 'cr:Field',
            '@id': 'notebooks/content',
            name: 'content',
            description: 'The notebook (nbformat 4 JSON).',
            dataType: 'sc:Text',
            source: { fileSet: { '@id': 'notebook-files' }, extract: { fileProperty: 'content' } },
          },
        ],
      },
    ],
  };
}

/**
 * croissant.json beside the archive (release folder, GitHub asset): the
 * archive becomes a FileObject with its sha256, and everything else is
 * containedIn it, one folder down (the archive's top folder).
 */
export function sealCroissant(
  inner: CroissantDataset,
  archive: { name: string; bytes: number; sha256: string; url: string; topFolder: string },
): CroissantDataset {
  const prefix = `${archive.topFolder}/`;
  const distribution: CroissantDataset['distribution'] = [
    {
      '@type': 'cr:FileObject',
      '@id': ARCHIVE_ID,
      name: archive.name,
      description: 'The release archive: every file of the release under one top folder.',
      contentUrl: archive.url,
      contentSize: `${archive.bytes} B`,
      encodingFormat: 'application/x-gzip',
      sha256: archive.sha256,
    },
    ...inner.distribution.map((d) =>
      d['@type'] === 'cr:FileObject'
        ? { ...d, contentUrl: prefix + d.contentUrl, containedIn: { '@id': ARCHIVE_ID } }
        : {
            ...d,
            includes: Array.isArray(d.includes) ? d.includes.map((p) => prefix + p) : prefix + (d.includes as string),
            containedIn: { '@id': ARCHIVE_ID },
          },
    ),
  ];
  return { ...inner, distribution };
}

/** Croissant recommends the URL of a known licence. */
export function spdxUrl(id: string): string {
  return /^https?:\/\//.test(id) ? id : `https://spdx.org/licenses/${id}.html`;
}
