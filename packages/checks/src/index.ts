// @junobench/checks: what a fix must achieve (checks.py), run in the kernel after the last cell with runtime evidence of
// hiding; suggested from the fixed notebook and mutation-tested against generated non-fixes (docs/checks.md).

// checks.py
export { parseChecks, readInstanceChecks, firstDocLine, CHECKS_FILE } from './read-checks.js';
export type { InstanceChecks } from './read-checks.js';

// The harness in the kernel
export {
  planChecksProbe,
  readHarnessSource,
  hashHarness,
  HARNESS_FILE,
  CHECKS_FINISH_SECONDS,
  WATCHED_LIBRARIES,
} from './plan-checks-probe.js';
export type { ChecksProbe, ChecksProbeOptions } from './plan-checks-probe.js';
export { readChecksProbe, RESULT_MARK } from './read-checks-probe.js';
export type {
  ChecksVerdict,
  RunSnapshot,
  NameSummary,
  ValueStats,
  FigureSummary,
  AxesSummary,
} from './read-checks-probe.js';
export { judgeChecks, describeFailedCheck } from './judge-checks.js';
export type { ChecksFailure } from './judge-checks.js';

// Mutation testing
export { planMutants, MUTANT_FAMILIES } from './plan-mutants.js';
export type { Mutant, MutantFamily, MutantSource } from './plan-mutants.js';
export { readCrashSite } from './read-crash-site.js';
export type { CrashSite } from './read-crash-site.js';
export {
  testChecks,
  planChecksReport,
  assembleResult,
  fakeOutputOf,
  planMutantsOf,
  runFirst,
} from './mutation-runs.js';
export type { TestChecksOptions, FirstRuns } from './mutation-runs.js';
export {
  prepareChecksInstances,
  judgeMutantRun,
  hashChecksContent,
  CHECKS_TEST_VERSION,
} from './prepare-checks-instance.js';
export type { ChecksInstance } from './prepare-checks-instance.js';
export { runNotebookJobs } from './run-notebook-jobs.js';
export type { NotebookJob, RunJobsOptions } from './run-notebook-jobs.js';

// Suggesting checks
export { suggestChecks } from './suggest-checks.js';
export type { SuggestChecksOptions } from './suggest-checks.js';
export { planCandidateChecks, renderChecksFile, VALUE_TOLERANCE } from './plan-candidate-checks.js';
export type { CandidateCheck } from './plan-candidate-checks.js';
export { selectChecks } from './select-checks.js';
export type { CheckSelection, MutantRunWithCandidates } from './select-checks.js';

// The recorded results (raw/checks-report.json) and what the build records of them
export {
  defaultChecksRecord,
  readChecksRecord,
  mergeChecksRecord,
  writeChecksRecord,
  readCurrentInstances,
  planRecordedChecks,
} from './checks-record.js';
export type { CurrentInstance } from './checks-record.js';
export { planDraftChecks } from './plan-draft-checks.js';
