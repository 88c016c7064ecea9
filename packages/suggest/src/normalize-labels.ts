import {
  CRASH_TYPES,
  PIPELINE_STAGES,
  ROOT_CAUSES,
  canonicalLibrary,
  type LabelDimension,
  type SourceLabels,
} from '@junobench/core';

/** A record's labels in JunoBench's vocabularies; a dimension is absent when unlabelled or outside them. */
export type NormalizedLabels = Partial<Record<LabelDimension, string>>;

/*
 * The prior empirical study labelled its 746 crashes in finer vocabularies and
 * published how they group into the categories JunoBench kept (its
 * configuration's summary tables). The groups outside JunoBench's vocabularies
 * (environment setting, insufficient resource, unknown; out-of-memory, request
 * and environment errors; the environment-setup stage) have no JunoBench
 * label: such crashes were filtered out of the benchmark.
 */
const STUDY_ROOT_CAUSES: Readonly<Record<string, string>> = {
  'misunderstanding of data structure': 'data confusion',
  'misunderstanding of ML model': 'ML model confusion',
  'misunderstanding of APIs': 'API misuse',
  'misunderstanding of libraries': 'API misuse',
  'invalid argument': 'API misuse',
  'nb specific - execution order': 'NB specific',
  'nb specific - previous cell error': 'NB specific',
  'nb specific - need execute future cells': 'NB specific',
  'did not import': 'implementation error',
  'undefined variable': 'implementation error',
  'undefined function': 'implementation error',
  typo: 'implementation error',
  'wrong implementation': 'implementation error',
  'API change': 'library cause',
  'error inside library': 'library cause',
};

const STUDY_PIPELINE_STAGES: Readonly<Record<string, string>> = {
  'data preparation/preprocessing': 'data preparation',
  'data visualization': 'data visualization',
  'model construction (include compilation and visualization/summary)': 'model construction',
  'training/validation (grid search)': 'training',
  'evaluation/inference (history plot, metric visualization)': 'evaluation/prediction',
};

const STUDY_CRASH_TYPES: Readonly<Record<string, string>> = {
  'variable not found': 'variable not found',
  // JunoBench has no separate name-error type: an undefined function or class is a name not found.
  'function not found': 'variable not found',
  'class not found': 'variable not found',
  nameerror: 'variable not found',
  'wrong arguments to API': 'invalid argument',
  'module not found': 'module not found',
  attributeerror: 'attribute error',
  keyerror: 'key error',
  notfounderror: 'key error',
  'tensor shape mismatch': 'tensor shape mismatch',
  'valueerror - data value violation': 'data value violation',
  'cast exception': 'value error',
  'valueerror - data range mismatch': 'value error',
  valueerror: 'value error',
  'indexerror-nd': 'index error',
  'indexerror-1d': 'index error',
  typeerror: 'type error',
  'typeerror-notcallable': 'type error',
  'typeerror-op': 'type error',
  'typeerror-notsubscriptable': 'type error',
  'typeerror-notiterable': 'type error',
  'typeerror-unhashable': 'type error',
  'unsupported broadcast': 'unsupported broadcast',
  runtimeerror: 'runtime error',
  'initialization error (call mul-times, wrong order)': 'model initialization error',
  'valueerror - feature name mismatch': 'feature name mismatch',
  filenotfounderror: 'io error',
  'unsupported file type (read file)': 'io error',
  'file permission': 'io error',
  fileexistserror: 'io error',
  jsondecodeerror: 'io error',
  incompleteparseerror: 'io error',
};

/**
 * A record's labels in JunoBench's vocabularies: JunoBench's own labels pass
 * through (case and spacing forgiven), the empirical study's finer labels are
 * grouped as the study grouped them, anything else is left out. Pure.
 */
export function normalizeLabels(labels: SourceLabels | undefined): NormalizedLabels {
  if (!labels) return {};
  const out: NormalizedLabels = {};
  if (labels.library !== undefined && labels.library.trim() !== '')
    out.library = canonicalLibrary(labels.library) ?? labels.library.trim();
  const crashType = inVocabulary(labels.crashType, CRASH_TYPES, STUDY_CRASH_TYPES);
  if (crashType) out.crashType = crashType;
  const rootCause = inVocabulary(labels.rootCause, ROOT_CAUSES, STUDY_ROOT_CAUSES);
  if (rootCause) out.rootCause = rootCause;
  const stage = inVocabulary(labels.pipelineStage, PIPELINE_STAGES, STUDY_PIPELINE_STAGES);
  if (stage) out.pipelineStage = stage;
  return out;
}

function inVocabulary(
  value: string | undefined,
  vocabulary: readonly string[],
  study: Readonly<Record<string, string>>,
): string | undefined {
  if (value === undefined) return undefined;
  const v = value.trim().replace(/\s+/g, ' ');
  const own = vocabulary.find((x) => x.toLowerCase() === v.toLowerCase());
  if (own) return own;
  const key = Object.keys(study).find((k) => k.toLowerCase() === v.toLowerCase());
  return key ? study[key] : undefined;
}
