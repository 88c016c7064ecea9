// @junobench/compare: tools compared on the same tasks (docs/scoring.md, "Comparing tools").

export {
  compareScorecards,
  COMPARED_METRICS,
  DEFAULT_COMPARE_RESAMPLES,
  DEFAULT_COMPARE_SEED,
  DEFAULT_COMPARE_CONFIDENCE,
} from './compare-scorecards.js';
export type { ComparedScorecard, CompareOptions } from './compare-scorecards.js';
export { mcnemarExact, bootstrapClusters, quantile } from './paired-statistics.js';
export type { Cluster, ClusterBootstrap } from './paired-statistics.js';
export {
  renderComparisonMarkdown,
  formatComparisonSummary,
  planComparisonChart,
  describeBenchmark,
  formatPValue,
} from './render-comparison.js';
export { writeComparison, listComparisonFiles } from './write-comparison.js';
