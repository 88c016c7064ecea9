import type { LabelSuggestions } from '@junobench/core';
import { collectCrashFacts, type SuggestInput } from './crash-facts.js';
import { RULE_CONFIDENCE, type SuggestionRule } from './rule-confidence.js';
import { suggestCrashType } from './suggest-crash-type.js';
import { suggestPipelineStage } from './suggest-pipeline-stage.js';
import { suggestRootCause } from './suggest-root-cause.js';
import type { RuleDecision } from './suggestion-rule.js';

export type { SuggestInput } from './crash-facts.js';

/** The rule behind each dimension's suggestion, for calibration and reports. */
export type SuggestionRules = Record<keyof LabelSuggestions, SuggestionRule>;

/**
 * Suggested labels for a crash in the four dimensions, each with a confidence
 * (the measured hit rate of the rule that decided) and the evidence it rests
 * on. Reads only what it is given: the traceback alone is enough, the
 * crashing cell and the cells around it sharpen the notebook-state ones. Pure.
 */
export function suggestLabels(input: SuggestInput): LabelSuggestions {
  return suggestLabelsWithRules(input).suggestions;
}

export function suggestLabelsWithRules(input: SuggestInput): { suggestions: LabelSuggestions; rules: SuggestionRules } {
  const facts = collectCrashFacts(input);
  const lib = facts.library;
  const crashType = suggestCrashType(facts);
  const rootCause = suggestRootCause(facts);
  const stage = suggestPipelineStage(facts);
  return {
    suggestions: {
      library: { value: lib.library, confidence: lib.confidence, evidence: lib.evidence },
      crashType: withConfidence(crashType),
      rootCause: withConfidence(rootCause),
      pipelineStage: withConfidence(stage),
    },
    rules: {
      library: lib.rule,
      crashType: crashType.rule as SuggestionRule,
      rootCause: rootCause.rule as SuggestionRule,
      pipelineStage: stage.rule as SuggestionRule,
    },
  };
}

function withConfidence<V extends string>(d: RuleDecision<V>): { value: V; confidence: number; evidence: string[] } {
  return { value: d.value, confidence: RULE_CONFIDENCE[d.rule as SuggestionRule] ?? 0.3, evidence: d.evidence };
}
