// publishGitHubRelease against a local stand-in for the GitHub release
// endpoints (test-helpers/github-releases-server.ts), through the real octokit.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isJunoError } from '@junobench/core';
import { GithubReleasesServer } from '../test-helpers/github-releases-server.js';
import { createGitHubClient, publishGitHubRelease, type ReleaseAsset } from './github-release.js';

const TOKEN = 'ghp_' + 'x'.repeat(36);
let dir: string;
let assets: ReleaseAsset[];

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'junobench-gh-release-'));
  const files: [string, Buffer, string][] = [
    ['junobench-0.1.0.tar.gz', Buffer.alloc(70_000, 7), 'application/gzip'],
    ['SHA256SUMS', Buffer.from(`${'a'.repeat(64)}  junobench-0.1.0.tar.gz\n`), 'text/plain'],
    ['manifest.json', Buffer.from('{"version":"0.1.0"}\n'), 'application/json'],
    ['croissant.json', Buffer.from('{"@type":"sc:Dataset"}\n'), 'application/json'],
  ];
  assets = [];
  for (const [name, data, contentType] of files) {
    await writeFile(path.join(dir, name), data);
    assets.push({ name, path: path.join(dir, name), bytes: data.length, contentType });
  }
});
afterAll(() => rm(dir, { recursive: true, force: true }));

let gh: GithubReleasesServer;
beforeEach(async () => {
  gh = await new GithubReleasesServer().start();
  gh.requireToken = TOKEN;
});
afterEach(() => gh.stop());

const request = (over: Partial<Parameters<typeof publishGitHubRelease>[1]> = {}) => ({
  owner: 'junobench',
  repo: 'junobench',
  tag: 'v0.1.0',
  name: 'JunoBench 0.1.0',
  body: '## Changelog\n\nFirst release.',
  prerelease: false,
  assets,
  ...over,
});
const client = (token = TOKEN) => createGitHubClient({ token, baseUrl: gh.url, retries: 0 });

// octokit's throttling plugin spaces writes a second apart, as GitHub asks of clients.
describe('publishGitHubRelease', { timeout: 60_000 }, () => {
  it('creates the release for the tag and uploads every asset to the upload URL the API gave', async () => {
    const result = await publishGitHubRelease(client(), request());
    expect(result).toMatchObject({ created: true, uploaded: assets.map((a) => a.name), skipped: [], replaced: [] });
    const rel = gh.release('junobench', 'junobench', 'v0.1.0')!;
    expect(rel).toMatchObject({
      name: 'JunoBench 0.1.0',
      body: '## Changelog\n\nFirst release.',
      draft: false,
      prerelease: false,
    });
    expect(rel.assets.map((a) => [a.name, a.size, a.content_type])).toEqual(
      assets.map((a) => [a.name, a.bytes, a.contentType]),
    );
    expect(rel.assets[0]!.data.equals(Buffer.alloc(70_000, 7))).toBe(true);
    const uploads = gh.requests.filter((r) => r.method === 'POST' && r.path.startsWith('/uploads/'));
    expect(
      uploads.map((r) => new URL(r.path, gh.url)).map((u) => `${u.pathname} ${u.searchParams.get('name')}`),
    ).toEqual(assets.map((a) => `/uploads/repos/junobench/junobench/releases/${rel.id}/assets ${a.name}`));
    expect(gh.requests.every((r) => r.authorization === `token ${TOKEN}`)).toBe(true);
  });

  it('a second run reuses the release and skips every asset already there with the same size', async () => {
    await publishGitHubRelease(client(), request());
    const before = gh.requests.length;
    const steps: string[] = [];
    const again = await publishGitHubRelease(client(), request({ onStep: (s) => steps.push(s) }));
    expect(again).toMatchObject({ created: false, uploaded: [], skipped: assets.map((a) => a.name) });
    const after = gh.requests.slice(before).map((r) => r.method);
    expect(after).toEqual(['GET', 'GET']);
    expect(steps[0]).toMatch(/exists .*reusing it/);
  });

  it('resumes an interrupted upload: the short asset is replaced, the others are uploaded once', async () => {
    gh.failNext(/^POST \/uploads\/.*/, { cutUploadAfter: 1000 });
    const err = await publishGitHubRelease(client(), request()).catch((e: unknown) => e);
    expect(isJunoError(err) && err.code).toBe('E_GITHUB');
    expect((err as Error).message).toContain('uploading junobench-0.1.0.tar.gz');
    expect(gh.release('junobench', 'junobench', 'v0.1.0')!.assets.map((a) => [a.name, a.size])).toEqual([
      ['junobench-0.1.0.tar.gz', 1000],
    ]);

    const resumed = await publishGitHubRelease(client(), request());
    expect(resumed).toMatchObject({
      created: false,
      replaced: ['junobench-0.1.0.tar.gz'],
      uploaded: assets.map((a) => a.name),
      skipped: [],
    });
    const rel = gh.release('junobench', 'junobench', 'v0.1.0')!;
    expect(rel.assets.map((a) => [a.name, a.size])).toEqual(assets.map((a) => [a.name, a.bytes]));
    expect(gh.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/releases')).length).toBe(1);
  });

  it('reuses a release created outside the tool', async () => {
    gh.seedRelease('junobench', 'junobench', 'v0.1.0', [
      { name: 'manifest.json', data: Buffer.from('{"version":"0.1.0"}\n') },
    ]);
    const result = await publishGitHubRelease(client(), request());
    expect(result).toMatchObject({
      created: false,
      skipped: ['manifest.json'],
      uploaded: ['junobench-0.1.0.tar.gz', 'SHA256SUMS', 'croissant.json'],
    });
  });

  it('a bad token is an E_GITHUB error that says what to do and never shows the token', async () => {
    const wrong = 'ghp_' + 'y'.repeat(36);
    const err = await publishGitHubRelease(client(wrong), request()).catch((e: unknown) => e);
    expect(isJunoError(err) && err.code).toBe('E_GITHUB');
    expect(isJunoError(err) && err.exitCode).toBe(1);
    expect((err as Error).message).toContain('HTTP 401');
    expect(isJunoError(err) && err.hint).toMatch(/GITHUB_TOKEN/);
    expect(isJunoError(err) && err.describe()).not.toContain(wrong);
  });

  it('a server error while creating is reported with the repository', async () => {
    gh.failNext(/^POST \/repos\/junobench\/junobench\/releases$/, { status: 500 });
    const err = await publishGitHubRelease(client(), request()).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/creating the release for v0\.1\.0 in junobench\/junobench \(HTTP 500\)/);
  });
});
