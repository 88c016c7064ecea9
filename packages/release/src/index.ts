// @junobench/release: named exports only (docs/design.md, "Style").
export type {
  SourceFile,
  InstanceInput,
  ReleaseInputs,
  ResolvedMetadata,
  Refusal,
  PlannedFile,
  ChangedInstance,
  Changelog,
  ReleasePlan,
  SealedRelease,
} from './release-types.js';
export { planRelease, planRefusals, releaseName, validateReleaseVersion, RELEASE_FILES } from './plan-release.js';
export { planChangelog, formatChangelog } from './plan-changelog.js';
export { planCroissant, sealCroissant, spdxUrl, CROISSANT_CONTEXT, CROISSANT_CONFORMS_TO } from './plan-croissant.js';
export type { PlanCroissantInput, CroissantFileFacts } from './plan-croissant.js';
export { checkCroissant, readCsvHeader, globToRegExp } from './check-croissant.js';
export type { CroissantIssue, CroissantContext } from './check-croissant.js';
export {
  renderDatasetCard,
  planToolchainClone,
  describeNotebookSources,
  TOOLCHAIN_FOLDER,
} from './render-dataset-card.js';
export type { DatasetCardInput } from './render-dataset-card.js';
export { formatSha256Sums, parseSha256Sums } from './sha256sums.js';
export type { ChecksumLine } from './sha256sums.js';
export { writeReleaseArchive, ARCHIVE_GZIP_LEVEL } from './write-release-archive.js';
export type { ArchiveDigest } from './write-release-archive.js';
export {
  writeRelease,
  sealRelease,
  assertReleasable,
  planRefusalHint,
  archiveDownloadUrl,
  planStaleReleaseFolders,
} from './write-release.js';
export type { WrittenRelease } from './write-release.js';
export { readReleaseInputs } from './read-release-inputs.js';
export { listReleaseFolders } from './list-release-folders.js';
export type { ReadReleaseInputsOptions } from './read-release-inputs.js';
export { readReleaseManifest, findPreviousRelease } from './read-release-manifest.js';
export { readReleaseMetadata, resolveReleaseMetadata, DEFAULT_RELEASE_METADATA } from './read-release-metadata.js';
export { readDeprecated, planDeprecation, writeDeprecated, nextDeprecationVersion } from './deprecate-instance.js';
export type { DeprecationRequest } from './deprecate-instance.js';
export { checkReleaseTree } from './check-release-tree.js';
export {
  planReleasePrepareReport,
  planReleaseVerifyReport,
  writeReleasePrepareReport,
  writeReleaseVerifyReport,
} from './write-release-report.js';
export type { ReleaseVerifyOutcome } from './write-release-report.js';
export type { ReleaseProblem, ReleaseProblemCode, ReleaseTreeCheck } from './check-release-tree.js';
export { openRelease, checkRelease } from './open-release.js';
export type { OpenedRelease } from './open-release.js';
export {
  openGitRepository,
  readGitIdentity,
  readTag,
  formatTagMessage,
  assertCleanTree,
  createReleaseTag,
  pushReleaseTag,
  readRemoteUrl,
  isLocalRemote,
  toPublicCloneUrl,
  resolveToolchainRepository,
} from './git-release.js';
export type { SimpleGit, GitIdentity, TagState, TagRequest, ToolchainRepository } from './git-release.js';
export { createGitHubClient, publishGitHubRelease } from './github-release.js';
export type {
  GitHubClient,
  GitHubClientOptions,
  GitHubReleaseRequest,
  GitHubReleaseResult,
  ReleaseAsset,
} from './github-release.js';
export {
  pushReleaseImage,
  pullReleaseImage,
  readRegistryDigest,
  digestFromEvents,
  isLoopbackRegistry,
  parseRegistry,
  RELEASE_IMAGE_REPOSITORY,
} from './push-release-image.js';
export type { PushImageRequest } from './push-release-image.js';
