export type { NotebookRun, RunOptions, Runtime } from './runtime.js';
export { RUNNER_PATH } from './runner-path.js';
export { findPython, execaRunner, PYTHON_CANDIDATES } from './find-python.js';
export type { CommandRunner } from './find-python.js';
export { createLocalRuntime } from './local-runtime.js';
export type { LocalRuntimeOptions } from './local-runtime.js';
