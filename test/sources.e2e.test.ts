// The scenario end to end, with real processes: the junobench binary,
// the test-owned fake `kaggle` CLI, the test-owned GitHub API on 127.0.0.1,
// and the local runtime (real Jupyter kernels). Collect a Kaggle kernel with
// its dataset and a GitHub notebook, `add` both as drafts verified in the
// local runtime, `sources fetch` checks them, then an upstream change is
// reported as drift.
import { mkdir, mkdtemp, readFile, readdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSchema, hashInstanceTree, type Instance, type SourcesLock } from '@junobench/core';
import { runJunobench } from './run-cli.js';
import { FAKE_KAGGLE_KEY, FakeKaggle } from '../packages/sources/test-helpers/fake-kaggle/fake-kaggle-server.js';
import { GithubContentsServer } from '../packages/sources/test-helpers/github-contents-server.js';
import { makeNotebook } from '../packages/sources/test-helpers/notebooks.js';

let proj: string;
let fake: FakeKaggle;
let gh: GithubContentsServer;
let env: NodeJS.ProcessEnv;
// The ids `add` gives (<suggested library>_<n>): read from its output, so the test does not depend on the suggester.
let kaggleId = '';
let githubId = '';
const csv =
  ['id,area,price', ...Array.from({ length: 200 }, (_, i) => `${i},${50 + (i % 37)},${1000 + i * 7}`)].join('\n') +
  '\n';

const kaggleNb = makeNotebook([
  { markdown: true, source: '# House prices' },
  { source: "import pandas as pd\ndf = pd.read_csv('/kaggle/input/house-prices/train.csv')", count: 1 },
  { source: 'df.describe()', count: 2 },
  { source: "df['prize'].mean()", count: 3, error: { ename: 'KeyError', evalue: "'prize'" } },
  { source: "df['price'].mean()", count: null },
]);
// Run out of order: the session defined `scale` after the cell that uses it had failed once… then the crash.
const githubNb = makeNotebook([
  { source: 'import numpy as np', count: 1 },
  { source: 'a = np.zeros(3)', count: 3 },
  { source: 'b = np.zeros(4)', count: 2 },
  {
    source: 'a + b',
    count: 4,
    error: { ename: 'ValueError', evalue: 'operands could not be broadcast together with shapes (3,) (4,) ' },
  },
]);

beforeAll(async () => {
  proj = await mkdtemp(path.join(os.tmpdir(), 'jb-sources-e2e-'));
  await mkdir(path.join(proj, 'raw', 'instances'), { recursive: true });
  fake = await FakeKaggle.create(path.join(proj, 'kaggle-server'));
  await fake.addKernel('alice/house-prices-crash', kaggleNb, {
    dataset_sources: ['datalab/house-prices'],
    id_no: 31337,
  });
  await fake.addDataset('datalab/house-prices', {
    title: 'House Prices',
    licenses: [{ name: 'CC0-1.0' }],
    files: { 'train.csv': csv },
  });
  gh = await new GithubContentsServer().start();
  gh.addRepo(
    'octo/notebooks',
    { 'eda/broadcast.ipynb': JSON.stringify(githubNb) },
    { license: { spdx_id: 'Apache-2.0', name: 'Apache License 2.0', key: 'apache-2.0' } },
  );
  env = fake.env({
    GITHUB_API_URL: gh.url,
    JUNOBENCH_CACHE_DIR: path.join(proj, 'cache'),
    JUNOBENCH_AUTHOR_SALT: 'e2e-salt-0123456789abcdef',
  });
});
afterAll(() => gh.stop());

const run = (args: string[]) => runJunobench(args, { cwd: proj, env });

describe('collect → add → verify → sources fetch → drift', () => {
  it('collects a Kaggle kernel with its dataset', async () => {
    const r = await run(['collect', 'kaggle', 'alice/house-prices-crash', '--with-data']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      'collected kaggle alice/house-prices-crash → raw/sources/kaggle/alice/house-prices-crash',
    );
    expect(r.stdout).toMatch(/dataset\s+datalab\/house-prices "House Prices" — licence CC0-1\.0 — 1 file/);
    expect(r.stdout + r.stderr).not.toContain(FAKE_KAGGLE_KEY);
    const record = JSON.parse(
      await readFile(path.join(proj, 'raw/sources/kaggle/alice/house-prices-crash/source.json'), 'utf8'),
    );
    expect(checkSchema('source', record)).toEqual([]);
  }, 900_000);

  it('collects a GitHub notebook', async () => {
    const r = await run(['collect', 'github', 'https://github.com/octo/notebooks/blob/main/eda/broadcast.ipynb']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      'collected github octo/notebooks:eda/broadcast.ipynb@main → raw/sources/github/octo/notebooks--eda--broadcast',
    );
    expect(r.stdout).toContain('code licence Apache-2.0');
  }, 900_000);

  it('adds the Kaggle kernel as a draft whose crash reproduces in the local runtime', async () => {
    const r = await run([
      'add',
      'raw/sources/kaggle/alice/house-prices-crash',
      '--notebook',
      fake.pageNotebook('alice/house-prices-crash'),
    ]);
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    kaggleId = /^draft (\S+) written to raw\/instances\/\1$/m.exec(r.stdout)?.[1] ?? '';
    expect(kaggleId, r.stdout).toMatch(/^[A-Za-z]+_1$/);
    expect(r.stdout).toContain('crash reproduced as mined (local runtime');
    expect(r.stdout).toContain('/kaggle/input/house-prices → data/house-prices');
    // Every step to a ready instance, the annotators' labels included (build's labels stage stops without them).
    expect(r.stdout).toContain(
      `have each annotator label ${kaggleId} (junobench labels sheet --annotator <name> -o <name>.xlsx, then labels import; or labels record)`,
    );
    expect(r.stdout).toContain('then set "status": "ready" in instance.json and build');
    const dir = path.join(proj, 'raw/instances', kaggleId);
    // fixed.ipynb is the draft fix: the reproduced notebook, marked.
    expect((await readdir(dir)).sort()).toEqual([
      'data',
      'fixed.ipynb',
      'instance.json',
      'original.ipynb',
      'reproduced.ipynb',
    ]);
    // original.ipynb is the notebook with its saved outputs as downloaded, byte for byte (the pull gives the source
    // only).
    expect(await readFile(path.join(dir, 'original.ipynb'), 'utf8')).toBe(
      await readFile(fake.pageNotebook('alice/house-prices-crash'), 'utf8'),
    );
    expect(await readFile(path.join(dir, 'data/house-prices/train.csv'), 'utf8')).toBe(csv);
    const inst = JSON.parse(await readFile(path.join(dir, 'instance.json'), 'utf8')) as Instance;
    expect(checkSchema('instance', inst)).toEqual([]);
    expect(inst).toMatchObject({
      id: kaggleId,
      status: 'draft',
      crash: { ename: 'KeyError', evalue: "'prize'", match: 'exact', cell: 2 },
      execution: { order: 'file' },
      requires: ['pandas'],
      source: {
        platform: 'kaggle',
        datasets: [
          { title: 'House Prices', license: 'CC0-1.0', url: 'https://www.kaggle.com/datasets/datalab/house-prices' },
        ],
      },
    });
    expect(Object.keys(inst.suggestedLabels ?? {}).sort()).toEqual([
      'crashType',
      'library',
      'pipelineStage',
      'rootCause',
    ]);
    expect(inst.labels).toBeUndefined();
    // Pseudonymous: the owner's name is nowhere in the instance.
    expect(JSON.stringify(inst)).not.toMatch(/alice/);
    expect(inst.source.authorId).toMatch(/^author-[0-9a-f]{16}$/);
    const reproduced = JSON.parse(await readFile(path.join(dir, 'reproduced.ipynb'), 'utf8'));
    expect(JSON.stringify(reproduced)).toContain('data/house-prices/train.csv');
    expect(reproduced.cells.filter((c: { cell_type: string }) => c.cell_type === 'code')).toHaveLength(3);
    const lock = JSON.parse(await readFile(path.join(proj, 'raw/sources.lock.json'), 'utf8')) as SourcesLock;
    expect(checkSchema('sources-lock', lock)).toEqual([]);
    expect(lock.instances[kaggleId]).toMatchObject({
      platform: 'kaggle',
      record: 'sources/kaggle/alice/house-prices-crash',
      notebook: { ref: 'alice/house-prices-crash' },
    });
    expect(lock.instances[kaggleId]!.data!.sha256).toBe(await hashInstanceTree(path.join(dir, 'data')));
  }, 900_000);

  it('adds the GitHub notebook replayed by execution count, verified in the local runtime', async () => {
    const r = await run(['add', 'raw/sources/github/octo/notebooks--eda--broadcast']);
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    githubId = /^draft (\S+) written to raw\/instances\/\1$/m.exec(r.stdout)?.[1] ?? '';
    expect(githubId, r.stdout).toMatch(/^[A-Za-z]+_\d+$/);
    expect(r.stdout).toContain('order      execution-count');
    expect(r.stdout).toContain('crash reproduced as mined (local runtime');
    const inst = JSON.parse(
      await readFile(path.join(proj, 'raw/instances', githubId, 'instance.json'), 'utf8'),
    ) as Instance;
    expect(inst).toMatchObject({
      status: 'draft',
      execution: { order: 'execution-count' },
      source: { platform: 'github' },
      crash: { ename: 'ValueError', cell: 3 },
    });
  }, 900_000);

  it('verifies the drafts: reproduced only, reported as drafts, not failures', async () => {
    const r = await run(['verify', '--include-drafts', '--json', 'v.json']);
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    for (const id of [kaggleId, githubId])
      expect(r.stdout).toMatch(new RegExp(`^${id}\\s+crash-reproduced\\s+draft-fix\\s+.*DRAFT$`, 'm'));
    expect(r.stdout).toContain(
      'apart from them, 2 drafts (not in the benchmark): 2 reproducing the crash, fix pending',
    );
    const report = JSON.parse(await readFile(path.join(proj, 'v.json'), 'utf8'));
    expect(checkSchema('verification', report)).toEqual([]);
    expect(report.summary).toMatchObject({ total: 2, verified: 0, notVerified: 0, drafts: 2 });
  }, 900_000);

  it('sources fetch finds everything as locked and assembles the full data', async () => {
    const r = await run(['sources', 'fetch']);
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(`^${githubId}\\s+notebook\\s+octo/notebooks:eda/broadcast\\.ipynb@main\\s+ok`, 'm'),
    );
    expect(r.stdout).toMatch(new RegExp(`^${kaggleId}\\s+dataset\\s+datalab/house-prices\\s+ok\\s+1 file, `, 'm'));
    expect(r.stdout).toMatch(new RegExp(`data: ${kaggleId}: ready → \\S+ \\(assembled \\(1 file, `));
    expect(r.stdout).toContain('3/3 sources as locked');
    const lock = JSON.parse(await readFile(path.join(proj, 'raw/sources.lock.json'), 'utf8')) as SourcesLock;
    const full = path.join(proj, 'cache/sources/full', lock.instances[kaggleId]!.data!.sha256);
    expect(await hashInstanceTree(full)).toBe(lock.instances[kaggleId]!.data!.sha256);
  }, 900_000);

  it('reports a changed upstream dataset file and notebook as drift naming the instance and the file (exit 1), changing nothing', async () => {
    const lockBefore = await readFile(path.join(proj, 'raw/sources.lock.json'), 'utf8');
    const instBefore = await hashInstanceTree(path.join(proj, 'raw/instances'));
    await fake.writeDatasetFile('datalab/house-prices', 'train.csv', csv.replace('0,50,1000', '0,50,999'));
    gh.commit('octo/notebooks', 'main', {
      'eda/broadcast.ipynb': JSON.stringify(makeNotebook([{ source: 'print(1)' }])),
    });
    const r = await run(['sources', 'fetch']);
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(1);
    expect(r.stdout).toMatch(
      new RegExp(
        `^${kaggleId}\\s+dataset\\s+datalab/house-prices\\s+DRIFT\\s+changed upstream: train\\.csv changed`,
        'm',
      ),
    );
    expect(r.stdout).toMatch(
      new RegExp(
        `drift: ${kaggleId}: dataset datalab/house-prices: train\\.csv changed — locked sha256 [0-9a-f]{12}…, upstream [0-9a-f]{12}…`,
      ),
    );
    expect(r.stdout).toMatch(
      new RegExp(
        `^${githubId}\\s+notebook\\s+octo/notebooks:eda/broadcast\\.ipynb@main\\s+DRIFT\\s+changed upstream \\(main at [0-9a-f]{12}\\)`,
        'm',
      ),
    );
    expect(r.stdout).toContain(
      `DRIFT in 2 instances: ${[kaggleId, githubId].sort().join(', ')} (the lock and the instances were not changed)`,
    );
    expect(await readFile(path.join(proj, 'raw/sources.lock.json'), 'utf8')).toBe(lockBefore);
    expect(await hashInstanceTree(path.join(proj, 'raw/instances'))).toBe(instBefore);
    // Only the one instance asked for.
    const one = await run(['sources', 'fetch', kaggleId]);
    expect(one.code).toBe(1);
    expect(one.stdout).not.toContain(githubId);
  }, 900_000);
});
