import path from 'node:path';
import { readJsonFile, type Benchmark } from '@junobench/core';
import type { Stage } from './run-build.js';

export interface StatsStageOptions {
  benchmark: string;
  outDir: string;
}

/** Counts, shares and cross-tables of the curated benchmark, as Markdown, JSON and charts. */
export function createStatsStage(o: StatsStageOptions): Stage {
  return {
    name: 'stats',
    description: 'statistics by library, crash type, root cause and pipeline stage, with charts',
    inputs: [o.benchmark],
    outputs: [o.outDir],
    async run(io) {
      // Loaded when the stage runs (the charts' vega and sharp are heavy): a build with nothing to do never pays for
      // it.
      const { STATS_FILES, computeStats, statsRowsFromBenchmark, writeStats } = await import('@junobench/labels');
      const benchmark = await readJsonFile<Benchmark>(io.abs(o.benchmark), { schema: 'benchmark' });
      const stats = computeStats(statsRowsFromBenchmark(benchmark));
      const written = await writeStats(io.abs(o.outDir), stats);
      return {
        summary: `${benchmark.instances.length} instances; ${written.length} files → ${path.join(o.outDir, STATS_FILES.markdown ?? '')}`,
      };
    },
  };
}
