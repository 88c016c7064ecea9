// @junobench/report: named exports only (docs/design.md, "Style").
export { convertAnsiToHtml } from './ansi-to-html.js';
export { escapeHtml, parseExternalUrl, formatRelativeHref } from './escape-html.js';
export { planCellDiff, diffLines } from './diff-cells.js';
export type { CellPair, CellPairStatus, DiffCell, LineOp } from './diff-cells.js';
export { summariseInstance, FLAG_LABELS, FLAG_DESCRIPTIONS } from './report-data.js';
export type {
  Deprecation,
  Leaderboard,
  ReportProvenance,
  ReportRelease,
  ReportData,
  ReportInstance,
  ReportInstanceRecord,
  ReportChart,
  IndexRow,
  IndexFlag,
  InstanceDisagreement,
  NotebookSlot,
} from './report-data.js';
export { readReportData, MAX_LISTED_FILES } from './read-report-data.js';
export type { ReadReportOptions } from './read-report-data.js';
export { renderIndexPage } from './render-index.js';
export { renderInstancePage } from './render-instance.js';
export { renderStatsPage } from './render-stats.js';
export { renderTriagePage } from './render-triage.js';
export { renderLeaderboardPage } from './render-leaderboard.js';
export { renderProvenance, renderGateLine } from './render-provenance.js';
export { planReport } from './plan-report.js';
export type { ReportPlan, ReportFile } from './plan-report.js';
export {
  writeReport,
  generateReport,
  formatReportManifest,
  findForeignEntries,
  REPORT_MANIFEST_FILE,
} from './write-report.js';
export { readBuildTime } from './read-build-time.js';
export type { GenerateReportOptions, GenerateReportResult } from './write-report.js';
export { REPORT_CSS } from './report-style.js';
export { INDEX_SCRIPT } from './index-script.js';
