import path from 'node:path';
import { renderChartSvg } from '@junobench/charts';
import { OutputSet, formatJson, validateOrThrow, type Comparison } from '@junobench/core';
import { planComparisonChart, renderComparisonMarkdown } from './render-comparison.js';

/** The files of a comparison folder: checked by a command before any work, as its other outputs. */
export function listComparisonFiles(out: string): string[] {
  return ['comparison.md', 'comparison.json', 'comparison.svg'].map((n) => path.join(out, n));
}

/** comparison.md, comparison.json (schemas/comparison.schema.json) and comparison.svg, all together or none. */
export async function writeComparison(c: Comparison, out: string): Promise<string[]> {
  validateOrThrow<Comparison>('comparison', c, {}, 'E_INTERNAL');
  const svg = await renderChartSvg(planComparisonChart(c));
  const [md, json, chart] = listComparisonFiles(out) as [string, string, string];
  await OutputSet.run(async (set) => {
    for (const [file, text] of [
      [md, renderComparisonMarkdown(c)],
      [json, formatJson(c)],
      [chart, svg],
    ] as const) {
      const f = await set.open(file);
      await f.write(text);
    }
  });
  return [md, json, chart];
}
