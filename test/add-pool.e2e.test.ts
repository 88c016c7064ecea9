// `add --pool` end to end against the stand-ins for Kaggle (the fake kaggle CLI) and GitHub (a local API server),
// with a local HTTP server as the network a notebook downloads its data from: every available record drafted with
// its recorded crash, the unavailable ones reported, and a rerun that resumes without redoing finished records.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CrashRecord, Instance, SourcesLock, TriageReport } from '@junobench/core';
import { runJunobench } from './run-cli.js';
import { FakeKaggle } from '../packages/sources/test-helpers/fake-kaggle/fake-kaggle-server.js';
import { GithubContentsServer } from '../packages/sources/test-helpers/github-contents-server.js';
import { makeNotebook } from '../packages/sources/test-helpers/notebooks.js';

const HOUSES = 'price,rooms\n100,3\n200,4\n';
let proj: string;
let fake: FakeKaggle;
let gh: GithubContentsServer;
let web: Server;
let env: NodeJS.ProcessEnv;
let records: CrashRecord[];

const traceback = (count: number, line: string, ename: string, evalue: string) => [
  `${ename}                                  Traceback (most recent call last)`,
  `Cell In[${count}], line 1\n----> 1 ${line}`,
  `${ename}: ${evalue}`,
];

beforeAll(async () => {
  proj = await mkdtemp(path.join(os.tmpdir(), 'jb-add-pool-'));
  await mkdir(path.join(proj, 'raw', 'instances'), { recursive: true });
  web = createServer((req, res) => {
    if (req.url === '/houses.csv') res.writeHead(200, { 'content-type': 'text/csv' }).end(HOUSES);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(web.address() as AddressInfo).port}/houses.csv`;
  fake = await FakeKaggle.create(path.join(proj, 'kaggle-server'));
  const keyLine = "df['prize'].mean()";
  await fake.addKernel(
    'alice/house-crash',
    makeNotebook([
      { source: 'import pandas as pd' },
      { source: `df = pd.read_csv('${url}')` },
      {
        source: keyLine,
        error: { ename: 'KeyError', evalue: "'prize'", traceback: traceback(3, keyLine, 'KeyError', "'prize'") },
      },
    ]),
  );
  await fake.addKernel('bob/secret-kernel', makeNotebook([{ source: 'x' }]), { is_private: true });
  gh = await new GithubContentsServer().start();
  const zipLine = "prices[prices['city'] == 'Paris']['zip']";
  gh.addRepo('octo/nbs', {
    'eda/prices.ipynb': JSON.stringify(
      makeNotebook([
        { source: 'import pandas as pd\nimport numpy as np\nimport tensorflow as tf' },
        { source: "prices = pd.read_csv('../data/prices.csv')" },
        {
          source: 'np.zeros(2) + np.zeros(3)',
          error: { ename: 'ValueError', evalue: 'operands could not be broadcast together with shapes (2,) (3,) ' },
        },
        { source: zipLine, error: { ename: 'KeyError', evalue: "'zip'" } },
      ]),
    ),
  });
  env = fake.env({
    GITHUB_API_URL: gh.url,
    JUNOBENCH_CACHE_DIR: path.join(proj, 'cache'),
    JUNOBENCH_AUTHOR_SALT: 'e2e-salt-0123456789abcdef',
  });
  const rec = (id: string, url: string, ename: string, evalue: string, tb: string[] = []): CrashRecord => ({
    id,
    notebook: `${id}.ipynb`,
    source: url.includes('kaggle') ? 'kaggle' : 'github',
    url,
    ename,
    evalue,
    traceback: tb,
    columns: {},
  });
  records = [
    rec(
      'k1',
      'https://www.kaggle.com/code/alice/house-crash',
      'KeyError',
      "'prize'",
      traceback(3, keyLine, 'KeyError', "'prize'"),
    ),
    rec('g1', 'https://github.com/octo/nbs/blob/main/eda/prices.ipynb', 'KeyError', "'zip'"),
    rec('k2', 'https://www.kaggle.com/code/bob/secret-kernel', 'KeyError', "'x'"),
    rec('g2', 'https://github.com/octo/nbs/blob/main/eda/gone.ipynb', 'KeyError', "'y'"),
  ];
  await writeFile(path.join(proj, 'sample.jsonl'), records.map((r) => JSON.stringify(r)).join('\n') + '\n');
}, 120_000);
afterAll(async () => {
  await gh.stop();
  await new Promise((resolve) => web.close(resolve));
});

describe('junobench add --pool', () => {
  it('drafts every available record with its recorded crash, reports the unavailable, and resumes', async () => {
    // A first run stopped after three records (as an interrupted batch leaves its report).
    const first = await runJunobench(['add', '--pool', 'sample.jsonl', '--limit', '3', '--report', 'triage.json'], {
      cwd: proj,
      env,
    });
    expect(first.stderr).not.toMatch(/internal error/);
    const r1 = JSON.parse(await readFile(path.join(proj, 'triage.json'), 'utf8')) as TriageReport;
    expect(r1.entries.map((e) => [e.key, e.status, e.reproduced ?? null])).toEqual([
      ['record:k1', 'drafted', true],
      ['record:g1', 'drafted', true],
      ['record:k2', 'unavailable', null],
    ]);
    const [k1, g1] = r1.entries;
    const inst = async (id: string) =>
      JSON.parse(await readFile(path.join(proj, 'raw', 'instances', id, 'instance.json'), 'utf8')) as Instance;
    // The Kaggle kernel came without outputs: its crash is the record's, in the cell its traceback shows.
    expect((await inst(k1!.id!)).crash).toMatchObject({ ename: 'KeyError', evalue: "'prize'", cell: 2 });
    // The GitHub notebook saved two errors: the record's, not the first.
    const g = await inst(g1!.id!);
    expect(g.crash).toMatchObject({ ename: 'KeyError', evalue: "'zip'" });
    expect(g.data?.synthetic?.files).toEqual(['data/prices.csv']);
    expect(g.reproduction?.edits?.map((e) => e.kind)).toEqual(['import', 'path']);
    const lock = JSON.parse(await readFile(path.join(proj, 'raw', 'sources.lock.json'), 'utf8')) as SourcesLock;
    expect(lock.downloads?.[k1!.id!]).toEqual([
      expect.objectContaining({
        file: 'data/houses.csv',
        bytes: HOUSES.length,
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      }),
    ]);
    expect(first.code).toBe(0);

    const second = await runJunobench(['add', '--pool', 'sample.jsonl', '--report', 'triage.json'], { cwd: proj, env });
    expect(second.stdout.match(/\(done before\)/g)).toHaveLength(3);
    const r2 = JSON.parse(await readFile(path.join(proj, 'triage.json'), 'utf8')) as TriageReport;
    expect(r2.entries.map((e) => e.status)).toEqual(['drafted', 'drafted', 'unavailable', 'unavailable']);
    expect(r2.funnel).toMatchObject({ records: 4, notebooks: 2, drafts: 2, reproduced: 2, unavailable: 2 });
    expect((await readdir(path.join(proj, 'raw', 'instances'))).filter((d) => !d.startsWith('.'))).toHaveLength(2);
    expect(second.stdout).toContain('4 records → 2 notebooks → 2 drafts → 2 reproduced');
  }, 600_000);
});
