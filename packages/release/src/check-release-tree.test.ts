import { appendFile, cp, mkdir, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { create as createTar } from 'tar';
import { extractArchive } from '@junobench/archive';
import { formatJson, isJunoError, sha256, type ReleaseManifest } from '@junobench/core';
import { checkRelease, openRelease } from './open-release.js';
import { planRelease } from './plan-release.js';
import { findPreviousRelease, readReleaseManifest } from './read-release-manifest.js';
import { readFixtureInputs, writeCuratedFixture, type Fixture } from '../test-helpers/release.js';
import { formatSha256Sums, parseSha256Sums } from './sha256sums.js';
import { writeRelease, type WrittenRelease } from './write-release.js';
import type { ReleaseProblem } from './check-release-tree.js';

let f: Fixture;
let release: WrittenRelease;
let pristine: string;

beforeAll(async () => {
  f = await writeCuratedFixture([{ id: 'numpy_1' }, { id: 'pandas_1' }, { id: 'tensorflow_1', status: 'skipped' }]);
  release = await writeRelease(planRelease(await readFixtureInputs(f, '0.1.0')), f.releases);
  pristine = path.join(f.root, 'pristine');
  await extractArchive(release.archive.path, pristine);
}, 60_000);
afterAll(() => rm(f.root, { recursive: true, force: true }));

let n = 0;
/** A fresh copy of the extracted release to tamper with. */
async function copy(): Promise<string> {
  const dir = path.join(f.root, `t${n++}`, 'junobench-0.1.0');
  await mkdir(path.dirname(dir), { recursive: true });
  await cp(path.join(pristine, 'junobench-0.1.0'), dir, { recursive: true });
  return dir;
}

async function problemsOf(input: string): Promise<ReleaseProblem[]> {
  const opened = await openRelease(input);
  try {
    return (await checkRelease(opened)).problems;
  } finally {
    await opened.close();
  }
}

const brief = (ps: ReleaseProblem[]) => ps.map((p) => `${p.code} ${p.path}${p.instance ? ` [${p.instance}]` : ''}`);

/** Rewrite SHA256SUMS (and the manifest's entry) so they agree with a file's new bytes, as a careful tamperer would. */
async function rehash(dir: string, rel: string): Promise<void> {
  const content = await readFile(path.join(dir, rel));
  const manifest = JSON.parse(await readFile(path.join(dir, 'manifest.json'), 'utf8')) as ReleaseManifest;
  const all = [...manifest.instances.flatMap((i) => i.files), ...manifest.files];
  for (const file of all)
    if (file.path === rel) Object.assign(file, { bytes: content.length, sha256: sha256(content) });
  manifest.totals.bytes = all.reduce((s, x) => s + x.bytes, 0);
  await writeFile(path.join(dir, 'manifest.json'), formatJson(manifest));
  const lines = parseSha256Sums(await readFile(path.join(dir, 'SHA256SUMS'), 'utf8'));
  for (const l of lines) {
    if (l.path === rel) l.sha256 = sha256(content);
    if (l.path === 'manifest.json') l.sha256 = sha256(await readFile(path.join(dir, 'manifest.json')));
  }
  await writeFile(path.join(dir, 'SHA256SUMS'), formatSha256Sums(lines));
}

// Real files and archives: generous limits for a loaded machine.
describe('release checks (verify --no-run)', { timeout: 60_000 }, () => {
  it('a release as written passes every check, as a folder, a tarball and extracted', async () => {
    expect(await problemsOf(release.dir)).toEqual([]);
    expect(await problemsOf(release.archive.path)).toEqual([]);
    expect(await problemsOf(path.join(pristine, 'junobench-0.1.0'))).toEqual([]);
  });

  it('the manifest reads the same from the release folder and from the tarball; the latest release is found as the previous one', async () => {
    const fromTarball = await readReleaseManifest(release.archive.path);
    expect(fromTarball).toEqual(await readReleaseManifest(release.dir));
    expect(fromTarball.version).toBe('0.1.0');
    expect(await findPreviousRelease(f.releases, '0.2.0')).toBe(release.dir);
    expect(await findPreviousRelease(f.releases, '0.1.0')).toBeUndefined();
  });

  it('a tampered file is reported by name (SHA256SUMS and manifest.json)', async () => {
    const dir = await copy();
    await appendFile(path.join(dir, 'instances/pandas_1/data/train.csv'), '3\n');
    expect(brief(await problemsOf(dir))).toEqual([
      'checksum-mismatch instances/pandas_1/data/train.csv [pandas_1]',
      'size-mismatch instances/pandas_1/data/train.csv [pandas_1]',
      'checksum-mismatch instances/pandas_1/data/train.csv [pandas_1]',
    ]);
  });

  it('a missing file is reported by name', async () => {
    const dir = await copy();
    await unlink(path.join(dir, 'instances/numpy_1/fixed.ipynb'));
    const problems = await problemsOf(dir);
    expect(brief(problems)).toEqual([
      'missing-file instances/numpy_1/fixed.ipynb [numpy_1]',
      'missing-file instances/numpy_1/fixed.ipynb [numpy_1]',
    ]);
    expect(problems[0]!.message).toBe('instances/numpy_1/fixed.ipynb is listed in SHA256SUMS but missing');
  });

  it('a changed label is reported even when every checksum was made to agree', async () => {
    const dir = await copy();
    const file = path.join(dir, 'instances/numpy_1/instance.json');
    const inst = JSON.parse(await readFile(file, 'utf8')) as { labels: { crashType: string } };
    inst.labels.crashType = 'value error';
    await writeFile(file, formatJson(inst));
    await rehash(dir, 'instances/numpy_1/instance.json');
    const problems = await problemsOf(dir);
    expect(brief(problems)).toEqual(['label-mismatch instances/numpy_1/instance.json [numpy_1]']);
    expect(problems[0]!.message).toBe(
      'numpy_1: label crashType is "value error" in instances/numpy_1/instance.json but "key error" in manifest.json',
    );
  });

  it('a changed label in benchmark.csv is reported by instance', async () => {
    const dir = await copy();
    const csv = await readFile(path.join(dir, 'benchmark.csv'), 'utf8');
    await writeFile(path.join(dir, 'benchmark.csv'), csv.replace(/^(pandas_1,.*?),API misuse,/m, '$1,data confusion,'));
    await rehash(dir, 'benchmark.csv');
    const problems = await problemsOf(dir);
    // The Croissant file names benchmark.csv's sha256 and size too.
    expect(brief(problems)).toEqual([
      'croissant croissant.json',
      'croissant croissant.json',
      'label-mismatch benchmark.csv [pandas_1]',
    ]);
    expect(problems[0]!.message).toMatch(
      /^croissant\.json: benchmark\.csv: sha256 [0-9a-f]{64} does not match benchmark\.csv/,
    );
    expect(problems[2]!.message).toContain(
      'pandas_1: label rootCause is "data confusion" in benchmark.csv but "API misuse" in manifest.json',
    );
  });

  it('a wrong checksum in SHA256SUMS is reported by the file it names', async () => {
    const dir = await copy();
    const lines = parseSha256Sums(await readFile(path.join(dir, 'SHA256SUMS'), 'utf8'));
    lines.find((l) => l.path === 'verification.json')!.sha256 = '0'.repeat(64);
    await writeFile(path.join(dir, 'SHA256SUMS'), formatSha256Sums(lines));
    const problems = await problemsOf(dir);
    expect(brief(problems)).toEqual(['checksum-mismatch verification.json']);
    expect(problems[0]!.message).toBe('verification.json: sha256 differs from SHA256SUMS (FAILED for sha256sum -c)');
  });

  it('a file the release does not list is reported', async () => {
    const dir = await copy();
    await writeFile(path.join(dir, 'instances/numpy_1/data/extra.py'), 'import os\n');
    expect(brief(await problemsOf(dir))).toEqual([
      'unlisted-file instances/numpy_1/data/extra.py [numpy_1]',
      'unlisted-file instances/numpy_1/data/extra.py [numpy_1]',
    ]);
  });

  it('an invalid file is reported against its schema', async () => {
    const dir = await copy();
    await writeFile(path.join(dir, 'instances/pandas_1/reproduced.ipynb'), '{"cells": 3}');
    await rehash(dir, 'instances/pandas_1/reproduced.ipynb');
    const problems = await problemsOf(dir);
    expect(brief(problems)).toEqual(['schema instances/pandas_1/reproduced.ipynb [pandas_1]']);
  });

  it('a changed outcome in verification.json is reported', async () => {
    const dir = await copy();
    const v = JSON.parse(await readFile(path.join(dir, 'verification.json'), 'utf8')) as {
      instances: { instance: string; fixed: { outcome: string } }[];
    };
    v.instances.find((i) => i.instance === 'numpy_1')!.fixed.outcome = 'fixed-crashed';
    await writeFile(path.join(dir, 'verification.json'), formatJson(v));
    await rehash(dir, 'verification.json');
    const problems = await problemsOf(dir);
    expect(brief(problems)).toEqual(['verification-mismatch verification.json [numpy_1]']);
  });

  it("a tampered archive in its release folder fails the folder's SHA256SUMS and Croissant file", async () => {
    const dir = path.join(f.root, 'outer');
    await cp(release.dir, dir, { recursive: true });
    const tampered = await copy();
    await appendFile(path.join(tampered, 'instances/numpy_1/data/train.csv'), '4\n');
    await createTar(
      { gzip: true, cwd: path.dirname(tampered), file: path.join(dir, 'junobench-0.1.0.tar.gz'), portable: true },
      ['junobench-0.1.0'],
    );
    const problems = brief(await problemsOf(dir));
    expect(problems).toContain('outer junobench-0.1.0.tar.gz');
    expect(problems).toContain('outer croissant.json');
    expect(problems).toContain('checksum-mismatch instances/numpy_1/data/train.csv [numpy_1]');
  });

  it('an archive with an entry leaving its folder is refused before anything is written', async () => {
    const evil = path.join(f.root, 'evil');
    await mkdir(path.join(evil, 'junobench-0.1.0'), { recursive: true });
    await writeFile(path.join(evil, 'junobench-0.1.0', 'manifest.json'), '{}');
    const tarball = path.join(f.root, 'evil.tar.gz');
    await createTar({ gzip: true, cwd: evil, file: tarball, preservePaths: true }, ['junobench-0.1.0/manifest.json']);
    // Rewrite the entry name to climb out of the extraction folder.
    const { Header } = await import('tar');
    const zlib = await import('node:zlib');
    const raw = zlib.gunzipSync(await readFile(tarball));
    const h = new Header(raw, 0);
    h.path = '../escaped.json';
    h.encode(raw, 0);
    await writeFile(tarball, zlib.gzipSync(raw));
    const err = await openRelease(tarball).catch((e: unknown) => e);
    expect(isJunoError(err) && err.code).toBe('E_UNSAFE_ARCHIVE');
  });

  it('a bomb is refused with a hint for a release, never one naming a setting release verify does not have', async () => {
    // The hint said to raise maxRatio "in the archive step's parameters", a subsampling setting.
    const bomb = path.join(f.root, 'bomb');
    await mkdir(path.join(bomb, 'junobench-0.1.0'), { recursive: true });
    await writeFile(path.join(bomb, 'junobench-0.1.0', 'manifest.json'), '{}');
    const tarball = path.join(f.root, 'bomb.tar.gz');
    await createTar({ gzip: true, cwd: bomb, file: tarball, portable: true }, ['junobench-0.1.0/manifest.json']);
    const { Header } = await import('tar');
    const zlib = await import('node:zlib');
    const raw = zlib.gunzipSync(await readFile(tarball));
    const h = new Header(raw, 0);
    h.size = 2.4 * 1024 ** 3; // declared, never there
    h.encode(raw, 0);
    await writeFile(tarball, zlib.gzipSync(raw));
    const err = await openRelease(tarball).catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'E_UNSAFE_ARCHIVE',
      message: expect.stringMatching(/^not a safe release archive: the archive \(.*\) expands to more than 1\.0 GiB/),
    });
    const { hint } = err as { hint: string };
    expect(hint).not.toMatch(/maxRatio|parameters/);
    expect(hint).toContain('download it again');
  });
});
