// @junobench/reproduce: taking a real notebook's saved crash to a draft that
// reproduces it — static facts of its cells (Python's ast and pyflakes), the
// replay order checked by name analysis, the packages it needs, its inputs
// (present, downloaded, or derived from what the code does with them), and
// one named cause for a draft that still does not reproduce (README,
// "Reproducing real crashes").
export { analyzeCells, ANALYZER_PATH } from './analyze-cells.js';
export type {
  AnalyzeOptions,
  CellFacts,
  CellImport,
  CellRead,
  ColumnUsage,
  NotebookFacts,
  TableUsage,
} from './analyze-cells.js';
export { deriveTable, namesTheCrashLacks } from './derive-table.js';
export type { DerivedColumn, DerivedTable } from './derive-table.js';
export { parseHtmlFrame, parseInfo, parseIndexList, parseSeries, readSavedTable } from './saved-frames.js';
export type { SavedColumn, SavedDisplay, SavedTable } from './saved-frames.js';
export {
  generalizeSizeNumbers,
  matchNarrowerException,
  matchKernelArgument,
  matchQuotedDataValue,
  relaxMessageWording,
  relaxDroppedWord,
} from './generalize-crash.js';
export { matchRewording } from './library-rewordings.js';
export { matchSameFailureSite } from './match-failure-site.js';
export type { SameFailureSite, SiteObservation } from './match-failure-site.js';
export { shimForFailure, shimForNewerVersion, insertShim } from './api-shims.js';
export type { ApiShim } from './api-shims.js';
export { crashSlice, cellsOutsideSlice } from './plan-crash-slice.js';
export { recoverHiddenMessage } from './recover-hidden-message.js';
export { mapDataPath, isForeignPath, isUrl, planLiteralRewrites, applyLiteralRewrites } from './plan-data-paths.js';
export type { LiteralRewrite } from './plan-data-paths.js';
export { planDataNeeds, describeNeeds, pathsTheCrashLacks } from './plan-data-needs.js';
export { describeInputEdits } from './describe-input-edits.js';
export type { InputEditContext } from './describe-input-edits.js';
export type { DataNeed, DerivedFile } from './plan-data-needs.js';
export {
  planPackages,
  planShellLines,
  commentOutLines,
  baseName,
  moduleTheCrashLacks,
  PLATFORM_MODULES,
} from './plan-packages.js';
export type { ModuleProfile, MissingModule, LineEdit, PackagePlan, ShellPlan } from './plan-packages.js';
export { findUnboundUses, chooseReplayOrder, leaveOutIdleUses, leaveOutOrphanUses } from './plan-replay-order.js';
export type { UnboundUse, ReplayOrderChoice, LeftOutCell } from './plan-replay-order.js';
export { planDraftInputs, finishDraftInputs, editCells, withoutUrlRoots } from './plan-draft-inputs.js';
export type {
  DraftInputsPlan,
  PlanDraftInputsOptions,
  ResolvedNeed,
  NeedStatus,
  FinishedDraftInputs,
} from './plan-draft-inputs.js';
export { materializeInputs, encodePng } from './materialize-inputs.js';
export type { MaterializeOptions } from './materialize-inputs.js';
export {
  triageDraft,
  findingsOfInstance,
  findUnseenRuns,
  describeDerivationGap,
  isNetworkFailure,
  TRIAGE_CAUSES,
} from './triage-draft.js';
export type { ReproductionFindings, RunEvidence } from './triage-draft.js';
export { findEditedCrashLine } from './find-edited-crash-line.js';
export { findDefinedAfterCrash, findCellsThatRan } from './find-session-state.js';
export type { DefinedAfterCrash } from './find-session-state.js';
export { matchRecordedCrash, locateCrashCell } from './choose-recorded-crash.js';
export type { RecordedCrash } from './choose-recorded-crash.js';
export { nltkStandInFor, NLTK_DATA_DIR, NLTK_PATH_LINE, PUNKT_PICKLE_CODE } from './nltk-stand-ins.js';
export type { NltkStandIn, NltkStandInFile } from './nltk-stand-ins.js';
