import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  JunoError,
  checkSchema,
  formatJson,
  hashInstanceTree,
  noProgress,
  type Instance,
  type SubsampleBuildReport,
  type SubsampleSpec,
} from '@junobench/core';
import { createDataStage, writeSubsampleBuildReport } from './stage-data.js';

let root: string;
let written: SubsampleBuildReport;

/** A draft instance whose data/ was subsampled from `full` (a downloaded dataset, identified by its tree hash). */
async function writeSubsampledInstance(id: string, full: string): Promise<void> {
  const spec: SubsampleSpec = {
    seed: 7,
    source: {
      kind: 'dataset',
      title: 'House prices',
      url: 'https://www.kaggle.com/datasets/datalab/house-prices',
      sha256: await hashInstanceTree(full),
    },
    steps: [{ path: 'house-prices/train.csv', method: 'table', parameters: { rows: 40, stratifyBy: 'region' } }],
  };
  const dir = path.join(root, 'raw', 'instances', id);
  await mkdir(dir, { recursive: true });
  // Loaded as the stage loads it (pipeline loads stage packages lazily: CONTRIBUTING.md).
  const { subsampleData } = await import('@junobench/subsample');
  const report = await subsampleData({ sourceDir: full, outDir: path.join(dir, 'data'), spec });
  const instance: Instance = {
    id,
    status: 'draft',
    source: { platform: 'kaggle', datasets: [{ title: 'House prices', license: 'CC0-1.0' }] },
    crash: { ename: 'KeyError', evalue: "'prize'", match: 'exact', cell: 1 },
    execution: { order: 'file' },
    requires: ['pandas'],
    data: { subsample: { ...spec, result: report.result } },
  };
  await writeFile(path.join(dir, 'instance.json'), formatJson(instance));
}

async function writeFullData(name: string, rows: number): Promise<string> {
  const full = path.join(root, 'downloads', name);
  await mkdir(path.join(full, 'house-prices'), { recursive: true });
  const lines = [
    'id,region,price',
    ...Array.from({ length: rows }, (_, i) => `${i},${['n', 's', 'e', 'w'][i % 4]},${1000 + i}`),
  ];
  await writeFile(path.join(full, 'house-prices', 'train.csv'), `${lines.join('\n')}\n`);
  return full;
}

// The real data stage on two subsampled instances: one whose full data is in the cache (checked), one whose is not
// (skipped).
beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'stage-data-'));
  const fetched = await writeFullData('fetched', 400);
  await writeSubsampledInstance('pandas_8', fetched);
  const { fullDataCacheDir } = await import('@junobench/sources');
  await cp(fetched, fullDataCacheDir(path.join(root, '.cache'), await hashInstanceTree(fetched)), { recursive: true });
  await writeSubsampledInstance('pandas_9', await writeFullData('elsewhere', 300));
  const stage = createDataStage({
    instancesDir: 'raw/instances',
    output: 'curated/subsample.json',
    cacheDir: '.cache',
  });
  const result = await stage.run({ root, abs: (rel) => path.resolve(root, rel), onProgress: noProgress });
  expect(result.failed).toBe(false);
  written = JSON.parse(await readFile(path.join(root, 'curated', 'subsample.json'), 'utf8')) as SubsampleBuildReport;
}, 120_000);

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('curated/subsample.json (the data stage of build)', () => {
  it('is what the real stage wrote: valid against subsample-build-report', () => {
    expect(checkSchema('subsample-build-report', written)).toEqual([]);
    expect(written.checks).toEqual([{ instance: 'pandas_8', reproduced: true, detail: 'byte-identical' }]);
    expect(written.skipped).toEqual([
      { instance: 'pandas_9', detail: 'full data not fetched: run `junobench sources fetch pandas_9`' },
    ]);
    expect(written.summary).toMatchObject({ instances: 1, applied: 1, filesKept: 1 });
  });

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- reports are broken on purpose, field by field
  type Report = any;
  // Broken copies of the real report: each is an internal error naming the field, and no file is written.
  it.each([
    [
      'a check without its verdict',
      (r: Report) => delete r.checks[0].reproduced,
      'checks[0] is missing required property "reproduced"',
    ],
    ['a verdict that is a string', (r: Report) => (r.checks[0].reproduced = 'yes'), 'checks[0].reproduced'],
    [
      'a skip without its reason',
      (r: Report) => delete r.skipped[0].detail,
      'skipped[0] is missing required property "detail"',
    ],
    [
      'a summary without its totals',
      (r: Report) => delete r.summary.before,
      'summary is missing required property "before"',
    ],
    ['a negative size in the summary', (r: Report) => (r.summary.after.bytes = -1), 'summary.after.bytes'],
    [
      'a summary status the summary does not know',
      (r: Report) => (r.summary.perInstance[0].status = 'redone'),
      'summary.perInstance[0].status',
    ],
    ['no checks at all', (r: Report) => delete r.checks, 'missing required property "checks"'],
    ['an extra property', (r: Report) => (r.failed = false), 'unknown property "failed"'],
  ])('%s fails (%s)', async (_what, breakIt, named) => {
    const dir = await mkdtemp(path.join(tmpdir(), 'stage-data-broken-'));
    const file = path.join(dir, 'subsample.json');
    const report = structuredClone(written);
    breakIt(report);
    let error: unknown;
    try {
      await writeSubsampleBuildReport(file, report);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(JunoError);
    expect(error).toMatchObject({ code: 'E_INTERNAL', exitCode: 70, location: { file } });
    expect((error as JunoError).message).toContain('not a valid subsample-build-report: ');
    expect((error as JunoError).message).toContain(named);
    expect(await readdir(dir)).toEqual([]);
    await rm(dir, { recursive: true, force: true });
  });
});
