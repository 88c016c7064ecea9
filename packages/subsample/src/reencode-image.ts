import sharpDefault from 'sharp';

export type SharpFactory = typeof sharpDefault;

export interface ReencodeOptions {
  /** Shrink so the longest side is at most this (never enlarge). */
  maxSide?: number;
  /** Re-encode even when no resize is needed. */
  force?: boolean;
  /** JPEG/WebP/AVIF quality (default 90). */
  quality?: number;
  sharp?: SharpFactory;
}

export interface ReencodeResult {
  /** The new bytes, or undefined when the original bytes are kept as they are. */
  data?: Buffer;
  resized: boolean;
  width: number;
  height: number;
  channels: number;
  format: string;
}

const TIFF_COMPRESSIONS = ['none', 'jpeg', 'deflate', 'packbits', 'ccittfax4', 'lzw', 'webp', 'zstd', 'jp2k'] as const;

/** Formats sharp can both read and write here; anything else is copied byte for byte. */
const WRITABLE = new Set(['jpeg', 'png', 'webp', 'gif', 'tiff', 'avif', 'heif']);

/**
 * Resize and/or re-encode one image while keeping what a notebook's crash
 * can depend on: format, channel count and colour mode (grayscale stays 1
 * channel, grey+alpha 2, RGBA 4, CMYK 4), bit depth (16-bit PNG/TIFF stays
 * 16-bit), palette mode, alpha and metadata (EXIF orientation, ICC). Encoder
 * settings are fixed (no effort heuristics, no timestamps), so the same
 * input gives the same bytes on every run with the same libvips.
 */
export async function reencodeImage(input: Buffer, options: ReencodeOptions = {}): Promise<ReencodeResult> {
  const sharp = options.sharp ?? sharpDefault;
  const meta = await sharp(input, { failOn: 'error' }).metadata();
  const format = meta.format ?? 'unknown';
  const width = meta.width ?? 0;
  const height = meta.height ?? 0;
  const channels = meta.channels ?? 0;
  const longest = Math.max(width, height);
  const resize = options.maxSide !== undefined && longest > options.maxSide;
  const base: ReencodeResult = { resized: false, width, height, channels, format };
  if ((!resize && !options.force) || !WRITABLE.has(format)) return base;

  const animated = (meta.pages ?? 1) > 1 && (format === 'gif' || format === 'webp');
  let p = sharp(input, { failOn: 'error', animated }).keepMetadata();
  if (resize) {
    p = p.resize({
      width: options.maxSide,
      height: options.maxSide,
      fit: 'inside',
      withoutEnlargement: true,
      kernel: 'lanczos3',
    });
  }
  const d16 = meta.depth === 'ushort';
  if (meta.space === 'cmyk') p = p.toColourspace('cmyk');
  else if (channels <= 2 || meta.space === 'b-w' || meta.space === 'grey16')
    p = p.toColourspace(d16 ? 'grey16' : 'b-w');
  else p = p.toColourspace(d16 ? 'rgb16' : 'srgb');

  const quality = options.quality ?? 90;
  switch (format) {
    case 'jpeg':
      p = p.jpeg({
        quality,
        progressive: meta.isProgressive ?? false,
        chromaSubsampling: meta.chromaSubsampling === '4:4:4' ? '4:4:4' : '4:2:0',
        mozjpeg: false,
        optimiseCoding: true,
      });
      break;
    case 'png':
      p = meta.isPalette
        ? p.png({
            palette: true,
            colours: Math.min(256, 2 ** (meta.bitsPerSample ?? 8)),
            dither: 0,
            effort: 7,
            compressionLevel: 9,
          })
        : p.png({ compressionLevel: 9, adaptiveFiltering: false, palette: false });
      break;
    case 'webp':
      p = p.webp({ quality, lossless: false, effort: 4, smartSubsample: false });
      break;
    case 'gif':
      p = p.gif({ effort: 7, dither: 0 });
      break;
    case 'tiff':
      p = p.tiff({
        compression: TIFF_COMPRESSIONS.find((c) => c === (meta.compression as string | undefined)) ?? 'lzw',
        quality,
      });
      break;
    case 'avif':
    case 'heif':
      p = p.avif({ quality, effort: 4, chromaSubsampling: '4:2:0' });
      break;
  }
  const { data, info } = await p.toBuffer({ resolveWithObject: true });
  return { data, resized: resize, width: info.width, height: info.height, channels: info.channels, format };
}
