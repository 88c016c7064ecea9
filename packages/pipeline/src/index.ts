export { runBuild, planStages, computeCodeFingerprint } from './build.js';
export type { BuildOptions } from './build.js';
export { runStages } from './run-build.js';
export type { Stage, StageIO, StageResult, StageEvent, BuildReport, RunStagesOptions } from './run-build.js';
export { planBuild, emptyLock } from './plan-build.js';
export type { BuildLock, StageLockEntry, StageState, StageDecision, PlanOptions } from './plan-build.js';
export { assembleBenchmark, formatBenchmarkCsv, BENCHMARK_CSV_COLUMNS } from './stage-benchmark.js';
export { subsampleInstance, withSubsampleSpec, describeVerificationChange } from './subsample-instance.js';
export type { SubsampleInstanceOptions, SubsampleInstanceResult, VerifyInstanceDir } from './subsample-instance.js';
