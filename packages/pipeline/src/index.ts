export { runBuild, planStages, computeCodeFingerprint } from './build.js';
export type { BuildOptions } from './build.js';
export { runStages } from './run-build.js';
export type { Stage, StageIO, StageResult, StageEvent, BuildReport, RunStagesOptions } from './run-build.js';
export { createPoolStage, POOL_FILES } from './stage-pool.js';
export { createImageStage } from './stage-image.js';
export type { ImageStageOptions } from './stage-image.js';
