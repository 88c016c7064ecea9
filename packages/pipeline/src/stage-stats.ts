import path from 'node:path';
import { readJsonFile, type Benchmark } from '@junobench/core';
import { STATS_FILES, computeStats, statsRowsFromBenchmark, writeStats } from '@junobench/labels';
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
      const benchmark = await readJsonFile<Benchmark>(io.abs(o.benchmark), { schema: 'benchmark' });
      const stats = computeStats(statsRowsFromBenchmark(benchmark));
      const written = await writeStats(io.abs(o.outDir), stats);
      return { summary: `${benchmark.instances.length} instances; ${written.length} files → ${path.join(o.outDir, STATS_FILES.markdown ?? '')}` };
    },
  };
}
