import path from 'node:path';
import { LABEL_DIMENSIONS, OutputSet, formatJson, validateOrThrow, type Scorecard } from '@junobench/core';
import { renderScorecardCharts, renderScorecardMarkdown } from './render-scorecard.js';

export interface WriteScorecardOptions {
  /** Folder for scorecard.md, scorecard.json and the charts. */
  out?: string;
  /** Also the JSON alone at this path. */
  json?: string;
}

/**
 * Every file `writeScorecard` may write into an `out` folder (the charts of the kinds scored are a subset), so that a
 * command can check them before any work, as it checks its other outputs.
 */
export function listScorecardFiles(out: string): string[] {
  const names = [
    'scorecard.md',
    'scorecard.json',
    'detect.svg',
    ...LABEL_DIMENSIONS.map((d) => `diagnose-${d}.svg`),
    'repair.svg',
  ];
  return names.map((n) => path.join(out, n));
}

/** Write the scorecard (validated against schemas/scorecard.schema.json); all files appear together or none. */
export async function writeScorecard(card: Scorecard, options: WriteScorecardOptions): Promise<string[]> {
  validateOrThrow<Scorecard>('scorecard', card, {}, 'E_INTERNAL');
  const written: string[] = [];
  await OutputSet.run(async (set) => {
    const put = async (file: string, text: string) => {
      const f = await set.open(file);
      await f.write(text);
      written.push(file);
    };
    if (options.out) {
      const charts = renderScorecardCharts(card);
      for (const [name, svg] of charts) await put(path.join(options.out, name), svg);
      await put(path.join(options.out, 'scorecard.md'), renderScorecardMarkdown(card, [...charts.keys()]));
      await put(path.join(options.out, 'scorecard.json'), formatJson(card));
    }
    if (options.json) await put(options.json, formatJson(card));
  });
  return written;
}
