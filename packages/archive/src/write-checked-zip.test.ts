import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeZip, readLocalEntries, type FixtureEntry } from '../test-helpers/archive-fixtures.js';
import { openZip, readZipEntries, readZipEntryBuffer } from './archive-entries.js';
import { writeCheckedZip } from './write-checked-zip.js';

const made: string[] = [];
afterEach(async () => {
  await Promise.all(made.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});
async function tempDir(): Promise<string> {
  const d = await mkdtemp(path.join(tmpdir(), 'junobench-checked-zip-'));
  made.push(d);
  return d;
}

/** What yauzl reads from the central directory: the view the checks see. */
async function readCentralEntries(file: string): Promise<{ path: string; content: Buffer }[]> {
  const zip = await openZip(file);
  try {
    const out: { path: string; content: Buffer }[] = [];
    for (const { entry, raw } of await readZipEntries(file, zip)) {
      if (entry.type === 'file') out.push({ path: entry.path, content: await readZipEntryBuffer(zip, raw) });
    }
    return out;
  } finally {
    zip.close();
  }
}

const text = (entries: { path: string; content: Buffer }[]) => entries.map((e) => [e.path, e.content.toString('utf8')]);

const checked: FixtureEntry[] = [
  { path: 'a.txt', content: 'checked a\n' },
  { path: 'dir/b.txt', content: 'checked b\n' },
];

// Each zip's central directory lists `checked`; its local entries, read from
// the start as a streaming reader does, say something else.
const ambiguous: [string, () => Buffer][] = [
  [
    'a hidden local entry the directory does not list',
    () => makeZip([{ path: 'a.txt', content: 'unchecked\n', hidden: true }, ...checked]),
  ],
  [
    'a local header naming another file than the directory',
    () => makeZip([{ path: 'a.txt', content: 'checked a\n', localPath: 'evil.txt' }, checked[1]!]),
  ],
  [
    'a whole other zip before the first entry (two central directories)',
    () => makeZip(checked, { prepend: makeZip([{ path: 'a.txt', content: 'unchecked\n' }]) }),
  ],
];

describe('writeCheckedZip', () => {
  it.each(ambiguous)(
    '%s: the copy holds exactly the checked entries, and its local headers say the same',
    async (_name, build) => {
      const d = await tempDir();
      const src = path.join(d, 'in.zip');
      const bytes = build();
      await writeFile(src, bytes);
      // The fixture is really ambiguous: its local view differs from its central one.
      expect(text(readLocalEntries(bytes))).not.toEqual(text(await readCentralEntries(src)));
      expect(text(await readCentralEntries(src))).toEqual([
        ['a.txt', 'checked a\n'],
        ['dir/b.txt', 'checked b\n'],
      ]);

      const dest = path.join(d, 'out.zip');
      const copied = await writeCheckedZip(src, dest);
      expect(copied.map((e) => e.path)).toEqual(['a.txt', 'dir/b.txt']);
      const out = await readFile(dest);
      expect(text(readLocalEntries(out))).toEqual([
        ['a.txt', 'checked a\n'],
        ['dir/b.txt', 'checked b\n'],
      ]);
      expect(text(await readCentralEntries(dest))).toEqual(text(readLocalEntries(out)));
    },
  );

  it('copies entries deflated anew, with their content and CRC (yauzl reads them back)', async () => {
    const d = await tempDir();
    const src = path.join(d, 'in.zip');
    const big = Buffer.alloc(200_000, 'abc');
    await writeFile(
      src,
      makeZip([{ path: 'big.txt', content: big }, { path: 'x/', type: 'directory' }, { path: 'x/y.txt' }], {
        deflate: true,
      }),
    );
    const dest = path.join(d, 'out.zip');
    expect((await writeCheckedZip(src, dest)).map((e) => e.path)).toEqual(['big.txt', 'x/y.txt']);
    const back = await readCentralEntries(dest);
    expect(back.map((e) => e.path)).toEqual(['big.txt', 'x/y.txt']);
    expect(back[0]!.content.equals(big)).toBe(true);
    expect(back[1]!.content.toString()).toBe('content of x/y.txt\n');
  });

  it('orders the copy by rank, keeping the directory order among equal ranks', async () => {
    const d = await tempDir();
    const src = path.join(d, 'in.zip');
    await writeFile(
      src,
      makeZip([{ path: 'late-1.txt' }, { path: 'a.txt' }, { path: 'late-2.txt' }, { path: 'b.txt' }]),
    );
    const dest = path.join(d, 'out.zip');
    const rank = (p: string) => (p.startsWith('late') ? 1 : 0);
    const order = ['a.txt', 'b.txt', 'late-1.txt', 'late-2.txt'];
    expect((await writeCheckedZip(src, dest, {}, { rank })).map((e) => e.path)).toEqual(order);
    const out = await readFile(dest);
    expect(readLocalEntries(out).map((e) => e.path)).toEqual(order);
    expect((await readCentralEntries(dest)).map((e) => e.path)).toEqual(order);
  });

  it('refuses an entry that inflates past its declared size, naming it, and leaves no copy', async () => {
    const d = await tempDir();
    const src = path.join(d, 'in.zip');
    await writeFile(
      src,
      makeZip([{ path: 'ok.txt' }, { path: 'liar.txt', content: Buffer.alloc(100_000, 'z'), declaredSize: 10 }], {
        deflate: true,
      }),
    );
    const dest = path.join(d, 'out.zip');
    await expect(writeCheckedZip(src, dest)).rejects.toMatchObject({
      code: 'E_UNSAFE_ARCHIVE',
      location: { file: src, field: 'liar.txt' },
      message: expect.stringMatching(/entry "liar\.txt" inflates to more than the 10 bytes its header declares/),
    });
    await expect(stat(dest)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('applies the limits from the central directory before reading anything', async () => {
    const d = await tempDir();
    const src = path.join(d, 'in.zip');
    await writeFile(src, makeZip([{ path: 'a.txt' }, { path: 'b.txt' }, { path: 'c.txt' }]));
    await expect(writeCheckedZip(src, path.join(d, 'out.zip'), { maxEntries: 2 })).rejects.toMatchObject({
      code: 'E_UNSAFE_ARCHIVE',
      location: { field: 'c.txt' },
    });
    await expect(stat(path.join(d, 'out.zip'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses two directory entries with one name (which one a reader takes is ambiguous)', async () => {
    const d = await tempDir();
    const src = path.join(d, 'in.zip');
    await writeFile(src, makeZip([{ path: 'a.txt' }, { path: 'a.txt', content: 'again' }]));
    await expect(writeCheckedZip(src, path.join(d, 'out.zip'))).rejects.toMatchObject({
      code: 'E_UNSAFE_ARCHIVE',
      message: expect.stringMatching(/twice/),
    });
  });

  it('does not write over an existing file', async () => {
    const d = await tempDir();
    const src = path.join(d, 'in.zip');
    await writeFile(src, makeZip(checked));
    await writeFile(path.join(d, 'out.zip'), 'keep');
    await expect(writeCheckedZip(src, path.join(d, 'out.zip'))).rejects.toMatchObject({ code: 'EEXIST' });
    expect(await readFile(path.join(d, 'out.zip'), 'utf8')).toBe('keep');
  });
});
