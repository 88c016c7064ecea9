// What `report --release` decides: a release is reported only when its files pass their checks; its provenance is the
// release's own (version, toolchain, the files beside the archive with their sha256, and their download links once
// the Croissant file names a GitHub release); the report goes beside the archive unless told otherwise. On releases
// prepared from the release package's small curated fixture.
import { cp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isJunoError, sha256 } from '@junobench/core';
import { writeCuratedFixture, type Fixture } from '../../release/test-helpers/release.js';
import { prepareRelease, type PrepareReleaseOptions } from './release-prepare.js';
import { generateReleaseReport } from './release-report.js';

// Loaded as the flows load it: the lint holds a package to one way of loading a library.
const { openRelease } = await import('@junobench/release');

let f: Fixture;
/** Release folders: prepared only, and prepared for publication on GitHub (its Croissant file has download URLs). */
let local: string;
let github: string;

async function prepare(writeDir: string, over: Partial<PrepareReleaseOptions> = {}): Promise<string> {
  const { written } = await prepareRelease({
    version: '0.1.0',
    curatedDir: f.curated,
    outDir: f.releases,
    writeDir,
    recipeDir: f.recipe,
    deprecatedFile: path.join(f.root, 'deprecated.json'),
    metadataFile: path.join(f.root, 'no-release.json'),
    sourceDateEpoch: 1_767_225_600,
    toolchain: { version: '0.1.0', commit: 'c0ffee0123456789', dirty: false },
    toolchainRepository: 'https://github.com/junobench/junobench',
    ...over,
  });
  return path.dirname(written!.archive.path);
}

beforeAll(async () => {
  f = await writeCuratedFixture([{ id: 'numpy_1' }, { id: 'pandas_1' }, { id: 'sklearn_1' }]);
  await writeFile(
    path.join(f.root, 'deprecated.json'),
    JSON.stringify({ instances: [{ id: 'keras_1', deprecatedIn: '0.1.0', reason: 'a duplicate of numpy_1' }] }),
  );
  local = await prepare(path.join(f.root, 'local'));
  github = await prepare(path.join(f.root, 'github'), { repository: 'junobench/junobench' });
}, 120_000);
afterAll(() => rm(f.root, { recursive: true, force: true }));

const exists = (p: string) =>
  stat(p).then(
    () => true,
    () => false,
  );

describe('generateReleaseReport', { timeout: 120_000 }, () => {
  it("reports a release from its own files, beside its archive, with the release's provenance and checksums", async () => {
    const r = await generateReleaseReport({ input: local });
    expect(r.version).toBe('0.1.0');
    expect(r.out).toBe(path.join(local, 'report'));
    expect(r.instances).toBe(3);
    expect(r.problems).toEqual([]);
    const index = await readFile(path.join(r.out, 'index.html'), 'utf8');
    expect(index).toContain('<dd>JunoBench 0.1.0</dd>');
    expect(index).toContain('commit c0ffee012345');
    expect(index).toContain('2026-01-01 00:00 UTC (the release was prepared with SOURCE_DATE_EPOCH at this time)');
    // Every file of SHA256SUMS, and SHA256SUMS itself, with its sha256; not published: no links.
    const sums = await readFile(path.join(local, 'SHA256SUMS'));
    expect(index).toContain(
      `<tr><td>SHA256SUMS</td><td class="num">${sums.length}</td><td class="mono">${sha256(sums)}</td></tr>`,
    );
    const archive = await readFile(path.join(local, 'junobench-0.1.0.tar.gz'));
    expect(index).toContain(
      `<tr><td>junobench-0.1.0.tar.gz</td><td class="num">${archive.length}</td><td class="mono">${sha256(archive)}</td></tr>`,
    );
    expect(index).toContain('Not published yet: the files are beside the report.');
    // The deprecations are the manifest's.
    expect(index).toMatch(/<tr><td>keras_1<\/td><td>0\.1\.0<\/td><td>a duplicate of numpy_1<\/td><\/tr>/);
  });

  it('links every file to its download once the release names its GitHub release', async () => {
    const out = path.join(f.root, 'github-report');
    const r = await generateReleaseReport({ input: github, out });
    expect(r.out).toBe(out);
    const index = await readFile(path.join(out, 'index.html'), 'utf8');
    const base = 'https://github.com/junobench/junobench/releases/download/v0.1.0/';
    expect(index).toContain(`Published at <a href="https://github.com/junobench/junobench/releases/tag/v0.1.0"`);
    for (const name of ['junobench-0.1.0.tar.gz', 'SHA256SUMS']) expect(index).toContain(`<a href="${base}${name}"`);
  });

  it('an extracted release is reported where it lies, without the files beside an archive', async () => {
    const opened = await openRelease(path.join(local, 'junobench-0.1.0.tar.gz'), { tmpDir: f.root });
    const extracted = path.join(f.root, 'unpacked', 'junobench-0.1.0');
    await cp(opened.top, extracted, { recursive: true });
    await opened.close();
    const r = await generateReleaseReport({ input: extracted });
    expect(r.out).toBe(path.join(f.root, 'unpacked', 'report'));
    const index = await readFile(path.join(r.out, 'index.html'), 'utf8');
    expect(index).toContain('<dd>JunoBench 0.1.0</dd>');
    expect(index).toContain('Release 0.1.0: downloads and checksums');
    expect(index).not.toContain('SHA256SUMS</td>');
  });

  it('refuses a release whose files are not the released ones (exit 1), writing no report', async () => {
    const copy = path.join(f.root, 'tampered');
    await cp(local, copy, { recursive: true });
    await rm(path.join(copy, 'report'), { recursive: true, force: true });
    const manifest = path.join(copy, 'manifest.json');
    await writeFile(manifest, (await readFile(manifest, 'utf8')).replace('"0.1.0"', '"0.1.1"'));
    const e = await generateReleaseReport({ input: copy }).catch((x: unknown) => x);
    expect(isJunoError(e) && [e.code, e.exitCode]).toEqual(['E_STATE', 1]);
    expect(isJunoError(e) && e.message).toMatch(
      /^the release does not pass its checks, so it is not reported as one: /,
    );
    expect(isJunoError(e) && e.hint).toBe(`junobench release verify ${copy} --no-run lists every problem`);
    expect(await exists(path.join(copy, 'report'))).toBe(false);
  });
});
