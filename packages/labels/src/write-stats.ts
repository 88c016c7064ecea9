import path from 'node:path';
import { formatJson, OutputSet, validateOrThrow } from '@junobench/core';
import type { BenchmarkStats } from '@junobench/core';
import { formatStatsMarkdown } from './format-stats.js';
import { planCharts } from './plan-charts.js';
import { renderChartSvg } from '@junobench/charts';
import { createSharpRasterizer, type Rasterizer } from './render-chart.js';

export interface WriteStatsOptions {
  /** Title of the Markdown page (default "Benchmark statistics"). */
  title?: string;
  /** Render charts (default true). */
  charts?: boolean;
  /** SVG → PNG; default: sharp at 144 dpi. */
  rasterize?: Rasterizer;
}

/** The files written by writeStats, relative to its folder, in writing order. */
export const STATS_FILES = { json: 'stats.json', markdown: 'stats.md', chartsDir: 'charts' } as const;

/**
 * Write the statistics into `dir`: `stats.json` (schemas/stats.schema.json),
 * `stats.md`, and per chart `charts/<name>.svg`, `.png` and `.vl.json` (the
 * Vega-Lite specification, to restyle a chart). All files appear together or
 * not at all. Returns the written paths, relative to `dir`.
 */
export async function writeStats(
  dir: string,
  stats: BenchmarkStats,
  options: WriteStatsOptions = {},
): Promise<string[]> {
  validateOrThrow('stats', stats, { file: path.join(dir, STATS_FILES.json) }, 'E_INTERNAL');
  const rasterize = options.rasterize ?? createSharpRasterizer();
  const rendered: { rel: string; data: string | Uint8Array }[] = [
    { rel: STATS_FILES.json, data: formatJson(stats) },
    { rel: STATS_FILES.markdown, data: formatStatsMarkdown(stats, options.title) },
  ];
  if (options.charts !== false) {
    for (const chart of planCharts(stats)) {
      const svg = await renderChartSvg(chart.spec);
      const base = `${STATS_FILES.chartsDir}/${chart.name}`;
      rendered.push(
        { rel: `${base}.svg`, data: svg },
        { rel: `${base}.png`, data: await rasterize(svg) },
        { rel: `${base}.vl.json`, data: formatJson(chart.spec) },
      );
    }
  }
  await OutputSet.run(async (outputs) => {
    for (const r of rendered) {
      const f = await outputs.open(path.join(dir, r.rel));
      await f.write(r.data);
    }
  });
  return rendered.map((r) => r.rel);
}
