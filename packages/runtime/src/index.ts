export type { NotebookRun, RunOptions, Runtime } from './runtime.js';
