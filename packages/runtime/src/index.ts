export type { NotebookRun, RunOptions, RunStream, Runtime, StreamOptions } from './runtime.js';
export { RUNNER_PATH, RUNNER_DIR, readRunnerFiles, hashRunnerFiles } from './runner-path.js';
export type { RunnerFile } from './runner-path.js';
export { createMessageKey, parseRunnerMessage } from './parse-runner-message.js';
export { RunnerTracker } from './runner-tracker.js';
export type { TrackedPlan, TrackerLimits, TrackerOutcome } from './runner-tracker.js';
export { createRunFolder, sweepStaleRunFolders, RUN_FOLDER_PREFIX } from './run-folder.js';
export type { RunFolder } from './run-folder.js';
export { findPython, execaRunner, PYTHON_CANDIDATES } from './find-python.js';
export type { CommandRunner } from './find-python.js';
export { createLocalRuntime } from './local-runtime.js';
export type { LocalRuntimeOptions } from './local-runtime.js';
export { createContainerRuntime } from './container-runtime.js';
export type { ContainerRuntimeOptions } from './container-runtime.js';
export { connectDockerEngine, parseDockerHost, DEFAULT_ENGINE_SOCKETS } from './container-engine.js';
export type { EngineAddress } from './container-engine.js';
export { runContainer, ensureRemoved, engineMessage, CONTAINER_LABEL } from './container-exec.js';
export type { ContainerSpec, ContainerOutcome } from './container-exec.js';
export {
  CONTAINER_LAYOUT,
  SANDBOX_SCRIPT,
  planContainerRun,
  interpretContainerRun,
  findResultLine,
  parseMemorySize,
  formatMemorySize,
} from './container-sandbox.js';
export type { ContainerRunSettings } from './container-sandbox.js';
