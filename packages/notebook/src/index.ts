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
export { compileNbformatSources, writeCompiledNbformat } from './compiled-nbformat.js';
export type { ParseNotebookOptions } from './read-notebook.js';
export { readNotebookLean, LeanNotebookScanner } from './read-notebook-lean.js';
export { listCodeCells, planExecution, cellSource } from './code-cells.js';
export { findNulCells, assertNoNulCells } from './find-nul-cells.js';
export type { ExecutionOrder } from './code-cells.js';
export { DEFAULT_CELL_TIMEOUT_SECONDS, DEFAULT_TIMEOUT_SECONDS } from './execution-limits.js';
export { parseTraceback, classifyFile } from './parse-traceback.js';
export type { ParsedTraceback, TracebackFrame } from './parse-traceback.js';
export {
  mineNotebookCrashes,
  mineNamelessErrors,
  mineImports,
  mineImportAliases,
  parseImports,
} from './mine-crashes.js';
export type { MinedCrash, NamelessError, ParsedImport } from './mine-crashes.js';
// Python source: tokens, comments, cells matched across versions
export { tokenizePython, stripComments, significantTokens, PYTHON_BODY_CELL_MAGICS } from './python-tokens.js';
export type { PyToken, PyTokenKind } from './python-tokens.js';
export {
  matchCells,
  cellSimilarity,
  cellContainment,
  longestCommonSubsequence,
  normalizeCell,
  isEmptyCell,
  hasComments,
  CELL_MATCH_THRESHOLD,
} from './match-cells.js';
export type { CellMatching } from './match-cells.js';
export { normalizeEname } from './normalize-ename.js';
export { planDraftFix, isDraftFix, DRAFT_FIX_TAG } from './draft-fix.js';
