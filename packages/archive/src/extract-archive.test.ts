import { lstat, mkdir, mkdtemp, readFile, readdir, readlink, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createRng, isJunoError, sha256 } from '@junobench/core';
import { makeTar, makeZip, writeTar, writeZip, type FixtureEntry } from '../test-helpers/archive-fixtures.js';
import { linkEscapes, listArchiveEntries, unsafeEntryPathReason } from './archive-entries.js';
import { extractArchive } from './extract-archive.js';

const made: string[] = [];
afterEach(async () => {
  await Promise.all(made.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});
async function tempDir(): Promise<string> {
  const d = await mkdtemp(path.join(tmpdir(), 'junobench-archive-test-'));
  made.push(d);
  return d;
}

const KINDS = [
  ['zip', 'a.zip', (e: readonly FixtureEntry[]) => makeZip(e)],
  ['tar', 'a.tar', (e: readonly FixtureEntry[]) => makeTar(e)],
  ['tar.gz', 'a.tar.gz', (e: readonly FixtureEntry[]) => makeTar(e, { gzip: true })],
] as const;

/** Every path under root (links not followed) with its content or link target: what a write outside would change. */
async function snapshot(root: string, skip: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  async function walk(dir: string): Promise<void> {
    for (const name of (await readdir(dir)).sort()) {
      const abs = path.join(dir, name);
      if (abs === skip) continue;
      const st = await lstat(abs);
      const rel = path.relative(root, abs);
      if (st.isSymbolicLink()) out[rel] = `link ${await readlink(abs)}`;
      else if (st.isDirectory()) {
        out[rel] = 'dir';
        await walk(abs);
      } else out[rel] = `file ${sha256(await readFile(abs))} ${st.mode.toString(8)}`;
    }
  }
  await walk(root);
  return out;
}

async function noLinksUnder(dir: string): Promise<string[]> {
  const links: string[] = [];
  async function walk(d: string): Promise<void> {
    for (const name of await readdir(d)) {
      const abs = path.join(d, name);
      const st = await lstat(abs);
      if (st.isSymbolicLink()) links.push(path.relative(dir, abs));
      else if (st.isDirectory()) await walk(abs);
    }
  }
  await walk(dir).catch(() => undefined);
  return links;
}

describe.each(KINDS)('extractArchive (%s)', (kind, name, make) => {
  it("refuses the issue's chained links (b/d -> .., p -> b/d/.., p/ESCAPED.txt) and writes nothing outside", async () => {
    const root = await tempDir();
    const work = path.join(root, 'work');
    await mkdir(work);
    await writeFile(path.join(root, 'keep.txt'), 'outside\n');
    const input = path.join(root, name);
    await writeFile(
      input,
      make([
        { path: 'b/', type: 'directory' },
        { path: 'b/d', type: 'symlink', linkpath: '..' },
        { path: 'p', type: 'symlink', linkpath: 'b/d/..' },
        { path: 'p/ESCAPED.txt', content: 'escaped\n' },
      ]),
    );
    const before = await snapshot(root, path.join(work, 'x'));
    const err = await extractArchive(input, path.join(work, 'x')).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'E_UNSAFE_ARCHIVE' });
    expect(await snapshot(root, path.join(work, 'x'))).toEqual(before);
    await expect(stat(path.join(work, 'x'))).rejects.toThrow();
    await expect(stat(path.join(root, 'ESCAPED.txt'))).rejects.toThrow();
  });

  it.each([
    [[{ path: '../evil.txt' }], /"\.\.\/evil\.txt".*\.\./],
    [[{ path: 'ok/../../evil.txt' }], /\.\./],
    [[{ path: '/etc/evil.txt' }], /absolute/],
    [[{ path: 'link', type: 'symlink', linkpath: '../../etc/passwd' }], /link .*outside/],
    [[{ path: 'a/link', type: 'symlink', linkpath: '/etc' }], /link .*outside/],
    // Links through links: each hop looks harmless, the chain leaves the folder.
    [
      [
        { path: 'out', type: 'symlink', linkpath: 'a/up/..' },
        { path: 'a/up', type: 'symlink', linkpath: '..' },
      ],
      /"out".*outside/,
    ],
    [
      [
        { path: 'l1', type: 'symlink', linkpath: 'l2' },
        { path: 'l2', type: 'symlink', linkpath: 'l1' },
      ],
      /loop/,
    ],
    [[{ path: 'dangling', type: 'symlink', linkpath: 'nothing-here' }], /does not resolve/],
    [[{ path: 'd', type: 'symlink', linkpath: 'fine.txt' }, { path: 'd/x.txt' }], /"d\/x\.txt".*under "d"/],
    [[{ path: 'twice.txt' }, { path: 'twice.txt', content: 'again' }], /twice/],
  ] as [FixtureEntry[], RegExp][])('refuses %j, naming the entry', async (entries, why) => {
    const dir = await tempDir();
    const input = path.join(dir, name);
    await writeFile(input, make([{ path: 'fine.txt' }, ...entries]));
    const x = path.join(dir, 'x');
    const err = await extractArchive(input, x).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'E_UNSAFE_ARCHIVE', exitCode: 2 });
    expect((err as Error).message).toMatch(why);
    await expect(stat(x)).rejects.toThrow();
    expect((await readdir(dir)).filter((f) => f.startsWith('x'))).toEqual([]);
  });

  it('extracts links that resolve to a file inside as copies of its content (no link is created on disk)', async () => {
    const dir = await tempDir();
    const input = path.join(dir, name);
    await writeFile(
      input,
      make([
        { path: 'd/f.txt', content: 'the data\n' },
        { path: 'd/s', type: 'symlink', linkpath: 'f.txt' },
        { path: 'e/via', type: 'symlink', linkpath: '../d/s' },
        { path: 'dirlink', type: 'symlink', linkpath: 'd' },
        { path: 'through', type: 'symlink', linkpath: 'dirlink/f.txt' },
        { path: 'h', type: 'hardlink', linkpath: 'd/f.txt' },
      ]),
    );
    const x = path.join(dir, 'x');
    const report = await extractArchive(input, x).catch((e: unknown) => e);
    // A link to a folder is refused (it would have to be copied as a tree): named in the error.
    expect(report).toMatchObject({ code: 'E_UNSAFE_ARCHIVE', message: expect.stringMatching(/"dirlink".*folder/) });
    // Zip has no hard links; tar does.
    const hard: FixtureEntry[] = kind === 'zip' ? [] : [{ path: 'h', type: 'hardlink', linkpath: 'd/f.txt' }];
    await writeFile(
      input,
      make([
        { path: 'd/f.txt', content: 'the data\n' },
        { path: 'd/s', type: 'symlink', linkpath: 'f.txt' },
        { path: 'e/via', type: 'symlink', linkpath: '../d/s' },
        ...hard,
      ]),
    );
    expect(await extractArchive(input, x)).toMatchObject({
      entries: 3 + hard.length,
      files: 1,
      links: 2 + hard.length,
    });
    for (const p of ['d/f.txt', 'd/s', 'e/via', ...hard.map((h) => h.path)])
      expect(await readFile(path.join(x, p), 'utf8'), p).toBe('the data\n');
    expect(await noLinksUnder(x)).toEqual([]);
  });

  it('caps the total size and the entry count', async () => {
    const dir = await tempDir();
    const input = path.join(dir, name);
    await writeFile(input, make(Array.from({ length: 20 }, (_, i) => ({ path: `f${i}.txt` }))));
    await expect(extractArchive(input, path.join(dir, 'x'), { maxBytes: 100 })).rejects.toMatchObject({
      code: 'E_UNSAFE_ARCHIVE',
      message: expect.stringMatching(/more than 100 bytes/),
    });
    await expect(extractArchive(input, path.join(dir, 'x'), { maxEntries: 10 })).rejects.toMatchObject({
      code: 'E_UNSAFE_ARCHIVE',
    });
  });
});

describe('tar hard links', () => {
  it('rejects a hard link out', async () => {
    const dir = await tempDir();
    const bad = path.join(dir, 'bad.tar');
    await writeTar(bad, [{ path: 'h', type: 'hardlink', linkpath: '../outside' }]);
    await expect(listArchiveEntries(bad)).rejects.toMatchObject({
      code: 'E_UNSAFE_ARCHIVE',
      message: expect.stringMatching(/hard link/),
    });
  });
});

describe('entry checks', () => {
  it.each([
    ['a/b.txt', undefined],
    ['a/../b', /\.\./],
    ['C:\\x', /absolute/],
    ['\\\\server\\x', /absolute/],
    ['a\0b', /NUL/],
  ])('unsafeEntryPathReason(%j)', (p, want) => {
    const r = unsafeEntryPathReason(p);
    if (want) expect(r).toMatch(want);
    else expect(r).toBeUndefined();
  });

  it.each([
    ['a/l', 'b', 'symlink', false],
    ['a/l', '../b', 'symlink', false],
    ['a/l', '../../b', 'symlink', true],
    ['l', '/etc/passwd', 'symlink', true],
    ['a/h', 'a/b', 'hardlink', false],
    ['a/h', '../b', 'hardlink', true],
  ] as const)('linkEscapes(%s → %s, %s) = %s', (p, t, k, want) => expect(linkEscapes(p, t, k)).toBe(want));
});

// Generated archives of links through links, in zip and tar: whatever the
// archive holds, extraction either refuses it (E_UNSAFE_ARCHIVE) or writes
// only regular files inside the target — never a byte outside, never a link.
describe('fuzz: links through links never write outside the target', () => {
  const NAMES = ['a', 'b', 'c', 'd'];
  function randomArchive(rng: ReturnType<typeof createRng>): FixtureEntry[] {
    const pick = <T>(xs: readonly T[]): T => xs[rng.int(xs.length)]!;
    const randomPath = (maxDepth: number) => Array.from({ length: 1 + rng.int(maxDepth) }, () => pick(NAMES)).join('/');
    const randomTarget = () => {
      const parts = Array.from({ length: 1 + rng.int(4) }, () =>
        pick([...NAMES, '..', '..', '.', 'ESCAPED.txt', 'outside']),
      );
      const t = parts.join('/');
      return rng.next() < 0.05 ? `/${t}` : t;
    };
    const entries: FixtureEntry[] = [];
    for (let n = 1 + rng.int(8); n > 0; n--) {
      const r = rng.next();
      if (r < 0.4) entries.push({ path: randomPath(3), type: 'symlink', linkpath: randomTarget() });
      else if (r < 0.5) entries.push({ path: randomPath(3), type: 'hardlink', linkpath: randomTarget() });
      else if (r < 0.6) entries.push({ path: randomPath(2), type: 'directory' });
      else entries.push({ path: `${randomPath(3)}${rng.next() < 0.5 ? '/ESCAPED.txt' : ''}`, content: `file ${n}\n` });
    }
    return entries;
  }

  it.each(['zip', 'tar'] as const)(
    '%s: 400 seeded archives',
    async (kind) => {
      const rng = createRng(`archive-fuzz-${kind}`);
      const root = await tempDir();
      const outcomes = { extracted: 0, refused: 0 };
      for (let i = 0; i < 400; i++) {
        const sandbox = path.join(root, String(i));
        const work = path.join(sandbox, 'w1', 'w2');
        await mkdir(work, { recursive: true });
        for (const n of NAMES) await writeFile(path.join(sandbox, n), 'sentinel\n');
        await writeFile(path.join(work, 'outside'), 'sentinel\n');
        const entries = randomArchive(rng);
        const input = path.join(sandbox, `in.${kind}`);
        if (kind === 'zip') await writeZip(input, entries);
        else await writeTar(input, entries);
        const target = path.join(work, 'x');
        const before = await snapshot(sandbox, target);
        const err = await extractArchive(input, target).then(
          () => undefined,
          (e: unknown) => e,
        );
        const what = `${kind} #${i}: ${JSON.stringify(entries)}`;
        if (err) {
          expect(
            isJunoError(err) && ['E_UNSAFE_ARCHIVE', 'E_INPUT_FORMAT'].includes(err.code),
            `${what}: ${String(err)}`,
          ).toBe(true);
          outcomes.refused++;
        } else {
          outcomes.extracted++;
          expect(await noLinksUnder(target), what).toEqual([]);
        }
        expect(await snapshot(sandbox, target), what).toEqual(before);
        await rm(sandbox, { recursive: true, force: true });
      }
      // The generator reaches both sides: archives that are fine and archives that are refused.
      expect(outcomes.extracted).toBeGreaterThan(20);
      expect(outcomes.refused).toBeGreaterThan(20);
    },
    300_000,
  );
});
