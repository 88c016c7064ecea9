import sharp from 'sharp';

/** Turns an SVG into PNG bytes; injectable so tests and other tools can supply their own. */
export type Rasterizer = (svg: string) => Promise<Uint8Array>;

/** PNG at twice the SVG's size, rasterised by sharp (librsvg, system fonts through fontconfig). */
export const DEFAULT_PNG_DENSITY = 144;

/**
 * A rasterizer over sharp. PNG options are fixed (no adaptive filtering, no
 * palette, no metadata) so the same SVG gives the same PNG bytes on a machine.
 */
export function createSharpRasterizer(sharpLib: typeof sharp = sharp, density = DEFAULT_PNG_DENSITY): Rasterizer {
  return async (svg) => {
    const png = await sharpLib(Buffer.from(svg, 'utf8'), { density })
      .png({ compressionLevel: 9, adaptiveFiltering: false, palette: false })
      .toBuffer();
    return new Uint8Array(png.buffer, png.byteOffset, png.byteLength);
  };
}
