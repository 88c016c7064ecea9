// @junobench/build-lock: the build lock, read and planned. Named exports only (docs/design.md, "Style").
export { planBuild, emptyLock } from './plan-build.js';
export type { BuildLock, StageLockEntry, StageState, StageDecision, PlanOptions } from './plan-build.js';
export { readBuildLock, hashBuildPath } from './read-build-lock.js';
export { checkBuildSources } from './check-build-sources.js';
export type { BuildSourcesCheck } from './check-build-sources.js';
export { readToolchainIdentity } from './read-toolchain-identity.js';
export type { ToolchainIdentity } from './read-toolchain-identity.js';
