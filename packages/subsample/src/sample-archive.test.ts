import { readFile, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { sha256 } from '@junobench/core';
import { writeTar, writeZip, type FixtureEntry } from '../test-helpers/archive-fixtures.js';
import { extractArchive, listArchiveEntries } from '@junobench/archive';
import { planArchiveSample, sampleArchive } from './sample-archive.js';
import { useTempDirs } from '../test-helpers/temp-dirs.js';

// Generated fixtures and real encoders: slow on a loaded machine, so a generous per-test limit.
vi.setConfig({ testTimeout: 60_000 });

const tempDir = useTempDirs();

function tree(): FixtureEntry[] {
  const out: FixtureEntry[] = [{ path: 'train/', type: 'directory' }];
  for (const cls of ['cat', 'dog']) {
    out.push({ path: `train/${cls}/`, type: 'directory' });
    for (let i = 0; i < 20; i++) out.push({ path: `train/${cls}/${i}.txt` });
  }
  for (let i = 0; i < 10; i++) out.push({ path: `test/${i}.txt` });
  out.push({ path: 'README.md' });
  return out;
}

const KINDS = [
  ['zip', 'a.zip', (f: string, e: FixtureEntry[]) => writeZip(f, e)],
  ['tar', 'a.tar', (f: string, e: FixtureEntry[]) => writeTar(f, e)],
  ['tar.gz', 'a.tar.gz', (f: string, e: FixtureEntry[]) => writeTar(f, e, true)],
] as const;

describe.each(KINDS)('sampleArchive (%s)', (kind, name, write) => {
  it('keeps a fraction per top-level folder without extracting, reproducibly', async () => {
    const dir = await tempDir();
    const input = path.join(dir, name);
    await write(input, tree());
    const r = await sampleArchive(input, path.join(dir, `out-${name}`), { fraction: 0.2, seed: 1 });
    expect(r.kind).toBe(kind);
    expect(r.filesBefore).toBe(51);
    expect(r.groups).toBe(3);
    const kept = (await listArchiveEntries(path.join(dir, `out-${name}`)))
      .filter((e) => e.type === 'file')
      .map((e) => e.path);
    expect(kept.filter((p) => p.startsWith('train/'))).toHaveLength(8);
    expect(kept.filter((p) => p.startsWith('test/'))).toHaveLength(2);
    expect(kept).toContain('README.md');
    await sampleArchive(input, path.join(dir, `again-${name}`), { fraction: 0.2, seed: 1 });
    expect(sha256(await readFile(path.join(dir, `again-${name}`)))).toBe(
      sha256(await readFile(path.join(dir, `out-${name}`))),
    );
    // Content survives the round trip.
    const x = path.join(dir, 'x');
    await extractArchive(path.join(dir, `out-${name}`), x);
    expect(await readFile(path.join(x, 'README.md'), 'utf8')).toBe('content of README.md\n');
  });

  it.each([
    [[{ path: '../evil.txt' }], /"\.\.\/evil\.txt".*\.\./],
    [[{ path: 'ok/../../evil.txt' }], /\.\./],
    [[{ path: '/etc/evil.txt' }], /absolute/],
    [[{ path: 'link', type: 'symlink', linkpath: '../../etc/passwd' }], /symbolic link points outside/],
    [[{ path: 'a/link', type: 'symlink', linkpath: '/etc' }], /symbolic link points outside/],
    // The link rule of @junobench/archive: links are followed through other links.
    [
      [
        { path: 'b/d', type: 'symlink', linkpath: '..' },
        { path: 'p', type: 'symlink', linkpath: 'b/d/..' },
      ],
      /"(p|b\/d)".*(outside|folder)/,
    ],
  ] as [FixtureEntry[], RegExp][])('rejects unsafe entries %j', async (entries, why) => {
    const dir = await tempDir();
    const input = path.join(dir, name);
    await write(input, [{ path: 'fine.txt' }, ...entries]);
    const err = await sampleArchive(input, path.join(dir, 'o'), { fraction: 1, seed: 1 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'E_UNSAFE_ARCHIVE' });
    expect((err as Error).message).toMatch(why);
    await expect(stat(path.join(dir, 'o'))).rejects.toThrow();
    const x = path.join(dir, 'x');
    await expect(extractArchive(input, x)).rejects.toMatchObject({ code: 'E_UNSAFE_ARCHIVE' });
    await expect(stat(x)).rejects.toThrow();
    expect((await readdir(dir)).filter((f) => f.startsWith('x'))).toEqual([]);
  });

  it('caps the total size and the entry count', async () => {
    const dir = await tempDir();
    const input = path.join(dir, name);
    await write(input, tree());
    await expect(extractArchive(input, path.join(dir, 'x'), { maxBytes: 100 })).rejects.toMatchObject({
      code: 'E_UNSAFE_ARCHIVE',
      message: expect.stringMatching(/more than 100 bytes/),
    });
    await expect(
      sampleArchive(input, path.join(dir, 'o'), { fraction: 1, seed: 1, maxEntries: 10 }),
    ).rejects.toMatchObject({ code: 'E_UNSAFE_ARCHIVE' });
  });
});

describe('planArchiveSample', () => {
  it('keeps the targets of kept hard links and the folders above kept files', () => {
    const plan = planArchiveSample(
      [
        { path: 'a', type: 'directory', size: 0 },
        { path: 'a/x', type: 'file', size: 1 },
        { path: 'b/h', type: 'hardlink', size: 0, linkpath: 'a/x' },
      ],
      { fraction: 1, seed: 1, keep: [] },
    );
    expect([...plan].sort()).toEqual(['a', 'a/x', 'b/h']);
  });
});
