import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTar, makeZip } from '../test-helpers/archive-fixtures.js';
import { DEFAULT_ARCHIVE_LIMITS, contentByteLimit, listArchiveEntries } from './archive-entries.js';
import { extractArchive } from './extract-archive.js';

const made: string[] = [];
afterEach(async () => {
  await Promise.all(made.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});
async function tempDir(): Promise<string> {
  const d = await mkdtemp(path.join(tmpdir(), 'junobench-archive-limits-'));
  made.push(d);
  return d;
}
const GiB = 1024 ** 3;
const MiB = 1024 ** 2;

describe('default limits are proportionate', () => {
  it('a size cap of 16 GiB and 100 times the archive size past 1 GiB', () => {
    expect(DEFAULT_ARCHIVE_LIMITS).toMatchObject({ maxBytes: 16 * GiB, maxRatio: 100, ratioFloorBytes: GiB });
  });

  it.each([
    ['a 4 KiB archive may still expand to the 1 GiB floor', 4096, { bytes: GiB, by: 'ratio' }],
    ['a 50 MiB archive: 100× its size', 50 * MiB, { bytes: 5000 * MiB, by: 'ratio' }],
    ['a 1 GiB archive: the 16 GiB cap', GiB, { bytes: 16 * GiB, by: 'size' }],
    ['unknown archive size: the cap', undefined, { bytes: 16 * GiB, by: 'size' }],
  ])('%s', (_n, archiveBytes, want) => {
    expect(contentByteLimit({}, archiveBytes)).toEqual(want);
  });
});

// Bombs declare far more content than their bytes can hold (or compress
// absurdly well). They are refused from the headers, by default, before
// anything is decompressed or written.
describe.each([
  // Twelve deflated entries that each claim 200 MiB: the sixth passes the 1 GiB floor.
  [
    'zip',
    'bomb.zip',
    'layer5.bin',
    () =>
      makeZip(
        Array.from({ length: 12 }, (_, i) => ({ path: `layer${i}.bin`, content: 'x', declaredSize: 200 * MiB })),
        { deflate: true },
      ),
  ],
  // A header claiming 2 GiB: refused at the header, before the parser would read (or miss) its data.
  [
    'tar.gz',
    'bomb.tar.gz',
    'layer0.bin',
    () =>
      makeTar([{ path: 'layer0.bin', content: 'x', declaredSize: 2 * GiB }, { path: 'layer1.bin' }], { gzip: true }),
  ],
])('a %s that would expand past 1 GiB from a few KiB', (_kind, name, entry, make) => {
  it('is refused with default limits, the ratio and the entry named, nothing written', async () => {
    const dir = await tempDir();
    const input = path.join(dir, name);
    await writeFile(input, make());
    expect((await stat(input)).size).toBeLessThan(20_000);
    const err = await listArchiveEntries(input).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'E_UNSAFE_ARCHIVE', location: { file: input, field: entry } });
    expect((err as Error).message).toMatch(/expands to more than 1\.0 GiB, over \d+ times its size .*zip bomb/);
    expect((err as { hint: string }).hint).toMatch(/maxRatio/);
    await expect(extractArchive(input, path.join(dir, 'x'))).rejects.toMatchObject({ code: 'E_UNSAFE_ARCHIVE' });
    await expect(stat(path.join(dir, 'x'))).rejects.toThrow();
  });
});

describe('really compressed data past the ratio', () => {
  it('a deflated zip of zeros 1,000× smaller than its content is refused past the floor; raising maxRatio lets it through', async () => {
    const dir = await tempDir();
    const input = path.join(dir, 'zeros.zip');
    await writeFile(input, makeZip([{ path: 'zeros.bin', content: Buffer.alloc(4 * MiB) }], { deflate: true }));
    const size = (await stat(input)).size;
    expect((4 * MiB) / size).toBeGreaterThan(500);
    const limits = { ratioFloorBytes: MiB };
    await expect(extractArchive(input, path.join(dir, 'x'), limits)).rejects.toMatchObject({
      code: 'E_UNSAFE_ARCHIVE',
      message: expect.stringMatching(/times its size/),
    });
    expect(await extractArchive(input, path.join(dir, 'x'), { ...limits, maxRatio: 2000 })).toMatchObject({
      files: 1,
      bytes: 4 * MiB,
    });
    // The default floor lets small archives of repetitive data through.
    expect(await extractArchive(input, path.join(dir, 'y'))).toMatchObject({ files: 1 });
  });
});
