import { LABEL_DIMENSIONS, compareCodePoints, type LabelDimension, type LabelSuggestions } from '@junobench/core';
import type { NormalizedLabels } from './normalize-labels.js';
import type { SuggestionRules } from './suggest-labels.js';

export interface DimensionEvaluation {
  /** Crashes labelled in this dimension (in JunoBench's vocabulary). */
  total: number;
  hits: number;
  /** hits / total; 0 when none is labelled. */
  accuracy: number;
  /** Mean confidence of the suggestions scored. */
  meanConfidence: number;
  /** labelled value → suggested value → count. */
  confusion: Record<string, Record<string, number>>;
  /** Accuracy among the suggestions at or above each confidence level: how far to trust a pre-filled value. */
  byConfidence: Array<{ atLeast: number; total: number; hits: number; accuracy: number }>;
}

export interface RuleScore {
  total: number;
  hits: number;
}

export interface SuggestionEvaluation {
  crashes: number;
  dimensions: Record<LabelDimension, DimensionEvaluation>;
  /** rule id → how often it decided and was right, over every dimension. */
  rules: Record<string, RuleScore>;
}

const CONFIDENCE_LEVELS = [0, 0.5, 0.7, 0.8, 0.9];

/** Accumulates the comparison of suggestions with labels one crash at a time. */
export class SuggestionEvaluator {
  private crashes = 0;
  private readonly confusion = new Map<LabelDimension, Map<string, Map<string, number>>>();
  private readonly confidences = new Map<LabelDimension, Array<{ c: number; hit: boolean }>>();
  private readonly rules = new Map<string, RuleScore>();

  add(labels: NormalizedLabels, suggestions: LabelSuggestions, rules?: SuggestionRules): void {
    this.crashes++;
    for (const dim of LABEL_DIMENSIONS) {
      const labelled = labels[dim];
      if (labelled === undefined) continue;
      const s = suggestions[dim];
      const hit = s.value === labelled;
      let table = this.confusion.get(dim);
      if (!table) this.confusion.set(dim, (table = new Map()));
      let row = table.get(labelled);
      if (!row) table.set(labelled, (row = new Map()));
      row.set(s.value, (row.get(s.value) ?? 0) + 1);
      let list = this.confidences.get(dim);
      if (!list) this.confidences.set(dim, (list = []));
      list.push({ c: s.confidence, hit });
      if (rules) {
        const r = this.rules.get(rules[dim]) ?? { total: 0, hits: 0 };
        r.total++;
        if (hit) r.hits++;
        this.rules.set(rules[dim], r);
      }
    }
  }

  result(): SuggestionEvaluation {
    const dimensions = {} as Record<LabelDimension, DimensionEvaluation>;
    for (const dim of LABEL_DIMENSIONS) {
      const list = this.confidences.get(dim) ?? [];
      const hits = list.filter((x) => x.hit).length;
      const confusion: Record<string, Record<string, number>> = {};
      for (const [labelled, row] of [...(this.confusion.get(dim) ?? new Map<string, Map<string, number>>())].sort(
        (a, b) => compareCodePoints(a[0], b[0]),
      )) {
        confusion[labelled] = Object.fromEntries([...row].sort((a, b) => compareCodePoints(a[0], b[0])));
      }
      dimensions[dim] = {
        total: list.length,
        hits,
        accuracy: ratio(hits, list.length),
        meanConfidence: ratio(
          list.reduce((a, x) => a + x.c, 0),
          list.length,
        ),
        confusion,
        byConfidence: CONFIDENCE_LEVELS.map((atLeast) => {
          const kept = list.filter((x) => x.c >= atLeast);
          const h = kept.filter((x) => x.hit).length;
          return { atLeast, total: kept.length, hits: h, accuracy: ratio(h, kept.length) };
        }),
      };
    }
    const rules = Object.fromEntries([...this.rules].sort((a, b) => compareCodePoints(a[0], b[0])));
    return { crashes: this.crashes, dimensions, rules };
  }
}

function ratio(a: number, b: number): number {
  return b > 0 ? Math.round((a / b) * 1e6) / 1e6 : 0;
}
