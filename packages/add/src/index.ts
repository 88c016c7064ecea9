// @junobench/add: `junobench add`, a draft instance from a collected notebook. Named exports only
// (docs/design.md, "Style").
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
