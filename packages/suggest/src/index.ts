// @junobench/suggest: named exports only (docs/design.md, "Style").

// Library cause: the estimator shared by `pool libcause` and `labels suggest`.
export { predictLibrary } from './predict-library.js';
export { refineWithReplay, libraryOfType } from './replay-evidence.js';
export type { ReplayEvidence } from './replay-evidence.js';
export type { LibraryPrediction, LibraryEvidence } from './predict-library.js';
export { evaluateLibcause, labelledLibrary, LibcauseEvaluator } from './evaluate-libcause.js';
export type { LibcauseEvaluation, LibraryScore } from './evaluate-libcause.js';

// Label suggestions in the four dimensions.
export { suggestLabels, suggestLabelsWithRules } from './suggest-labels.js';
export type { SuggestInput, SuggestionRules } from './suggest-labels.js';
export type {
  LabelSuggestions,
  LibrarySuggestion,
  CrashTypeSuggestion,
  RootCauseSuggestion,
  PipelineStageSuggestion,
} from '@junobench/core';
export { RULE_CONFIDENCE } from './rule-confidence.js';
export type { SuggestionRule, LibraryRule } from './rule-confidence.js';

// Measuring them.
export { normalizeLabels } from './normalize-labels.js';
export type { NormalizedLabels } from './normalize-labels.js';
export { SuggestionEvaluator } from './evaluate-suggestions.js';
export type { SuggestionEvaluation, DimensionEvaluation, RuleScore } from './evaluate-suggestions.js';
export { assignSplit, DEFAULT_SPLIT } from './assign-split.js';
export type { EvalSplit, SplitOptions } from './assign-split.js';

// `labels suggest`: reading notebooks, instances and pools.
export { readSuggestCases, notebookCrashInput } from './read-suggest-cases.js';
export type { SuggestCase, ReadSuggestOptions } from './read-suggest-cases.js';
export { suggestForTargets } from './suggest-for-targets.js';
export type { SuggestForTargetsOptions } from './suggest-for-targets.js';
