// pool import
export { importPool, readPoolRecords, defaultRejectsPath, IMPORT_FORMATS } from './import-pool.js';
export type {
  ImportFormat,
  ImportOptions,
  ImportReport,
  ImportInputReport,
  ImportCounts,
  ImportWarning,
  RejectedRow,
} from './import-pool.js';
export { parsePythonStringList, PythonLiteralError } from './parse-python-string-list.js';
export type { ParsedStringList } from './parse-python-string-list.js';
export { parseTracebackCell } from './parse-traceback-cell.js';
export type { TracebackCell } from './parse-traceback-cell.js';
export {
  EMPIRICAL_COLUMNS,
  BENCHMARK_COLUMNS,
  REQUIRED_COLUMNS,
  parseSheetHeader,
  detectSheetKind,
  missingColumns,
  sheetRowToRecord,
  hashCrashId,
  parseIsMlBug,
  parseLibraryLabel,
  libraryFromNotebookName,
} from './sheet-formats.js';
export type { SheetKind, SheetHeader, RowResult, RowProblem } from './sheet-formats.js';
export { readSheetRows, normalizeXlsxCell } from './read-sheet-rows.js';
export type { CellValue, SheetRow, SheetContainer } from './read-sheet-rows.js';
export { notebookCrashRecords, listNotebookFiles, readListedNotebook } from './notebook-records.js';
export type { NotebookFile } from './notebook-records.js';

// pool filter
export { filterRecords, Funnel } from './filter-records.js';
export type { FunnelReport, FunnelStep } from './filter-records.js';
export { filterPool } from './filter-pool.js';
export type { FilterPoolOptions } from './filter-pool.js';
export {
  validateCriteria,
  readCriteria,
  compileCriteria,
  compilePredicate,
  readField,
  FIELD_TESTS,
  RECORD_FIELDS,
} from './filter-criteria.js';
export type { FieldTest, RecordTest, CompiledStep } from './filter-criteria.js';

// pool libcause (the estimator itself lives in @junobench/suggest, shared with `labels suggest`)
export { predictLibraryBaseline } from './predict-library-baseline.js';
export type { LibcauseEvaluation } from '@junobench/suggest';
export { libcausePool } from './libcause-pool.js';
export type { LibcausePoolOptions, LibcauseReport } from './libcause-pool.js';

// pool resample
export { resampleRecords, ResampleAccumulator, resampleLibrary, parseLibraryList } from './resample-records.js';
export type { ResampleOptions, ResampleReport, LibraryDraw, Shortfall } from './resample-records.js';
export { resamplePool } from './resample-pool.js';
export type { ResamplePoolOptions } from './resample-pool.js';
