// The Kaggle CLI adapter of @junobench/sources against the test-owned fake
// `kaggle` (test/fakes/fake-kaggle: a real process that behaves like the
// official CLI).
import { mkdir, mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { JunoError } from '@junobench/core';
import { KaggleCli } from '@junobench/sources';
import {
  FAKE_KAGGLE_API_TOKEN,
  FAKE_KAGGLE_BINARY,
  FAKE_KAGGLE_KEY,
  FakeKaggle,
} from './fakes/fake-kaggle/fake-kaggle-server.js';
import { makeNotebook } from './fakes/notebooks.js';

// Each call starts the fake CLI as a real process: allow for a busy machine.
vi.setConfig({ testTimeout: 300_000 });

let tmp: string;
let fake: FakeKaggle;
beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'jb-kaggle-cli-'));
  fake = await FakeKaggle.create(path.join(tmp, 'server'));
  await fake.addKernel('alice/titanic-crash', makeNotebook([{ source: 'import pandas as pd' }]), {
    dataset_sources: ['alice/titanic-data'],
  });
  await fake.addKernel('bob/secret-kernel', makeNotebook([{ source: 'x = 1' }]), { is_private: true });
  await fake.addDataset('alice/titanic-data', {
    title: 'Titanic',
    licenses: [{ name: 'CC0-1.0' }],
    files: { 'train.csv': 'a,b\n1,2\n' },
  });
});

const cli = (extra: NodeJS.ProcessEnv = {}, options: Partial<ConstructorParameters<typeof KaggleCli>[0]> = {}) =>
  new KaggleCli({ binary: FAKE_KAGGLE_BINARY, env: { ...process.env, ...fake.env(extra) }, backoffMs: 1, ...options });

async function caught(p: Promise<unknown>): Promise<JunoError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof JunoError) return e;
    throw e;
  }
  throw new Error('expected a JunoError');
}

describe('KaggleCli on the fake CLI', () => {
  it('pulls a kernel with its metadata, as `kernels pull -m` does', async () => {
    const dir = path.join(tmp, 'pull');
    await cli().pullKernel('alice/titanic-crash', dir);
    expect((await readdir(dir)).sort()).toEqual(['kernel-metadata.json', 'titanic-crash.ipynb']);
    const meta = JSON.parse(await readFile(path.join(dir, 'kernel-metadata.json'), 'utf8'));
    expect(meta).toMatchObject({
      id: 'alice/titanic-crash',
      code_file: 'titanic-crash.ipynb',
      dataset_sources: ['alice/titanic-data'],
      competition_sources: [],
      kernel_sources: [],
    });
  });

  it('pulls the source Kaggle stores (kernels_pull writes blob.source): no outputs, no counts; metadata as json.dump writes it', async () => {
    await fake.addKernel(
      'alice/cafe-run',
      makeNotebook([
        { source: 'x = 1', count: 1 },
        { source: 'x.y', count: 2, error: { ename: 'AttributeError', evalue: "'int' object has no attribute 'y'" } },
      ]),
      { title: 'Café run' },
    );
    const dir = path.join(tmp, 'pull-stored');
    await cli().pullKernel('alice/cafe-run', dir);
    const nb = JSON.parse(await readFile(path.join(dir, 'cafe-run.ipynb'), 'utf8')) as {
      cells: { source: unknown; outputs: unknown[]; execution_count: unknown }[];
    };
    expect(nb.cells.map((c) => [c.source, c.outputs, c.execution_count])).toEqual([
      ['x = 1', [], null],
      ['x.y', [], null],
    ]);
    // json.dump(data, f, indent=2) keeps ensure_ascii: non-ASCII characters escaped.
    expect(await readFile(path.join(dir, 'kernel-metadata.json'), 'utf8')).toContain('"title": "Caf\\u00e9 run"');
  });

  it('downloads a dataset as one zip and reports bytes', async () => {
    const dir = path.join(tmp, 'dl');
    await mkdir(dir);
    const seen: number[] = [];
    const zip = await cli().downloadDataset('alice/titanic-data', dir, (b) => seen.push(b));
    expect(path.basename(zip)).toBe('titanic-data.zip');
    expect(seen.at(-1)).toBeGreaterThan(0);
  });

  it('maps 404, 403 and 401 to clear errors naming the ref', async () => {
    const nf = await caught(cli().pullKernel('alice/no-such-kernel', path.join(tmp, 'x1')));
    expect([nf.code, nf.exitCode]).toEqual(['E_SOURCE_NOT_FOUND', 2]);
    expect(nf.message).toMatch(/Kaggle kernel alice\/no-such-kernel was not found on Kaggle \(404\)/);
    const priv = await caught(cli().pullKernel('bob/secret-kernel', path.join(tmp, 'x2')));
    expect([priv.code, priv.exitCode]).toEqual(['E_SOURCE_FORBIDDEN', 2]);
    expect(priv.message).toMatch(/private/);
    const bad = await caught(
      cli({ KAGGLE_KEY: 'ffffffffffffffffffffffffffffffff' }).pullKernel('alice/titanic-crash', path.join(tmp, 'x3')),
    );
    expect([bad.code, bad.exitCode]).toEqual(['E_SOURCE_AUTH', 3]);
    expect(bad.hint).toMatch(/KAGGLE_USERNAME and KAGGLE_KEY/);
  });

  it('exits 3 when there are no credentials at all, and never shows the key', async () => {
    const home = path.join(tmp, 'home-without-kaggle');
    await mkdir(home, { recursive: true });
    const e = await caught(
      cli({ KAGGLE_USERNAME: '', KAGGLE_KEY: '', HOME: home, KAGGLE_CONFIG_DIR: path.join(home, 'none') }).pullKernel(
        'alice/titanic-crash',
        path.join(tmp, 'x4'),
      ),
    );
    expect([e.code, e.exitCode]).toEqual(['E_SOURCE_AUTH', 3]);
    expect(e.message).toMatch(/You must authenticate/);
    expect(`${e.message} ${e.hint}`).not.toContain(FAKE_KAGGLE_KEY);
  });

  it('downloads a public dataset without any credentials, as the real CLI allows `datasets download` anonymously; a private one is refused', async () => {
    const home = path.join(tmp, 'home-anonymous');
    await mkdir(home, { recursive: true });
    const anonymous = cli({
      KAGGLE_USERNAME: '',
      KAGGLE_KEY: '',
      HOME: home,
      KAGGLE_CONFIG_DIR: path.join(home, 'none'),
    });
    const dir = path.join(tmp, 'dl-anonymous');
    await mkdir(dir);
    expect(path.basename(await anonymous.downloadDataset('alice/titanic-data', dir))).toBe('titanic-data.zip');
    await fake.addDataset('bob/private-data', { title: 'Private', isPrivate: true, files: { 'a.csv': 'a\n1\n' } });
    const dir2 = path.join(tmp, 'dl-anonymous-private');
    await mkdir(dir2);
    expect((await caught(anonymous.downloadDataset('bob/private-data', dir2))).code).toBe('E_SOURCE_FORBIDDEN');
  });

  it('reads credentials from kaggle.json in $KAGGLE_CONFIG_DIR like the real CLI', async () => {
    const cfg = path.join(tmp, 'cfg');
    await mkdir(cfg, { recursive: true });
    await writeFile(path.join(cfg, 'kaggle.json'), JSON.stringify({ username: 'junotester', key: FAKE_KAGGLE_KEY }), {
      mode: 0o600,
    });
    await cli({ KAGGLE_USERNAME: '', KAGGLE_KEY: '', KAGGLE_CONFIG_DIR: cfg }).pullKernel(
      'alice/titanic-crash',
      path.join(tmp, 'x5'),
    );
  });

  it('takes an API token (KAGGLE_API_TOKEN, or access_token in the config folder) as the current CLI does, and never shows it', async () => {
    const noKey = { KAGGLE_USERNAME: '', KAGGLE_KEY: '', KAGGLE_CONFIG_DIR: path.join(tmp, 'no-cfg') };
    await cli({ ...noKey, KAGGLE_API_TOKEN: FAKE_KAGGLE_API_TOKEN }).pullKernel(
      'alice/titanic-crash',
      path.join(tmp, 'x9'),
    );
    const cfg = path.join(tmp, 'cfg-token');
    await mkdir(cfg, { recursive: true });
    await writeFile(path.join(cfg, 'access_token'), `${FAKE_KAGGLE_API_TOKEN}\n`, { mode: 0o600 });
    await cli({ ...noKey, KAGGLE_CONFIG_DIR: cfg }).pullKernel('alice/titanic-crash', path.join(tmp, 'x10'));
    // A token Kaggle does not know is ignored, as by the real CLI: no other credentials → not authenticated.
    const wrong = 'KGAT_ffffffffffffffffffffffffffffffff';
    const e = await caught(
      cli({ ...noKey, KAGGLE_API_TOKEN: wrong }).pullKernel('alice/titanic-crash', path.join(tmp, 'x11')),
    );
    expect([e.code, e.exitCode]).toEqual(['E_SOURCE_AUTH', 3]);
    expect(e.hint).toMatch(/KAGGLE_API_TOKEN/);
    expect(`${e.message} ${e.hint}`).not.toContain(wrong);
  });

  it('retries a 429 with backoff, then succeeds', async () => {
    await fake.setFault('kernels pull alice/titanic-crash', 429, 2);
    const notes: string[] = [];
    await cli({}, { onRetry: (m) => notes.push(m) }).pullKernel('alice/titanic-crash', path.join(tmp, 'x6'));
    expect(notes).toHaveLength(2);
    expect(notes[0]).toMatch(/rate limit \(429\) on alice\/titanic-crash: retrying/);
    await fake.clearFaults();
  });

  it('fails naming the ref when the rate limit persists', async () => {
    await fake.setFault('kernels pull alice/titanic-crash', 429);
    const e = await caught(cli({}, { retries: 2 }).pullKernel('alice/titanic-crash', path.join(tmp, 'x7')));
    expect([e.code, e.exitCode]).toEqual(['E_SOURCE_RATE_LIMIT', 1]);
    expect(e.message).toMatch(/alice\/titanic-crash \(429 Too Many Requests, 3 attempts\)/);
    await fake.clearFaults();
  });

  it("gives any other failure with the CLI's own last line", async () => {
    await fake.setFault('kernels pull alice/titanic-crash', 500);
    const e = await caught(cli().pullKernel('alice/titanic-crash', path.join(tmp, 'x8')));
    expect([e.code, e.exitCode]).toEqual(['E_SOURCE', 1]);
    expect(e.message).toMatch(/500 Server Error: Internal Server Error for url/);
    await fake.clearFaults();
  });
});
