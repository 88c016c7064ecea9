import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import { createRng, sha256, type ProgressListener } from '@junobench/core';
import type { DerivedTable } from './derive-table.js';
import type { DataNeed } from './plan-data-needs.js';
import type { ResolvedNeed } from './plan-draft-inputs.js';

export interface MaterializeOptions {
  /** Downloads a URL; absent = offline (nothing is downloaded). */
  fetchUrl?: (url: string) => Promise<Buffer>;
  /** Writes a derived table as a delimited file (the synthetic-table machinery, composed by the add flow). */
  writeTable: (table: DerivedTable, file: string, seed: string) => Promise<void>;
  seed: string;
  onProgress?: ProgressListener;
}

/**
 * Put each input a draft needs into its folder (`dir` is the draft's):
 * download it when a URL is known and the network is reachable, else derive
 * it from the code (seeded), else leave it missing with the reason. What is
 * present already is left alone.
 */
export async function materializeInputs(
  needs: readonly DataNeed[],
  dir: string,
  options: MaterializeOptions,
): Promise<ResolvedNeed[]> {
  const out: ResolvedNeed[] = [];
  for (const need of needs) {
    if (need.present) {
      out.push({ need, status: 'present' });
      continue;
    }
    const target = path.join(dir, ...need.file.split('/'));
    // A dataset root may be data/ itself (MNIST(root='data')): its files go below it.
    const below = need.derive?.type === 'idx' ? path.join(target, 'x') : target;
    if (!below.startsWith(path.join(dir, 'data') + path.sep)) {
      out.push({ need, status: 'missing', reason: `${need.file} is outside data/` });
      continue;
    }
    let failure: string | undefined;
    if (need.url && options.fetchUrl) {
      try {
        options.onProgress?.({ task: 'add', done: 0, message: `downloading ${need.url}` });
        const bytes = await options.fetchUrl(need.url);
        await mkdir(path.dirname(target), { recursive: true });
        await writeFile(target, bytes);
        out.push({ need, status: 'downloaded', sha256: sha256(bytes), bytes: bytes.length });
        continue;
      } catch (e) {
        failure = `download failed: ${(e as Error).message}`;
      }
    } else if (need.url) failure = 'offline: not downloaded';
    if (need.derive) {
      try {
        const derived = await writeDerived(need, target, options);
        out.push({ need, status: 'synthetic', ...(failure ? { reason: failure } : { reason: 'not found' }), derived });
      } catch (e) {
        // Two reads that disagree on what a path is (a folder for one, a file for another): the first one made wins.
        const code = (e as NodeJS.ErrnoException).code;
        if (code !== 'ENOTDIR' && code !== 'EISDIR' && code !== 'EEXIST') throw e;
        out.push({
          need,
          status: 'missing',
          reason: `${need.file} is read both as a file and as a folder: not derived`,
        });
      }
      continue;
    }
    out.push({
      need,
      status: 'missing',
      reason: [failure, need.underivable].filter(Boolean).join('; ') || 'not found',
    });
  }
  return out;
}

async function writeDerived(need: DataNeed, target: string, options: MaterializeOptions): Promise<string[]> {
  const d = need.derive!;
  const seed = `${options.seed}\u0000${need.file}`;
  if (d.type === 'table') {
    await mkdir(path.dirname(target), { recursive: true });
    await options.writeTable(d.table, target, seed);
    return d.table.derived;
  }
  if (d.type === 'text' && d.words) {
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, `${d.words.join('\n')}\n`);
    return [`the names of the table read with them, one a line: ${d.words.join(', ')}`];
  }
  if (d.type === 'text') {
    const rng = createRng(seed);
    const words = ['data', 'model', 'value', 'train', 'test', 'label', 'sample', 'feature'];
    // Every word once (a list of names read from the file, such as a header, must not repeat one).
    let n = 0;
    const lines = Array.from({ length: d.lines }, () =>
      Array.from({ length: 6 }, () => `${words[rng.int(words.length)]!}_${++n}`).join(' '),
    );
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, `${lines.join('\n')}\n`);
    return [`${d.lines} lines of distinct words`];
  }
  if (d.type === 'array') {
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, encodeArray(d, seed));
    return [
      `a ${d.rows}×${d.columns} array of numbers (${d.format === 'npy' ? '.npy' : d.format === 'raw' ? 'raw float64' : `text, ${JSON.stringify(d.delimiter)}-separated`})`,
    ];
  }
  if (d.type === 'idx') {
    const folder = path.join(target, d.dataset, 'raw');
    await mkdir(folder, { recursive: true });
    for (const [split, n] of [
      ['train', d.train],
      ['t10k', d.test],
    ] as const) {
      const { images, labels } = encodeIdx(n, `${seed}\u0000${split}`);
      await writeFile(path.join(folder, `${split}-images-idx3-ubyte`), images);
      await writeFile(path.join(folder, `${split}-labels-idx1-ubyte`), labels);
    }
    return [
      `${d.dataset} as torchvision keeps it (${d.dataset}/raw, IDX files): ${d.train} training and ${d.test} test images (the real counts, which code splits by) of 28×28 noise, labels 0–9`,
    ];
  }
  if (d.type === 'image') {
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, encodePng(d.width, d.height, seed));
    return [`a ${d.width}×${d.height} RGB image (PNG content)`];
  }
  // A folder of images, one sub-folder per class (ImageFolder, flow_from_directory); a glob names the folder above it.
  const folder = target.includes('*') ? path.dirname(`${target.split('*')[0]!}x`) : target;
  // `<folder>/*.jpg` lists files directly in the folder; anything else (ImageFolder, `*/*.jpg`) wants class folders.
  const flat = /[\\/]\*\.[A-Za-z0-9]+$/.test(target) && target.indexOf('*') === target.lastIndexOf('*');
  for (const cls of d.classes) {
    const into = flat ? folder : path.join(folder, cls);
    await mkdir(into, { recursive: true });
    for (let i = 0; i < d.perClass; i++) {
      await writeFile(path.join(into, `${cls}_${i}.${d.extension}`), encodePng(32, 32, `${seed}\u0000${cls}${i}`));
    }
  }
  return [`${d.classes.length} class folders (${d.classes.join(', ')}) of ${d.perClass} images each`];
}

/**
 * Seeded IDX files (the MNIST format): `n` 28×28 grey images of noise (a few hundred seeded ones, repeated: the full
 * size is written quickly) and their labels, 0–9 in turn.
 */
export function encodeIdx(n: number, seed: string): { images: Buffer; labels: Buffer } {
  const rng = createRng(seed);
  const pixels = 28 * 28;
  const pool = Buffer.alloc(Math.min(n, 256) * pixels);
  for (let i = 0; i < pool.length; i++) pool[i] = rng.int(256);
  const images = Buffer.alloc(16 + n * pixels);
  images.writeUInt32BE(0x803, 0);
  images.writeUInt32BE(n, 4);
  images.writeUInt32BE(28, 8);
  images.writeUInt32BE(28, 12);
  const kept = pool.length / pixels;
  for (let i = 0; i < n; i++) pool.copy(images, 16 + i * pixels, (i % kept) * pixels, ((i % kept) + 1) * pixels);
  const labels = Buffer.alloc(8 + n);
  labels.writeUInt32BE(0x801, 0);
  labels.writeUInt32BE(n, 4);
  for (let i = 0; i < n; i++) labels[8 + i] = i % 10;
  return { images, labels };
}

/** Seeded numbers from 1 to 100 (two decimals) as NumPy reads them: a .npy file, raw float64, or delimited text. */
export function encodeArray(
  d: { rows: number; columns: number; format: 'npy' | 'text' | 'raw'; delimiter: string },
  seed: string,
): Buffer {
  const rng = createRng(seed);
  const values = Array.from({ length: d.rows * d.columns }, () => Math.round((1 + rng.next() * 99) * 100) / 100);
  if (d.format === 'text') {
    const lines: string[] = [];
    for (let r = 0; r < d.rows; r++) lines.push(values.slice(r * d.columns, (r + 1) * d.columns).join(d.delimiter));
    return Buffer.from(`${lines.join('\n')}\n`);
  }
  const data = Buffer.alloc(values.length * 8);
  values.forEach((v, i) => data.writeDoubleLE(v, i * 8));
  if (d.format === 'raw') return data;
  // NPY 1.0: magic, version, header length, a Python dict literal padded so the data starts on a 64-byte boundary.
  const dict = `{'descr': '<f8', 'fortran_order': False, 'shape': (${d.rows}, ${d.columns}), }`;
  const pad = 64 - ((10 + dict.length + 1) % 64);
  const header = Buffer.from(`${dict}${' '.repeat(pad % 64)}\n`, 'latin1');
  const pre = Buffer.alloc(10);
  Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]).copy(pre);
  pre.writeUInt16LE(header.length, 8);
  return Buffer.concat([pre, header, data]);
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** A seeded RGB PNG of noise: enough for PIL, OpenCV and matplotlib to read as an image. */
export function encodePng(width: number, height: number, seed: string): Buffer {
  const rng = createRng(seed);
  const raw = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (width * 3 + 1)] = 0;
    for (let x = 0; x < width * 3; x++) raw[y * (width * 3 + 1) + 1 + x] = rng.int(256);
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
