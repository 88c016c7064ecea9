// Test-only (a module of this package's test-helpers/ folder, outside src/): imported by tests and benchmarks, never
// from index.ts or library code.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { createRng } from '@junobench/core';

export type FixtureKind =
  'rgb-jpeg' | 'gray-jpeg' | 'rgb-png' | 'gray-png' | 'rgba-png' | 'gray16-png' | 'rgb16-png' | 'palette-png' | 'webp';

/**
 * A seeded, textured test image (gradients plus noise, so encoders have
 * something to do) of the given kind. Shared by tests and bench/subsample.
 */
export async function makeImage(
  kind: FixtureKind,
  width: number,
  height: number,
  seed: string | number,
): Promise<Buffer> {
  const rng = createRng(`image\u0000${String(seed)}`);
  const d16 = kind.includes('16');
  const channels = kind.startsWith('gray') ? 1 : kind === 'rgba-png' ? 4 : 3;
  const max = d16 ? 65535 : 255;
  const px = new (d16 ? Uint16Array : Uint8Array)(width * height * channels);
  const phase = rng.next() * 6.28;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      for (let c = 0; c < channels; c++) {
        const base = 0.5 + 0.5 * Math.sin(phase + (x / width) * 6 + (y / height) * (3 + c));
        const v = c === 3 ? 0.4 + 0.6 * (x / width) : Math.min(1, Math.max(0, base + (rng.next() - 0.5) * 0.15));
        px[(y * width + x) * channels + c] = Math.round(v * max);
      }
    }
  }
  const input = sharp(Buffer.from(px.buffer, px.byteOffset, px.byteLength), {
    raw: { width, height, channels: channels as 1 | 3 | 4, ...(d16 ? { depth: 'ushort' as const } : {}) },
  });
  const p = channels === 1 ? input.toColourspace(d16 ? 'grey16' : 'b-w') : d16 ? input.toColourspace('rgb16') : input;
  switch (kind) {
    case 'rgb-jpeg':
    case 'gray-jpeg':
      return p.jpeg({ quality: 85 }).toBuffer();
    case 'palette-png':
      return p.png({ palette: true, colours: 16 }).toBuffer();
    case 'webp':
      return p.webp({ quality: 80 }).toBuffer();
    default:
      return p.png().toBuffer();
  }
}

export const EXTENSION: Record<FixtureKind, string> = {
  'rgb-jpeg': '.jpg',
  'gray-jpeg': '.jpeg',
  'rgb-png': '.png',
  'gray-png': '.png',
  'rgba-png': '.png',
  'gray16-png': '.png',
  'rgb16-png': '.png',
  'palette-png': '.png',
  webp: '.webp',
};

export async function writeImage(
  file: string,
  kind: FixtureKind,
  width: number,
  height: number,
  seed: string | number,
): Promise<number> {
  const buf = await makeImage(kind, width, height, seed);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, buf);
  return buf.length;
}
