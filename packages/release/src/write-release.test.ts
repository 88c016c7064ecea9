import { execFileSync } from 'node:child_process';
import { mkdir, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { walkTar, listArchiveEntries } from '@junobench/archive';
import { hashFile, isJunoError } from '@junobench/core';
import { planRelease } from './plan-release.js';
import { readFixtureInputs, writeCuratedFixture, type Fixture } from '../test-helpers/release.js';
import { planStaleReleaseFolders, writeRelease } from './write-release.js';

const INSTANCES = [
  { id: 'numpy_1' },
  {
    id: 'pandas_1',
    data: {
      'a-very-long-file-name-that-does-not-fit-into-the-hundred-bytes-of-a-ustar-name-field-on-its-own.csv': 'x\n1\n',
    },
  },
  { id: 'tensorflow_1', status: 'skipped' as const },
];

describe('writeRelease: the archive is byte-for-byte reproducible', { timeout: 60_000 }, () => {
  let a: Fixture;
  let b: Fixture;
  beforeAll(async () => {
    a = await writeCuratedFixture(INSTANCES);
    // Written later, elsewhere: different folder names, inode order and file times.
    await new Promise((r) => setTimeout(r, 1100));
    b = await writeCuratedFixture([...INSTANCES].reverse());
  }, 60_000);
  afterAll(async () => {
    await rm(a.root, { recursive: true, force: true });
    await rm(b.root, { recursive: true, force: true });
  });

  it('two prepares in different folders at different times give the same sha256', async () => {
    const first = await writeRelease(planRelease(await readFixtureInputs(a, '0.1.0')), a.releases);
    await new Promise((r) => setTimeout(r, 1100));
    const second = await writeRelease(planRelease(await readFixtureInputs(b, '0.1.0')), b.releases);
    expect(second.archive.sha256).toBe(first.archive.sha256);
    expect(second.archive.bytes).toBe(first.archive.bytes);
    expect(await hashFile(second.archive.path)).toBe(second.archive.sha256);
    for (const name of ['manifest.json', 'SHA256SUMS', 'croissant.json', 'README.md', 'CHANGELOG.md']) {
      expect(await readFile(path.join(second.dir, name), 'utf8')).toBe(
        await readFile(path.join(first.dir, name), 'utf8'),
      );
    }
    // Another SOURCE_DATE_EPOCH is another archive: the dates are really in it.
    const other = await writeRelease(
      planRelease(await readFixtureInputs(a, '0.1.0', { sourceDateEpoch: 1_767_225_601 })),
      path.join(a.root, 'other'),
    );
    expect(other.archive.sha256).not.toBe(first.archive.sha256);
  });

  it('entries are sorted, under one top folder, with fixed modes, owners and mtimes, and a gzip header without name or time', async () => {
    const w = await writeRelease(planRelease(await readFixtureInputs(a, '0.1.0')), path.join(a.root, 'modes'));
    const head = (await readFile(w.archive.path)).subarray(0, 10);
    expect([...head]).toEqual([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x02, 0x03]);
    const seen: {
      path: string;
      mode: number;
      uid: number;
      gid: number;
      uname: string;
      gname: string;
      mtime: number;
      type: string;
    }[] = [];
    await walkTar(w.archive.path, (_e, read) => {
      seen.push({
        path: read.path,
        mode: read.mode!,
        uid: read.uid!,
        gid: read.gid!,
        uname: read.uname ?? '',
        gname: read.gname ?? '',
        mtime: read.mtime!.getTime() / 1000,
        type: read.type,
      });
      read.resume();
    });
    expect(seen[0]!.path).toBe('junobench-0.1.0/');
    expect(seen.every((e) => e.path.startsWith('junobench-0.1.0/'))).toBe(true);
    const names = seen.map((e) => (e.type === 'Directory' ? e.path : e.path));
    expect(names).toEqual([...names].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)));
    for (const e of seen) {
      expect(e).toMatchObject({ uid: 0, gid: 0, uname: '', gname: '', mtime: 1_767_225_600 });
      expect(e.mode).toBe(e.type === 'Directory' ? 0o755 : 0o644);
    }
    expect(names.some((n) => n.endsWith('on-its-own.csv') && n.length > 100)).toBe(true);
    // GNU tar reads it (and the long name through its PAX header) the same way.
    const listing = execFileSync('tar', ['-tzf', w.archive.path], { encoding: 'utf8' }).trim().split('\n');
    expect(listing).toEqual(names);
    expect((await listArchiveEntries(w.archive.path)).length).toBe(seen.length);
  });

  it('sha256sum -c passes in the release folder and in the extracted archive', async () => {
    const w = await writeRelease(planRelease(await readFixtureInputs(a, '0.1.0')), path.join(a.root, 'sums'));
    expect(execFileSync('sha256sum', ['-c', 'SHA256SUMS'], { cwd: w.dir, encoding: 'utf8' })).toContain(
      'junobench-0.1.0.tar.gz: OK',
    );
    const x = path.join(a.root, 'extracted');
    execFileSync('mkdir', ['-p', x]);
    execFileSync('tar', ['-xzf', w.archive.path, '-C', x]);
    const out = execFileSync('sha256sum', ['-c', 'SHA256SUMS'], {
      cwd: path.join(x, 'junobench-0.1.0'),
      encoding: 'utf8',
    });
    expect(out).toContain('instances/pandas_1/fixed.ipynb: OK');
    expect(out).not.toContain('FAILED');
  });

  it('a folder of the same version holding another archive is kept (E_STATE, exit 2) unless replace; the same archive again is a no-op', async () => {
    const out = path.join(a.root, 'once');
    const first = await writeRelease(planRelease(await readFixtureInputs(a, '0.1.0')), out);
    // The same inputs again: the same bytes, nothing to refuse (a re-run of prepare or a resumed publish).
    expect((await writeRelease(planRelease(await readFixtureInputs(a, '0.1.0')), out)).archive.sha256).toBe(
      first.archive.sha256,
    );
    const other = planRelease(await readFixtureInputs(a, '0.1.0', { sourceDateEpoch: 1_767_225_601 }));
    const err = await writeRelease(other, out).catch((e: unknown) => e);
    expect(isJunoError(err) && [err.code, err.exitCode]).toEqual(['E_STATE', 2]);
    expect((err as Error).message).toContain(
      `already holds release 0.1.0 with another archive (sha256 ${first.archive.sha256}`,
    );
    expect(isJunoError(err) && err.hint).toContain('release prepare 0.1.0 --force');
    expect(await hashFile(first.archive.path)).toBe(first.archive.sha256);
    expect((await readdir(out)).sort()).toEqual(['junobench-0.1.0']);
    const replaced = await writeRelease(other, out, { replace: true });
    expect(replaced.archive.sha256).not.toBe(first.archive.sha256);
    expect(await hashFile(replaced.archive.path)).toBe(replaced.archive.sha256);
  });

  it('removes the folders a killed prepare left (its pid gone), never those of a live one', async () => {
    const out = path.join(a.root, 'killed');
    const dead = 2 ** 22 + 12345; // above pid_max's default ceiling: no such process
    for (const name of [
      `.junobench-0.0.9.partial-${dead}`,
      `.junobench-0.1.0.old-${dead}`,
      `.junobench-0.1.0.partial-1`,
    ]) {
      await mkdir(path.join(out, name, 'junobench-0.1.0'), { recursive: true });
      await writeFile(path.join(out, name, 'junobench-0.1.0', 'x'), 'half');
    }
    await writeRelease(planRelease(await readFixtureInputs(a, '0.1.0')), out);
    expect((await readdir(out)).sort()).toEqual(['.junobench-0.1.0.partial-1', 'junobench-0.1.0']);
  });

  it.each([
    [
      ['.junobench-0.1.0.partial-77', 'junobench-0.1.0', '.junobench-0.2.0.old-78', '.junobench-0.2.0.partial-79'],
      ['.junobench-0.1.0.partial-77', '.junobench-0.2.0.old-78'],
    ],
    [['.junobench-0.1.0.partial-x', '.notes.partial-77', `.junobench-0.1.0.partial-${process.pid}`], []],
  ])('planStaleReleaseFolders(%j) → %j (79 alive)', (names, stale) => {
    expect(planStaleReleaseFolders(names, (pid) => pid === 79)).toEqual(stale);
  });

  it('a file changed between planning and writing is caught, and nothing is left behind', async () => {
    const plan = planRelease(await readFixtureInputs(a, '0.3.0'));
    await writeFile(path.join(a.curated, 'instances', 'numpy_1', 'data', 'train.csv'), 'Price\n999\n');
    const out = path.join(a.root, 'changed');
    const err = await writeRelease(plan, out).catch((e: unknown) => e);
    expect(isJunoError(err) && err.code).toBe('E_STATE');
    expect(String((err as Error).message)).toContain(
      'instances/numpy_1/data/train.csv changed while the release was being written',
    );
    await expect(stat(path.join(out, 'junobench-0.3.0'))).rejects.toThrow();
  });

  it('a plan with refusals is not written: every reason is listed (exit 1)', async () => {
    const f = await writeCuratedFixture([
      { id: 'numpy_1', draft: true },
      { id: 'pandas_1', status: 'not-verified' },
    ]);
    try {
      const plan = planRelease(await readFixtureInputs(f, '0.1.0'));
      const err = await writeRelease(plan, f.releases).catch((e: unknown) => e);
      expect(isJunoError(err) && err.code).toBe('E_RELEASE_REFUSED');
      expect(isJunoError(err) && err.exitCode).toBe(1);
      expect((err as Error).message).toContain('numpy_1 is a draft');
      expect((err as Error).message).toContain('pandas_1 is not verified: reproduced crash-mismatch');
      await expect(stat(f.releases)).rejects.toThrow();
    } finally {
      await rm(f.root, { recursive: true, force: true });
    }
  });
});
