// @junobench/sources: collecting notebooks and datasets from Kaggle (the
// official kaggle CLI, run with execa) and GitHub (octokit), source records,
// and the sources lock. Named exports only (docs/design.md, "Style").
export {
  parseKaggleKernelRef,
  parseKaggleDatasetRef,
  parseKaggleCompetitionRef,
  parseGithubNotebookRef,
  formatGithubRef,
  slugifyPath,
} from './parse-source-ref.js';
export type { KaggleRef, GithubNotebookRef } from './parse-source-ref.js';
export { pseudonymizeAuthor, readAuthorSalt } from './author-id.js';
export {
  KaggleCli,
  findKaggleBinary,
  classifyKaggleFailure,
  lastOutputLine,
  failureLine,
  redactKnownSecrets,
  execaCommandRunner,
} from './kaggle-cli.js';
export type { CommandRunner, CommandResult, KaggleCliOptions, KaggleFailureKind } from './kaggle-cli.js';
export { createGithubClient, githubError, gitBlobSha, DEFAULT_GITHUB_API_URL } from './github-client.js';
export type { GithubClient, GithubClientOptions } from './github-client.js';
export {
  fetchGithubNotebook,
  planGithubSourceRecord,
  githubRecordDir,
  githubBlobUrl,
  collectGithubNotebooks,
} from './collect-github.js';
export type { FetchedGithubNotebook, CollectGithubOptions, CollectedSource } from './collect-github.js';
export {
  collectKaggleKernels,
  parseDatasetLicense,
  datasetRefOfMetadata,
  unwrapDatasetMetadata,
  isRecordDataCached,
  KERNEL_METADATA_FILE,
  DATASET_METADATA_FILE,
  NO_SAVED_OUTPUTS_WARNING,
} from './collect-kaggle.js';
export type { CollectKaggleOptions } from './collect-kaggle.js';
export { fetchKaggleData, sourcesCacheDir, datasetCacheDir, fullDataCacheDir } from './fetch-kaggle-data.js';
export type { FetchedData, FetchKaggleDataOptions } from './fetch-kaggle-data.js';
export { writeSourceRecord, readSourceRecord, SOURCE_RECORD_FILE } from './write-source-record.js';
export type { RecordFile } from './write-source-record.js';
export {
  readSourcesLock,
  writeSourcesLock,
  planLockEntry,
  withLockEntry,
  recordPathProblem,
  SOURCES_LOCK_FILE,
} from './sources-lock.js';
export { planSourcesFetch, fetchLockedSources, compareFileLists, assembleFullData } from './fetch-locked-sources.js';
export type {
  FetchTask,
  SourcesFetchPlan,
  FetchOutcome,
  FileChange,
  SourcesFetchReport,
  FetchLockedSourcesOptions,
} from './fetch-locked-sources.js';
