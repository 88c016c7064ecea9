// @junobench/suggest: named exports only (DESIGN.md §7).

// Library cause: the estimator shared by `pool libcause` and `labels suggest`.
export { predictLibrary } from './predict-library.js';
export type { LibraryPrediction, LibraryEvidence } from './predict-library.js';
export { evaluateLibcause, labelledLibrary, LibcauseEvaluator } from './evaluate-libcause.js';
export type { LibcauseEvaluation, LibraryScore } from './evaluate-libcause.js';

// Label suggestions in the four dimensions.
export { suggestLabels } from './suggest-labels.js';
export type { SuggestInput } from './suggest-labels.js';
export type { LabelSuggestions, LibrarySuggestion, CrashTypeSuggestion, RootCauseSuggestion, PipelineStageSuggestion } from '@junobench/core';
