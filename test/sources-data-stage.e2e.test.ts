// The data stage of `junobench build` with an instance whose data/ was
// subsampled from a downloaded dataset: without the full data it says how to
// fetch it (not a failure); once `sources fetch` has put the full data in the
// cache (.junobench-cache/sources/full/<tree hash>/), it redoes the
// subsampling from it and checks data/ byte for byte.
import { cp, mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { formatJson, hashInstanceTree, type Instance, type SubsampleSpec } from '@junobench/core';
import { subsampleData } from '@junobench/subsample';
import { runJunobench } from './run-cli.js';

let proj: string;
let full: string;
let sha: string;

beforeAll(async () => {
  proj = await mkdtemp(path.join(os.tmpdir(), 'jb-data-stage-'));
  full = path.join(proj, 'downloaded');
  await mkdir(path.join(full, 'house-prices'), { recursive: true });
  const rows = [
    'id,region,price',
    ...Array.from({ length: 3000 }, (_, i) => `${i},${['n', 's', 'e', 'w'][i % 4]},${1000 + i}`),
  ];
  await writeFile(path.join(full, 'house-prices', 'train.csv'), `${rows.join('\n')}\n`);
  sha = await hashInstanceTree(full);
  const spec: SubsampleSpec = {
    seed: 7,
    source: {
      kind: 'dataset',
      title: 'House prices',
      url: 'https://www.kaggle.com/datasets/datalab/house-prices',
      sha256: sha,
    },
    steps: [{ path: 'house-prices/train.csv', method: 'table', parameters: { rows: 100, stratifyBy: 'region' } }],
  };
  const dir = path.join(proj, 'raw', 'instances', 'pandas_9');
  await mkdir(dir, { recursive: true });
  const report = await subsampleData({ sourceDir: full, outDir: path.join(dir, 'data'), spec });
  const instance: Instance = {
    id: 'pandas_9',
    status: 'draft',
    source: { platform: 'kaggle', datasets: [{ title: 'House prices', license: 'CC0-1.0' }] },
    crash: { ename: 'KeyError', evalue: "'prize'", match: 'exact', cell: 1 },
    execution: { order: 'file' },
    requires: ['pandas'],
    data: { subsample: { ...spec, result: report.result } },
  };
  await writeFile(path.join(dir, 'instance.json'), formatJson(instance));
});

const build = () =>
  runJunobench(['build', '--only', 'data'], {
    cwd: proj,
    env: { JUNOBENCH_CACHE_DIR: path.join(proj, '.junobench-cache') },
  });

describe('data stage with full data from the sources', () => {
  it('without the fetched full data: not checked, with the command that fetches it', async () => {
    const r = await build();
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout + r.stderr).toMatch(
      /not checked \(pandas_9: full data not fetched: run `junobench sources fetch pandas_9`\)/,
    );
    const report = JSON.parse(await readFile(path.join(proj, 'curated', 'subsample.json'), 'utf8'));
    expect(report.skipped).toEqual([
      { instance: 'pandas_9', detail: 'full data not fetched: run `junobench sources fetch pandas_9`' },
    ]);
  }, 600_000);

  it('with the full data in the cache under its tree hash: the stage runs again and redoes data/ byte for byte', async () => {
    await cp(full, path.join(proj, '.junobench-cache', 'sources', 'full', sha), { recursive: true });
    const r = await build();
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout + r.stderr).toMatch(/1\/1 subsampled instance\(s\) reproduced byte for byte/);
    const report = JSON.parse(await readFile(path.join(proj, 'curated', 'subsample.json'), 'utf8'));
    expect(report.checks).toEqual([{ instance: 'pandas_9', reproduced: true, detail: 'byte-identical' }]);
  }, 600_000);

  it('notices a data/ that the full data no longer gives', async () => {
    const csv = path.join(proj, 'raw', 'instances', 'pandas_9', 'data', 'house-prices', 'train.csv');
    await writeFile(csv, (await readFile(csv, 'utf8')).replace(/\n\d+,n,/, '\n99999,n,'));
    const r = await build();
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toMatch(/NOT reproduced: pandas_9 \(differs from the data\/ the instance ships\)/);
  }, 600_000);
});
