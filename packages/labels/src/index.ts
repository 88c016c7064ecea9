// @junobench/labels: annotations, inter-annotator agreement, final labels,
// benchmark statistics and charts. Report formats are schemas (and so types
// in @junobench/core): agreement-report, final-labels, stats, adjudication.

// Annotations and adjudication
export { DIMENSION_TITLES, checkLabelValue } from './check-label.js';
export {
  ADJUDICATION_FILE,
  parseAnnotations,
  parseAdjudications,
  readAnnotations,
  readAdjudications,
  readAnnotationSets,
  readAnnotationFolder,
  assertDistinctAnnotators,
} from './read-annotations.js';
export type { AnnotationSet, AdjudicationLine } from './read-annotations.js';

// Agreement statistics (pure)
export { computeCohenKappa, computeKappaFromTable, Z_975 } from './cohen-kappa.js';
export type { KappaResult } from './cohen-kappa.js';
export { computeKrippendorffAlpha } from './krippendorff-alpha.js';
export type { AlphaResult, AlphaUnit } from './krippendorff-alpha.js';
export { bootstrapKappa, quantileSorted, DEFAULT_BOOTSTRAP_RESAMPLES } from './bootstrap-kappa.js';
export type { BootstrapOptions } from './bootstrap-kappa.js';
export {
  computeAgreement,
  computeCategoryAgreement,
  findWeakDimensions,
  judgeAgreementGate,
  DEFAULT_AGREEMENT_SEED,
  DEFAULT_CONFIDENCE,
  DEFAULT_MIN_KAPPA,
} from './compute-agreement.js';
export type { AgreementOptions } from './compute-agreement.js';
export { formatAgreementReport, weakestCategories } from './format-agreement.js';
export type { FormatAgreementOptions } from './format-agreement.js';
export { writeAgreementReport, writeAgreementJson, LABELS_FILES } from './write-agreement-report.js';
export type { WriteAgreementOptions } from './write-agreement-report.js';

// Final labels
export { resolveFinalLabels } from './resolve-final-labels.js';
export type { ResolveOptions, UnresolvedLabel, LabelConflict } from './resolve-final-labels.js';
export {
  planAnnotationUpdate,
  readAnnotationFile,
  writeAnnotationFile,
  annotatorFileName,
} from './update-annotations.js';
export type { AnnotationUpdate, AnnotationFile, AnnotationChange } from './update-annotations.js';

// Statistics and charts
export { computeStats, DEFAULT_CROSS_TABLES } from './compute-stats.js';
export type { StatsRow } from './compute-stats.js';
export { statsRowsFromBenchmark, statsRowsFromRecords, readBenchmarkRows } from './stats-rows.js';
export type { LabelledRecord } from './stats-rows.js';
export { formatStatsMarkdown, formatShare, displayLabel } from './format-stats.js';
export { planCharts, chartStem } from './plan-charts.js';
export { CHART_FONT } from '@junobench/charts';
export type { ChartPlan } from './plan-charts.js';
export { renderChartSvg } from '@junobench/charts';
export { createSharpRasterizer, DEFAULT_PNG_DENSITY } from './render-chart.js';
export type { Rasterizer } from './render-chart.js';
export { writeStats, STATS_FILES } from './write-stats.js';
export type { WriteStatsOptions } from './write-stats.js';
