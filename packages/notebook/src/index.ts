export type {
  Notebook,
  NotebookCell,
  CodeCell,
  MarkdownCell,
  RawCell,
  CellOutput,
  IndexedCodeCell,
} from './notebook-types.js';
export { readNotebook, parseNotebook, validateNotebook } from './read-notebook.js';
export { readNotebookLean, LeanNotebookScanner } from './read-notebook-lean.js';
export { listCodeCells, planExecution, cellSource } from './code-cells.js';
export { findNulCells, assertNoNulCells } from './find-nul-cells.js';
export type { ExecutionOrder } from './code-cells.js';
export { parseTraceback, classifyFile } from './parse-traceback.js';
export type { ParsedTraceback, TracebackFrame } from './parse-traceback.js';
export { mineNotebookCrashes, mineImports, mineImportAliases, parseImports } from './mine-crashes.js';
export type { MinedCrash, ParsedImport } from './mine-crashes.js';
