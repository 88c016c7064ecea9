// @junobench/runtime-context: the kernel state just before a target cell, for task prompts (docs/scoring.md,
// "Runtime context").

export {
  planStateProbe,
  parseStateProbe,
  uncapturedState,
  STATE_MARKER,
  STATE_REPR_CHARS,
  STATE_MAX_COLUMNS,
  STATE_MAX_NAMES,
} from './plan-state-probe.js';
export { captureRuntimeStates, planStateRun, readStateResult } from './capture-runtime-states.js';
export type { StateTarget, CaptureOptions } from './capture-runtime-states.js';
