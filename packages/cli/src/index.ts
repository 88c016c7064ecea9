export { main, createProgram } from './main.js';
export { createProcessContext } from './context.js';
export type { CliContext } from './context.js';
