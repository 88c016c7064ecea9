export { JunoError, isJunoError, formatLocation, redactSecrets } from './errors.js';
export type { ErrorCode, ErrorLocation, ExitCode, JunoErrorOptions } from './errors.js';
export {
  LIBRARY_NAMES,
  ROOT_CAUSES,
  CRASH_TYPES,
  PIPELINE_STAGES,
  LABEL_DIMENSIONS,
  VOCABULARIES,
  libraryOfModule,
  canonicalLibrary,
  isLibraryName,
} from './taxonomy.js';
export type { LabelDimension } from './taxonomy.js';
export {
  SCHEMAS_DIR,
  checkSchema,
  validateOrThrow,
  formatIssue,
  pointerToField,
  validatorsKey,
  compiledValidatorsDir,
} from './validate.js';
export { compileValidatorSources, writeCompiledValidators } from './compiled-validators.js';
export { compiledCodeDir, compiledCodeLoader, writeCompiledCode } from './compiled-code.js';
export type { SchemaName, SchemaIssue } from './validate.js';
export { stripAnsi, editDistance, suggestClosest } from './text.js';
export { formatBytes } from './format-bytes.js';
export type { FormatBytesOptions } from './format-bytes.js';
export { locateInvalidUtf8, Utf8Tracker } from './utf8.js';
export { neutralizeCsvFormula } from './csv-cell.js';
export { stripUrlCredentials } from './url-credentials.js';
export type { StrippedUrl } from './url-credentials.js';
export type { InvalidUtf8 } from './utf8.js';
export { sha256, stableStringify, hashValue, hashFile, listTree, compareCodePoints } from './hash.js';
export {
  readInstanceTree,
  copyInstanceTree,
  folderMaker,
  hashInstanceTree,
  hashInstanceTree as hashTree,
  validateInstanceId,
  INSTANCE_ID_PATTERN,
} from './instance-tree.js';
export type { TreeFile, ReadTreeOptions } from './instance-tree.js';
export { createRng } from './rng.js';
export type { Rng } from './rng.js';
export { writeFileAtomic, writeJsonAtomic, formatJson, openAtomic, OutputSet } from './atomic.js';
export type { AtomicFile, WriteJsonOptions } from './atomic.js';
export { readJsonl, readJsonlAll, writeJsonl, JsonlWriter, readJsonFile, assertReadableFile } from './jsonl.js';
export { MAX_LINE_CHARS, readLinesCapped, quoteShort } from './lines.js';
export { compileLinearRegExp, linearRegExpProblem } from './linear-regexp.js';
export { MAX_JSON_DEPTH, findTooDeep } from './json-depth.js';
export { readTrajectories, TRAJECTORY_SERVER_LOG, MAX_TRAJECTORY_LINE_CHARS } from './read-trajectories.js';
export type { TrajectorySession } from './read-trajectories.js';
export { checkOutputPaths } from './output-paths.js';
export type { OutputPath, InputTree } from './output-paths.js';
export type { LinearRegExp } from './linear-regexp.js';
export type { CappedLine } from './lines.js';
export type { JsonlLine } from './jsonl.js';
export { noProgress } from './progress.js';
export type { ProgressEvent, ProgressListener } from './progress.js';
export type * from './generated/schema-types.js';
export { readInstance, listInstanceIds, INSTANCE_FILE, NOTEBOOK_VERSIONS } from './instance.js';
export { isSyntheticData, describeSyntheticData } from './synthetic-data.js';
export {
  DEFAULT_MIN_KAPPA,
  RAISE_KAPPA_HINT,
  readAgreementGate,
  describeAgreementGate,
  formatGateOverride,
} from './agreement-gate.js';
export type { AgreementGate } from './agreement-gate.js';
export type { NotebookVersion } from './instance.js';
