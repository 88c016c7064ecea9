export { runBuild, planStages, computeCodeFingerprint } from './build.js';
export type { BuildOptions } from './build.js';
export { runStages } from './run-build.js';
export type { Stage, StageIO, StageResult, StageEvent, BuildReport, RunStagesOptions } from './run-build.js';
export { planBuild, emptyLock } from './plan-build.js';
export type { BuildLock, StageLockEntry, StageState, StageDecision, PlanOptions } from './plan-build.js';
export { assembleBenchmark, formatBenchmarkCsv, BENCHMARK_CSV_COLUMNS } from './stage-benchmark.js';
export { subsampleInstance, withSubsampleSpec, describeVerificationChange } from './subsample-instance.js';
export type { SubsampleInstanceOptions, SubsampleInstanceResult, VerifyInstanceDir } from './subsample-instance.js';
export { createPoolStage, POOL_FILES } from './stage-pool.js';
export { createImageStage } from './stage-image.js';
export type { ImageStageOptions } from './stage-image.js';
export { prepareRelease, readToolchainIdentity } from './release-prepare.js';
export type { PrepareReleaseOptions, PreparedRelease } from './release-prepare.js';
export { verifyRelease } from './release-verify.js';
export type { VerifyReleaseOptions, ReleaseVerification, ReleaseRerun, RerunDifference } from './release-verify.js';
export { publishRelease, releaseNotes } from './release-publish.js';
export type { PublishReleaseOptions, PublishReport, PublishStep } from './release-publish.js';
export { addInstance, planAddInstance, readDeprecatedIds } from './add-instance.js';
export type { AddInstanceOptions, AddInstancePlan, AddInstanceResult } from './add-instance.js';
export {
  planReproducedNotebook,
  rewriteDataPaths,
  planExpectedCrash,
  chooseCrash,
  describeMinedCrashes,
  idPrefixOfLibrary,
  nextInstanceId,
  instanceSourceOf,
} from './add-instance-plan.js';
export type { DataInputs, ReproducedPlan } from './add-instance-plan.js';
export { readModuleProfiles, writeDerivedTable } from './add-reproduction.js';
export type { ReproduceOptions, DraftReproduction, MaterializedDraft } from './add-reproduction.js';
export {
  runAddBatch,
  planBatchItems,
  planPoolItems,
  planFunnel,
  planRecordSource,
  addPoolRecord,
  entryOfResult,
  listNotebookFiles,
  isUnavailable,
} from './add-batch.js';
export type { BatchItem, RunAddBatchOptions, PoolRecordOptions } from './add-batch.js';
