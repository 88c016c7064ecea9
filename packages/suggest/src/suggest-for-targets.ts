import {
  LABEL_DIMENSIONS,
  noProgress,
  validateOrThrow,
  type LabelSuggestionReport,
  type ProgressListener,
  type SuggestedCrash,
} from '@junobench/core';
import { DEFAULT_SPLIT, assignSplit, type EvalSplit, type SplitOptions } from './assign-split.js';
import { SuggestionEvaluator } from './evaluate-suggestions.js';
import { readSuggestCases, type SuggestCase } from './read-suggest-cases.js';
import { suggestLabelsWithRules } from './suggest-labels.js';

export interface SuggestForTargetsOptions {
  /** Notebooks (.ipynb), pools (.jsonl) or instance ids. */
  targets: readonly string[];
  instancesDir: string;
  /** Compare with the labels the crashes carry. */
  eval?: boolean;
  /** Which side of the split to evaluate (default: all). */
  evaluate?: EvalSplit | 'all';
  split?: SplitOptions;
  onProgress?: ProgressListener;
}

/**
 * `labels suggest`: read the crashes the targets name, suggest labels for
 * each, and with `eval` measure the suggestions against the labels they carry
 * — on the whole, on the chosen side of the seeded split, and per side. A
 * crash read twice (the same id in two targets) counts once. Pure apart from
 * reading the targets.
 */
export async function suggestForTargets(options: SuggestForTargetsOptions): Promise<LabelSuggestionReport> {
  const split = options.split ?? DEFAULT_SPLIT;
  const evaluated = options.evaluate ?? 'all';
  const onProgress = options.onProgress ?? noProgress;
  const cases: SuggestCase[] = [];
  const seen = new Set<string>();
  for (const target of options.targets) {
    for (const c of await readSuggestCases(target, { instancesDir: options.instancesDir })) {
      if (seen.has(c.id)) continue;
      seen.add(c.id);
      cases.push(c);
    }
  }
  const crashes: SuggestedCrash[] = [];
  const main = new SuggestionEvaluator();
  const bySide = { dev: new SuggestionEvaluator(), 'held-out': new SuggestionEvaluator() };
  let done = 0;
  for (const c of cases) {
    const side = assignSplit(c.id, split);
    const { suggestions, rules } = suggestLabelsWithRules(c.input);
    const labelled = LABEL_DIMENSIONS.some((d) => c.labels[d] !== undefined);
    crashes.push({
      id: c.id,
      kind: c.kind,
      location: c.location,
      ename: c.input.ename,
      evalue: c.input.evalue,
      split: side,
      suggestions,
      ...(labelled ? { labels: c.labels } : {}),
    });
    if (options.eval && labelled) {
      bySide[side].add(c.labels, suggestions, rules);
      if (evaluated === 'all' || evaluated === side) main.add(c.labels, suggestions, rules);
    }
    if (++done % 500 === 0) onProgress({ task: 'labels suggest', done, total: cases.length });
  }
  const report: LabelSuggestionReport = {
    split: { seed: String(split.seed), heldOutFraction: split.heldOutFraction, evaluated },
    crashes,
  };
  if (options.eval) {
    const { crashes: n, dimensions } = main.result();
    const accuracies = (e: SuggestionEvaluator) => {
      const r = e.result();
      return {
        crashes: r.crashes,
        library: r.dimensions.library.accuracy,
        crashType: r.dimensions.crashType.accuracy,
        rootCause: r.dimensions.rootCause.accuracy,
        pipelineStage: r.dimensions.pipelineStage.accuracy,
      };
    };
    report.evaluation = {
      crashes: n,
      dimensions,
      bySplit: { dev: accuracies(bySide.dev), 'held-out': accuracies(bySide['held-out']) },
    };
  }
  // A report that fails its own format is a bug (exit 70), not bad input.
  return validateOrThrow<LabelSuggestionReport>('label-suggestion-report', report, {}, 'E_INTERNAL');
}
