import sharp from 'sharp';
import { parse, View } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';

/**
 * Render a Vega-Lite specification to SVG, headless: compile to Vega, run a
 * View without a renderer (no DOM, no canvas package) and serialise the scene
 * graph. Same spec → same SVG bytes.
 */
export async function renderChartSvg(spec: TopLevelSpec): Promise<string> {
  const view = new View(parse(compile(spec).spec), { renderer: 'none' });
  try {
    return normalizeSvgIds(await view.toSVG());
  } finally {
    view.finalize();
  }
}

/**
 * Vega numbers gradients and clip paths with process-wide counters
 * (`gradient_7`, `clip12`), so the second chart rendered in a process differs
 * from the same chart rendered first. Renumber them per document, in order of
 * first appearance, so the bytes depend on the chart alone.
 */
export function normalizeSvgIds(svg: string): string {
  const renamed = new Map<string, string>();
  const perPrefix = new Map<string, number>();
  // Only ids and references to them: text that happens to read "clip3" stays.
  return svg.replace(
    /(id="|url\(#|href="#)(gradient_|clip|pattern_)(\d+)(?=[")])/g,
    (_m, lead: string, prefix: string, num: string) => {
      const token = `${prefix}${num}`;
      let next = renamed.get(token);
      if (next === undefined) {
        const n = perPrefix.get(prefix) ?? 0;
        perPrefix.set(prefix, n + 1);
        next = `${prefix}${n}`;
        renamed.set(token, next);
      }
      return `${lead}${next}`;
    },
  );
}

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
