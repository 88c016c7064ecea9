// @junobench/annotate: the annotation round trip — a label sheet per annotator, its import into
// raw/annotations, one label recorded from the command line. Named exports only (docs/design.md, "Style").
export {
  planLabelSheet,
  readInstances,
  readDeprecatedIds,
  findReportPages,
  SHEET_COLUMNS,
  SHEET_NAMES,
  REVIEWED,
} from './plan-label-sheet.js';
export type { LabelSheetPlan, LabelSheetRow, PlanLabelSheetInput, SheetColumnKey } from './plan-label-sheet.js';
export { renderLabelSheet, writeLabelSheet } from './write-label-sheet.js';
export { readLabelSheet } from './read-label-sheet.js';
export type { LabelSheetContent } from './read-label-sheet.js';
export { makeLabelSheet } from './make-label-sheet.js';
export type { MakeLabelSheetOptions } from './make-label-sheet.js';
export { importLabelSheet } from './import-label-sheet.js';
export type { ImportLabelSheetOptions, ImportLabelSheetResult } from './import-label-sheet.js';
export { recordLabel } from './record-label.js';
export type { RecordLabelOptions } from './record-label.js';
