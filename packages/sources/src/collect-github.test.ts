// Collecting GitHub notebooks through octokit (with the throttling and retry plugins) against the test-owned GitHub
// API on 127.0.0.1 (test-helpers/github-contents-server.ts).
import { mkdtemp, readFile, readdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { JunoError, checkSchema, sha256, type SourceRecord } from '@junobench/core';
import { GithubContentsServer } from '../test-helpers/github-contents-server.js';
import { makeNotebook } from '../test-helpers/notebooks.js';
import { pseudonymizeAuthor } from './author-id.js';
import { collectGithubNotebooks } from './collect-github.js';
import { createGithubClient } from './github-client.js';

vi.setConfig({ testTimeout: 300_000 });

let tmp: string;
let gh: GithubContentsServer;
let mainSha: string;
const SALT = 'test-salt-0123456789abcdef';
const nb = JSON.stringify(
  makeNotebook([
    {
      source: 'import numpy as np\nnp.zeros(3) + np.zeros(4)',
      error: { ename: 'ValueError', evalue: 'operands could not be broadcast together with shapes (3,) (4,) ' },
    },
  ]),
);
// Over 1 MB: the contents endpoint leaves it out and the client must use the blob endpoint.
const bigNb = JSON.stringify(
  makeNotebook([
    { source: `x = "${'a'.repeat(1_200_000)}"` },
    { source: 'y = x + 1', error: { ename: 'TypeError', evalue: 'can only concatenate str (not "int") to str' } },
  ]),
);

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'jb-collect-github-'));
  gh = await new GithubContentsServer().start();
  mainSha = gh.addRepo('octo/nbs', {
    'eda/crash.ipynb': nb,
    'big.ipynb': bigNb,
    'notes.ipynb': 'not json at all',
    'data/x.csv': 'a\n1\n',
  });
  gh.commit('octo/nbs', 'feature/x', { 'nb.ipynb': nb });
  gh.addRepo('octo/unlicensed', { 'a.ipynb': nb }, { license: null });
  gh.addRepo('octo/private', { 'a.ipynb': nb }, { private: true });
  gh.addRepo('octo/rstats', {
    'r.ipynb': JSON.stringify(
      makeNotebook([{ source: 'library(notapkg)', error: { ename: 'ERROR', evalue: 'no package' } }], {
        kernelspec: { name: 'ir', display_name: 'R', language: 'R' },
        language_info: { name: 'R' },
      }),
    ),
  });
});
afterAll(() => gh.stop());

const env = (extra: NodeJS.ProcessEnv = {}) => ({ GITHUB_API_URL: gh.url, ...extra });
const run = (refs: string[], out: string, extra: NodeJS.ProcessEnv = {}) =>
  collectGithubNotebooks(refs, {
    client: createGithubClient({ env: env(extra) }),
    env: env(extra),
    outDir: out,
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

describe('collectGithubNotebooks', () => {
  it('resolves the ref to a commit, fetches the file at that commit and reads the licence', async () => {
    const out = path.join(tmp, 'o1');
    const [c] = await run(['https://github.com/octo/nbs/blob/main/eda/crash.ipynb'], out);
    expect(c!.dir).toBe(path.join(out, 'github', 'octo', 'nbs--eda--crash'));
    expect((await readdir(c!.dir)).sort()).toEqual(['crash.ipynb', 'github-metadata.json', 'source.json']);
    expect(await readFile(path.join(c!.dir, 'crash.ipynb'), 'utf8')).toBe(nb);
    const record = JSON.parse(await readFile(path.join(c!.dir, 'source.json'), 'utf8')) as SourceRecord;
    expect(checkSchema('source', record)).toEqual([]);
    expect(record).toMatchObject({
      platform: 'github',
      ref: 'octo/nbs:eda/crash.ipynb@main',
      url: `https://github.com/octo/nbs/blob/${mainSha}/eda/crash.ipynb`,
      version: { commit: mainSha, requestedRef: 'main' },
      codeLicense: 'MIT',
      notebook: { path: 'crash.ipynb', sha256: sha256(nb) },
      authorId: pseudonymizeAuthor('github', 'octo', SALT),
      datasets: [],
    });
    // The contents request asked for the resolved commit, not the moving branch.
    expect(gh.requests.some((r) => r.url.includes('/contents/') && r.url.includes(`ref=${mainSha}`))).toBe(true);
  });

  it('takes owner/repo:path@ref, the default branch without @ref, and a branch with "/" in a blob URL', async () => {
    const out = path.join(tmp, 'o2');
    const got = await run(
      [
        'octo/nbs:eda/crash.ipynb@main',
        'octo/nbs:eda/crash.ipynb',
        'https://github.com/octo/nbs/blob/feature/x/nb.ipynb',
      ],
      out,
    );
    expect(got.map((g) => g.record.version.requestedRef)).toEqual(['main', 'main', 'feature/x']);
  });

  it('fetches a notebook over 1 MB through the blob endpoint and checks its git blob id', async () => {
    const [c] = await run(['octo/nbs:big.ipynb@main'], path.join(tmp, 'o3'));
    expect(c!.record.notebook.sha256).toBe(sha256(bigNb));
    expect(gh.requests.some((r) => /\/git\/blobs\/[0-9a-f]{40}$/.test(r.url))).toBe(true);
    // As api.github.com: with the default media type a file over 1 MB is refused (403 too_large), which the
    // collector must not take for "private": it asks for the object media type.
    const plain = await fetch(`${gh.url}/repos/octo/nbs/contents/big.ipynb?ref=main`, {
      headers: { accept: 'application/vnd.github+json' },
    });
    expect(plain.status).toBe(403);
    expect(((await plain.json()) as { errors: { code: string }[] }).errors[0]!.code).toBe('too_large');
  });

  it('records NOASSERTION for a repository without a licence', async () => {
    const [c] = await run(['octo/unlicensed:a.ipynb@main'], path.join(tmp, 'o4'));
    expect(c!.record.codeLicense).toBe('NOASSERTION');
    expect(c!.record.warnings?.[0]).toMatch(/declares no licence \(NOASSERTION\)/);
  });

  it('waits out a secondary rate limit (403 with retry-after) and then succeeds', async () => {
    const notices: string[] = [];
    const before = gh.requests.length;
    gh.failNext(1, { kind: 'secondary' });
    const client = createGithubClient({ env: env(), onNotice: (m) => notices.push(m) });
    await collectGithubNotebooks(['octo/nbs:eda/crash.ipynb@main'], {
      client,
      env: env(),
      outDir: path.join(tmp, 'o5'),
      salt: SALT,
    });
    expect(notices.join('\n')).toMatch(/secondary rate limit .* retrying in 1 s/);
    expect(gh.requests.length - before).toBe(4); // commit (403, then again), contents, licence
  });

  it('fails naming the ref when the rate limit does not reset in time', async () => {
    gh.failNext(1, { kind: 'primary', resetInSeconds: 3600 });
    const e = await caught(run(['octo/nbs:eda/crash.ipynb@main'], path.join(tmp, 'o6')));
    expect([e.code, e.exitCode]).toEqual(['E_SOURCE_RATE_LIMIT', 1]);
    expect(e.message).toMatch(/rate-limiting requests for octo\/nbs:eda\/crash\.ipynb@main/);
    expect(e.hint).toMatch(/GITHUB_TOKEN/);
  });

  it.each([
    ['octo/nbs:eda/missing.ipynb@main', /octo\/nbs:eda\/missing\.ipynb@main was not found on GitHub \(404/],
    ['octo/nbs:eda/crash.ipynb@no-such-branch', /ref "no-such-branch" of octo\/nbs was not found on GitHub \(422/],
    ['octo/nope:a.ipynb@main', /was not found on GitHub/],
    ['octo/private:a.ipynb@main', /was not found on GitHub/],
  ])('says clearly that %s is unknown (exit 2), writing nothing', async (ref, message) => {
    const out = path.join(tmp, `o7-${sha256(ref).slice(0, 6)}`);
    const e = await caught(run([ref], out));
    expect([e.code, e.exitCode]).toEqual(['E_SOURCE_NOT_FOUND', 2]);
    expect(e.message).toMatch(message);
    expect(await readdir(out).catch(() => [])).toEqual([]);
  });

  it('refuses a .ipynb that is not a notebook, writing nothing', async () => {
    const out = path.join(tmp, 'o8');
    const e = await caught(run(['octo/nbs:notes.ipynb@main'], out));
    expect(e.code).toBe('E_NOTEBOOK');
    expect(e.message).toMatch(/invalid JSON/);
    expect(await readdir(out).catch(() => [])).toEqual([]);
  });

  it('refuses a notebook whose kernel language is not Python (as collect kaggle does), writing nothing', async () => {
    const out = path.join(tmp, 'o8r');
    const e = await caught(run(['octo/rstats:r.ipynb@main'], out));
    expect([e.code, e.exitCode]).toEqual(['E_USAGE', 2]);
    expect(e.message).toBe(
      'octo/rstats:r.ipynb@main is a notebook in R, not Python (its kernel language): only Python notebooks can become JunoBench instances',
    );
    expect(await readdir(out).catch(() => [])).toEqual([]);
  });

  it('an API that cannot be reached is the network (exit 3), not "GitHub answered 500", and its URL is shown without credentials', async () => {
    const closed = await new GithubContentsServer().start();
    const url = closed.url.replace('http://', 'http://bob:s3cretpw@');
    await closed.stop();
    const e = await caught(
      collectGithubNotebooks(['octo/nbs:eda/crash.ipynb@main'], {
        client: createGithubClient({ env: { GITHUB_API_URL: url } }),
        env: { GITHUB_API_URL: url },
        outDir: path.join(tmp, 'o10'),
        salt: SALT,
      }),
    );
    expect([e.code, e.exitCode]).toEqual(['E_ENV_NETWORK', 3]);
    expect(e.message).toMatch(/^cannot reach the GitHub API at http:\/\/127\.0\.0\.1:\d+/);
    expect(`${e.message}${e.hint}`).not.toContain('s3cretpw');
    expect(e.message).not.toMatch(/answered 500/);
  });

  it('sends the token, and never shows it when GitHub rejects it', async () => {
    const token = 'ghp_0123456789abcdefghijklmnopqrstuvwxyz';
    gh.requireToken = 'ghp_theRightTokenIsNotThisOne0123456789';
    try {
      const e = await caught(run(['octo/nbs:eda/crash.ipynb@main'], path.join(tmp, 'o9'), { GITHUB_TOKEN: token }));
      expect([e.code, e.exitCode]).toEqual(['E_SOURCE_AUTH', 3]);
      expect(e.message).toMatch(/GitHub rejected the token in GITHUB_TOKEN \(401 Bad credentials\)/);
      expect(`${e.message}${e.hint}${String(e.stack)}`).not.toContain(token);
      expect(gh.requests.at(-1)!.authorization).toBe(`token ${token}`);
    } finally {
      gh.requireToken = undefined;
    }
  });
});
