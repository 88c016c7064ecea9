// The Kaggle CLI adapter: its pure parts (failure kinds, the quoted line, redaction, finding the binary), then
// KaggleCli against the test-owned fake `kaggle` (test-helpers/fake-kaggle: a real process that behaves like the
// official CLI).
import { chmod, mkdir, mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { JunoError } from '@junobench/core';
import {
  FAKE_KAGGLE_API_TOKEN,
  FAKE_KAGGLE_BINARY,
  FAKE_KAGGLE_KEY,
  FakeKaggle,
} from '../test-helpers/fake-kaggle/fake-kaggle-server.js';
import { makeNotebook } from '../test-helpers/notebooks.js';
import {
  KaggleCli,
  classifyKaggleFailure,
  failureLine,
  findKaggleBinary,
  lastOutputLine,
  redactKnownSecrets,
} from './kaggle-cli.js';

// Each call starts the fake CLI as a real process: allow for a busy machine.
vi.setConfig({ testTimeout: 300_000 });

let tmp: string;
let fake: FakeKaggle;
/** A stub `kaggle` that only prints its version, alone in its folder (findKaggleBinary's PATH search). */
let findDir: string;
let binary: string;
beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'jb-kaggle-cli-'));
  findDir = path.join(tmp, 'find');
  await mkdir(findDir);
  binary = path.join(findDir, 'kaggle');
  await writeFile(binary, '#!/bin/sh\necho "Kaggle API 1.7.4.5"\n');
  await chmod(binary, 0o755);
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

describe('classifyKaggleFailure', () => {
  it.each([
    ['You must authenticate before you can call the Kaggle API.', 'auth'],
    [
      "OSError: Could not find kaggle.json. Make sure it's located in /root/.kaggle. Or use the environment method.",
      'auth',
    ],
    ['401 Client Error: Unauthorized for url: https://api.kaggle.com/v1/kernels.KernelsApiService/GetKernel', 'auth'],
    ['403 Client Error: Forbidden for url: https://api.kaggle.com/v1/x', 'forbidden'],
    ['(403)\nReason: Forbidden\nHTTP response headers: HTTPHeaderDict()', 'forbidden'],
    ['404 Client Error: Not Found for url: https://api.kaggle.com/v1/x', 'not-found'],
    ['429 Client Error: Too Many Requests for url: https://api.kaggle.com/v1/x', 'rate-limit'],
    ['500 Server Error: Internal Server Error for url: https://api.kaggle.com/v1/x', 'other'],
  ])('%s → %s', (output, kind) => expect(classifyKaggleFailure(output)).toBe(kind));

  it('quotes the line that shows the failure, else the last meaningful one', () => {
    expect(
      failureLine('You must authenticate before you can call the Kaggle API.\nFollow the instructions', 'auth'),
    ).toMatch(/^You must authenticate/);
  });

  it('takes the last meaningful line, skipping progress bars', () => {
    expect(lastOutputLine('Downloading x.zip\n100%|██████████| 1.00M/1.00M [00:00<00:00]\n\n')).toBe(
      'Downloading x.zip',
    );
  });

  it('redacts the key from the environment and token shapes', () => {
    const env = { KAGGLE_KEY: 'not-hex-but-secret', GITHUB_TOKEN: 'ghp_abcdefghijklmnopqrstuvwxyz0123' };
    expect(redactKnownSecrets('key=not-hex-but-secret token ghp_abcdefghijklmnopqrstuvwxyz0123', env)).not.toMatch(
      /not-hex-but-secret|ghp_abc/,
    );
  });
});

describe('findKaggleBinary', () => {
  it('takes --kaggle, then $JUNOBENCH_KAGGLE, then PATH', async () => {
    expect(await findKaggleBinary({ explicit: binary, env: {} })).toBe(binary);
    expect(await findKaggleBinary({ env: { JUNOBENCH_KAGGLE: binary } })).toBe(binary);
    expect(await findKaggleBinary({ env: { PATH: `/nonexistent:${findDir}` } })).toBe(binary);
  });

  it('exits 3 with how to install it when there is none', async () => {
    const e = await caught(findKaggleBinary({ env: { PATH: '/nonexistent' } }));
    expect(e.exitCode).toBe(3);
    expect(e.message).toMatch(/Kaggle CLI \(`kaggle`\) was not found on PATH/);
    expect(e.hint).toMatch(/pip install kaggle/);
    expect(e.hint).toMatch(/kaggle\.json/);
    const notExec = path.join(findDir, 'kaggle-not-exec');
    await writeFile(notExec, '#!/bin/sh\n');
    await chmod(notExec, 0o644);
    expect((await caught(findKaggleBinary({ explicit: notExec, env: {} }))).message).toMatch(
      /does not exist or is not executable/,
    );
  });
});

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
