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
