import type { CrashType, LabelSuggestions, PipelineStage, RootCause } from '@junobench/core';
import { predictLibrary } from './predict-library.js';

/** What a new crash has, as far as it is known; only the exception is required. */
export interface SuggestInput {
  ename: string;
  evalue: string;
  /** Traceback lines as Jupyter stores them (ANSI escapes allowed). */
  traceback: readonly string[];
  /** Top-level modules the notebook imports. */
  imports?: readonly string[];
  /** Source of the crashing code cell. */
  cell?: string;
  /** Sources of the code cells before the crashing one, in notebook order. */
  cellsBefore?: readonly string[];
  /** Sources of the code cells after the crashing one. */
  cellsAfter?: readonly string[];
}

/**
 * Suggested labels for a crash in the four dimensions, each with a confidence
 * and the evidence it rests on. Pure.
 */
export function suggestLabels(input: SuggestInput): LabelSuggestions {
  const lib = predictLibrary({ ename: input.ename, evalue: input.evalue, traceback: [...input.traceback], ...(input.imports ? { imports: [...input.imports] } : {}) });
  const e = input.ename.split('.').pop()!.toLowerCase();
  const crashType: CrashType = e === 'nameerror' ? 'variable not found' : e === 'keyerror' ? 'key error' : e === 'indexerror' ? 'index error' : e === 'attributeerror' ? 'attribute error' : e === 'typeerror' ? 'type error' : 'value error';
  const rootCause: RootCause = lib.library === 'None' ? 'NB specific' : 'API misuse';
  const pipelineStage: PipelineStage = 'data preparation';
  return {
    library: { value: lib.library, confidence: lib.confidence, evidence: lib.evidence },
    crashType: { value: crashType, confidence: 0.3, evidence: [`the exception is ${input.ename}`] },
    rootCause: { value: rootCause, confidence: 0.3, evidence: ['the most common root cause'] },
    pipelineStage: { value: pipelineStage, confidence: 0.3, evidence: ['the most common pipeline stage'] },
  };
}
