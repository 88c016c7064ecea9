// @junobench/publish: the release flows (prepare, verify, publish). Named exports only (docs/design.md, "Style").
export { prepareRelease, readToolchainIdentity } from './release-prepare.js';
export type { PrepareReleaseOptions, PreparedRelease } from './release-prepare.js';
export { verifyRelease } from './release-verify.js';
export type { VerifyReleaseOptions, ReleaseVerification, ReleaseRerun, RerunDifference } from './release-verify.js';
export { publishRelease, releaseNotes } from './release-publish.js';
export type { PublishReleaseOptions, PublishReport, PublishStep } from './release-publish.js';
export { chooseReleaseRuntime } from './choose-release-runtime.js';
export type { ChooseReleaseRuntimeOptions, ReleaseRuntimeChoice } from './choose-release-runtime.js';
export { generateReleaseReport } from './release-report.js';
export type { ReleaseReportOptions } from './release-report.js';
