// `release verify --runtime docker` on a release prepared before any `image build`: the
// release names no image, and the error says so and how to make one from the release's own
// recipe — not "curated/image.json: no benchmark image recorded yet" about the folder the
// downloader happens to be in. Checked before any engine is contacted: no engine needed.
// And `release prepare` of a version whose folder holds another archive.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashFile } from '@junobench/core';
import { writeCuratedFixture, type Fixture } from '../packages/release/test-helpers/release.js';
import { runJunobench } from './run-cli.js';

let f: Fixture;
let archive: string;

beforeAll(async () => {
  f = await writeCuratedFixture([{ id: 'numpy_1' }, { id: 'pandas_1' }]);
  const prepared = await runJunobench(['release', 'prepare', '0.1.0', '--recipe', f.recipe, '--out', f.releases], {
    cwd: f.root,
    env: { SOURCE_DATE_EPOCH: '1767225600' },
  });
  expect(prepared.code, prepared.stdout + prepared.stderr).toBe(0);
  archive = path.join(f.releases, 'junobench-0.1.0', 'junobench-0.1.0.tar.gz');
}, 300_000);
afterAll(() => rm(f.root, { recursive: true, force: true }));

describe('release verify --runtime docker, the release naming no image', () => {
  it('says the release names none and how to build it from its recipe (exit 3)', async () => {
    const downloads = path.join(f.root, 'downloads');
    await mkdir(downloads);
    const r = await runJunobench(['release', 'verify', archive, '--runtime', 'docker'], {
      cwd: downloads,
      env: { DOCKER_HOST: `unix://${path.join(f.root, 'no-engine.sock')}` },
    });
    expect(r.code, r.stdout + r.stderr).toBe(3);
    expect(r.stderr).toContain('release 0.1.0 names no benchmark image');
    // A command to paste where verify ran: the archive as named, extracted beside it; no `cd` that would leave the
    // reader in image/, where the verify command's relative paths no longer hold.
    expect(r.stderr).toContain(
      `tar xzf ${archive} && docker build -f junobench-0.1.0/image/Dockerfile.debian -t junobench/benchmark:0.1.0 junobench-0.1.0/image`,
    );
    expect(r.stderr).not.toMatch(/cd junobench-0\.1\.0/);
    expect(r.stderr).toContain('--image junobench/benchmark:0.1.0');
    expect(r.stderr).not.toContain('curated/image.json');
    // The checks ran before the runtime was wanted, and their verdict is on screen: the environment error is not one on
    // the release.
    expect(r.stdout).toMatch(
      /^release 0\.1\.0: \d+ files \(\d+ bytes\) checked against SHA256SUMS and manifest\.json/m,
    );
    expect(r.stdout).toContain('re-run: not done — no runtime here (the error below says what is missing)');
    expect(r.stdout).toMatch(/^NOT RE-RUN: the files hold, the instances were not executed/m);
    expect(r.stdout).not.toMatch(/^(OK|FAILED)/m);
  }, 300_000);

  it('a local runtime without a kernel stack: the checks are reported, then what to install (exit 3)', async () => {
    const fake = path.join(f.root, 'no-kernel-python');
    await writeFile(fake, '#!/bin/sh\nexit 1\n', { mode: 0o755 });
    const r = await runJunobench(['release', 'verify', archive, '--runtime', 'local'], {
      cwd: f.root,
      env: { JUNOBENCH_PYTHON: fake },
    });
    expect(r.code, r.stdout + r.stderr).toBe(3);
    expect(r.stdout).toMatch(/^release 0\.1\.0: \d+ files .* checked against SHA256SUMS and manifest\.json/m);
    expect(r.stdout).toMatch(/^NOT RE-RUN: the files hold/m);
    expect(r.stderr).toMatch(/error \[E_ENV_PYTHON\]: the Python interpreter .*no-kernel-python/);
  }, 300_000);
});

describe('release prepare of a version already prepared', () => {
  it('keeps a folder holding another archive (exit 2) unless --force; the same inputs again are a no-op', async () => {
    const again = await runJunobench(['release', 'prepare', '0.1.0', '--recipe', f.recipe, '--out', f.releases], {
      cwd: f.root,
      env: { SOURCE_DATE_EPOCH: '1767225600' },
    });
    expect(again.code, again.stdout + again.stderr).toBe(0);
    const before = await hashFile(archive);
    const other = await runJunobench(['release', 'prepare', '0.1.0', '--recipe', f.recipe, '--out', f.releases], {
      cwd: f.root,
      env: { SOURCE_DATE_EPOCH: '1767225601' },
    });
    expect(other.code, other.stdout + other.stderr).toBe(2);
    expect(other.stderr).toMatch(/already holds release 0\.1\.0 with another archive .*: kept as it is/);
    // The folder is named once (the error's location), not again at the start of the message.
    expect(other.stderr).toMatch(/^error \[E_STATE\]: \S*junobench-0\.1\.0: the folder already holds release 0\.1\.0/m);
    expect(other.stderr).toContain('release prepare 0.1.0 --force');
    expect(await hashFile(archive)).toBe(before);
    const forced = await runJunobench(
      ['release', 'prepare', '0.1.0', '--force', '--recipe', f.recipe, '--out', f.releases],
      { cwd: f.root, env: { SOURCE_DATE_EPOCH: '1767225601' } },
    );
    expect(forced.code, forced.stdout + forced.stderr).toBe(0);
    expect(await hashFile(archive)).not.toBe(before);
  }, 300_000);
});
