import { readFile, readdir, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { describe, expect, it, vi } from 'vitest';
import { hashTree, listTree } from '@junobench/core';
import { EXTENSION, writeImage, type FixtureKind } from '../test-helpers/image-fixtures.js';
import { reencodeImage } from './reencode-image.js';
import { classOfImage, sampleImages } from './sample-images.js';
import { subsampleData } from './subsample-data.js';
import { useTempDirs } from '../test-helpers/temp-dirs.js';

// Generated fixtures and real encoders: slow on a loaded machine, so a generous per-test limit.
vi.setConfig({ testTimeout: 60_000 });

const tempDir = useTempDirs();

const KINDS: FixtureKind[] = [
  'rgb-jpeg',
  'gray-jpeg',
  'rgb-png',
  'gray-png',
  'rgba-png',
  'gray16-png',
  'rgb16-png',
  'palette-png',
  'webp',
];

describe('reencodeImage', () => {
  it.each(KINDS)('keeps format, channels, bit depth and palette of %s when shrinking', async (kind) => {
    const dir = await tempDir();
    const file = path.join(dir, `x${EXTENSION[kind]}`);
    await writeImage(file, kind, 120, 80, kind);
    const input = await readFile(file);
    const before = await sharp(input).metadata();
    const r = await reencodeImage(input, { maxSide: 48 });
    expect(r.resized).toBe(true);
    const after = await sharp(r.data!).metadata();
    expect(after.format).toBe(before.format);
    expect(after.channels).toBe(before.channels);
    expect(after.depth).toBe(before.depth);
    expect(after.space).toBe(before.space);
    expect(after.hasAlpha).toBe(before.hasAlpha);
    expect(Boolean(after.isPalette)).toBe(Boolean(before.isPalette));
    expect(Math.max(after.width!, after.height!)).toBe(48);
    // Fixed encoder settings: the same bytes again.
    const again = await reencodeImage(input, { maxSide: 48 });
    expect(Buffer.compare(again.data!, r.data!)).toBe(0);
  });

  it('leaves small images alone unless asked to re-encode', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'x.png');
    await writeImage(file, 'gray-png', 30, 20, 1);
    expect((await reencodeImage(await readFile(file), { maxSide: 64 })).data).toBeUndefined();
    expect((await reencodeImage(await readFile(file), { maxSide: 64, force: true })).data).toBeDefined();
  });
});

async function imageTree(root: string): Promise<void> {
  const classes = ['cats', 'dogs', 'rare'];
  for (const [ci, cls] of classes.entries()) {
    const n = cls === 'rare' ? 1 : 12;
    for (let i = 0; i < n; i++) {
      const kind = KINDS[(ci * 5 + i) % KINDS.length]!;
      await writeImage(path.join(root, 'train', cls, `${cls}_${i}${EXTENSION[kind]}`), kind, 64 + i, 48, `${cls}${i}`);
    }
  }
}

describe('sampleImages', () => {
  it('keeps K per class folder, with relative paths, reproducibly', async () => {
    const dir = await tempDir();
    await imageTree(path.join(dir, 'src'));
    const run = async (out: string, seed: number) =>
      sampleImages(path.join(dir, 'src'), path.join(dir, out), { perClass: 3, seed });
    const r = await run('a', 1);
    expect(r.imagesBefore).toBe(25);
    expect(r.imagesAfter).toBe(7);
    expect(r.classes).toBe(3);
    const kept = await listTree(path.join(dir, 'a'));
    expect(kept).toEqual(r.kept);
    expect(kept.filter((f) => f.startsWith('train/cats/'))).toHaveLength(3);
    expect(kept.filter((f) => f.startsWith('train/rare/'))).toHaveLength(1);
    for (const f of kept)
      expect(Buffer.compare(await readFile(path.join(dir, 'a', f)), await readFile(path.join(dir, 'src', f)))).toBe(0);
    await run('b', 1);
    expect(await hashTree(path.join(dir, 'b'))).toBe(await hashTree(path.join(dir, 'a')));
    await run('c', 2);
    expect(await listTree(path.join(dir, 'c'))).not.toEqual(kept);
  });

  it('resizes and re-encodes deterministically, preserving mode per image', async () => {
    const dir = await tempDir();
    await imageTree(path.join(dir, 'src'));
    const opts = { fraction: 0.5, maxSide: 32, seed: 9 };
    const r = await sampleImages(path.join(dir, 'src'), path.join(dir, 'a'), opts);
    await sampleImages(path.join(dir, 'src'), path.join(dir, 'b'), opts);
    expect(r.resized).toBe(r.imagesAfter);
    expect(await hashTree(path.join(dir, 'a'))).toBe(await hashTree(path.join(dir, 'b')));
    for (const f of r.kept) {
      const before = await sharp(path.join(dir, 'src', f)).metadata();
      const after = await sharp(path.join(dir, 'a', f)).metadata();
      expect([after.format, after.channels, after.depth]).toEqual([before.format, before.channels, before.depth]);
    }
    expect(r.bytesAfter).toBeLessThan(r.bytesBefore);
  });

  it('reports a corrupt image by path and goes on', async () => {
    const dir = await tempDir();
    await imageTree(path.join(dir, 'src'));
    await writeFile(path.join(dir, 'src/train/rare/broken.jpg'), Buffer.from('not really a jpeg'));
    const r = await sampleImages(path.join(dir, 'src'), path.join(dir, 'out'), { perClass: 50, maxSide: 32, seed: 1 });
    expect(r.corrupt).toEqual([{ path: 'train/rare/broken.jpg', reason: expect.any(String) }]);
    expect(r.imagesAfter).toBe(26);
    const dropped = await sampleImages(path.join(dir, 'src'), path.join(dir, 'out2'), {
      perClass: 50,
      seed: 1,
      corrupt: 'drop',
    });
    expect(dropped.corrupt).toHaveLength(1);
    expect(dropped.kept).not.toContain('train/rare/broken.jpg');
  });

  it.each([
    ['a/b/c.jpg', undefined, 'a/b'],
    ['a/b/c.jpg', 1, 'a'],
    ['c.jpg', undefined, ''],
  ])('classOfImage(%s, %s) = %s', (rel, depth, want) => expect(classOfImage(rel, depth)).toBe(want));
});

describe('subsampleData with images', () => {
  it('filters CSV/TXT index files, VOC ImageSets and Annotations to the kept images', async () => {
    const dir = await tempDir();
    const src = path.join(dir, 'src');
    await imageTree(src);
    const all = (await listTree(path.join(src, 'train'))).sort();
    await writeFile(
      path.join(src, 'train.csv'),
      `image,label\n${all.map((f) => `/kaggle/input/pets/train/${f},${f.split('/')[0]}`).join('\n')}\nunrelated,none\n`,
    );
    await writeFile(path.join(src, 'list.txt'), `${all.map((f) => `train/${f}`).join('\n')}\n`);
    // VOC style: ImageSets lists stems; Annotations has one XML per image stem.
    await mkdir(path.join(src, 'ImageSets/Main'), { recursive: true });
    await mkdir(path.join(src, 'Annotations'), { recursive: true });
    const stems = all.map((f) => path.basename(f, path.extname(f)));
    await writeFile(path.join(src, 'ImageSets/Main/trainval.txt'), `${stems.map((s) => `${s}  1`).join('\n')}\n`);
    for (const s of stems)
      await writeFile(path.join(src, 'Annotations', `${s}.xml`), `<annotation><filename>${s}</filename></annotation>`);
    const r = await subsampleData({
      sourceDir: src,
      outDir: path.join(dir, 'out'),
      spec: {
        seed: 5,
        source: { kind: 'local' },
        steps: [
          {
            path: 'train',
            method: 'images',
            parameters: {
              perClass: 2,
              indexFiles: ['train.csv', 'list.txt', 'ImageSets'],
              sidecarFolders: ['Annotations'],
            },
          },
        ],
      },
    });
    const kept = (await listTree(path.join(dir, 'out', 'train'))).sort();
    expect(kept).toHaveLength(5);
    const csv = (await readFile(path.join(dir, 'out', 'train.csv'), 'utf8')).trim().split('\n');
    expect(csv[0]).toBe('image,label');
    expect(
      csv
        .slice(1, -1)
        .map((l) => l.split(',')[0]!.replace('/kaggle/input/pets/train/', ''))
        .sort(),
    ).toEqual(kept);
    expect(csv[csv.length - 1]).toBe('unrelated,none');
    expect((await readFile(path.join(dir, 'out', 'list.txt'), 'utf8')).trim().split('\n').sort()).toEqual(
      kept.map((f) => `train/${f}`),
    );
    const keptStems = kept.map((f) => path.basename(f, path.extname(f))).sort();
    const imageSet = (await readFile(path.join(dir, 'out', 'ImageSets/Main/trainval.txt'), 'utf8')).trim().split('\n');
    expect(imageSet.map((l) => l.split(/\s+/)[0]).sort()).toEqual(keptStems);
    expect((await readdir(path.join(dir, 'out', 'Annotations'))).map((f) => f.replace('.xml', '')).sort()).toEqual(
      keptStems,
    );
    expect(r.steps[0]!.images!.sidecarsDropped).toBe(20);
    expect(r.filesDropped).toBe(20 + 20);
  });
});
