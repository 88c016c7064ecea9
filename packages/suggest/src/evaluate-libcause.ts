import { canonicalLibrary, compareCodePoints, type CrashRecord } from '@junobench/core';
import { predictLibrary } from './predict-library.js';

export interface LibraryScore {
  /** Records labelled with this library. */
  labelled: number;
  /** Records predicted as this library (among the labelled ones). */
  predicted: number;
  /** Labelled and predicted as this library. */
  hits: number;
  /** hits / labelled (0 when none is labelled). */
  recall: number;
  /** hits / predicted (0 when none is predicted). */
  precision: number;
}

export interface LibcauseEvaluation {
  /** Records with a labelled library. */
  total: number;
  hits: number;
  /** hits / total, 0 when nothing is labelled. */
  accuracy: number;
  /** labelled library → predicted library → count. */
  confusion: Record<string, Record<string, number>>;
  perLibrary: Record<string, LibraryScore>;
}

/** The labelled library of a record in canonical form, or undefined when unlabelled. */
export function labelledLibrary(record: CrashRecord): string | undefined {
  const raw = record.labels?.library;
  if (raw === undefined || raw.trim() === '') return undefined;
  return canonicalLibrary(raw) ?? raw.trim();
}

/** Accumulates an evaluation one record at a time (streams of any size). */
export class LibcauseEvaluator {
  private total = 0;
  private hits = 0;
  private readonly confusion = new Map<string, Map<string, number>>();

  add(labelled: string, predicted: string): void {
    this.total++;
    if (labelled === predicted) this.hits++;
    let row = this.confusion.get(labelled);
    if (!row) this.confusion.set(labelled, (row = new Map()));
    row.set(predicted, (row.get(predicted) ?? 0) + 1);
  }

  result(): LibcauseEvaluation {
    const confusion: Record<string, Record<string, number>> = {};
    const libs = new Set<string>();
    for (const [l, row] of this.confusion) {
      libs.add(l);
      confusion[l] = {};
      for (const [p, n] of [...row].sort((a, b) => compareCodePoints(a[0], b[0]))) {
        confusion[l]![p] = n;
        libs.add(p);
      }
    }
    const perLibrary: Record<string, LibraryScore> = {};
    for (const lib of [...libs].sort(compareCodePoints)) {
      const labelled = Object.values(confusion[lib] ?? {}).reduce((a, b) => a + b, 0);
      const predicted = Object.values(confusion).reduce((a, row) => a + (row[lib] ?? 0), 0);
      const hits = confusion[lib]?.[lib] ?? 0;
      perLibrary[lib] = {
        labelled,
        predicted,
        hits,
        recall: labelled > 0 ? round(hits / labelled) : 0,
        precision: predicted > 0 ? round(hits / predicted) : 0,
      };
    }
    return {
      total: this.total,
      hits: this.hits,
      accuracy: this.total > 0 ? round(this.hits / this.total) : 0,
      confusion,
      perLibrary,
    };
  }
}

function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

/**
 * Compare predicted with labelled libraries over the records that have a
 * label. The prediction is the record's `predictedLibrary` when set, else
 * `predict(record)` (predictLibrary by default). Pure.
 */
export function evaluateLibcause(
  records: Iterable<CrashRecord>,
  options: { predict?: (record: CrashRecord) => string } = {},
): LibcauseEvaluation {
  const predict = options.predict ?? ((r: CrashRecord) => r.predictedLibrary ?? predictLibrary(r).library);
  const evaluator = new LibcauseEvaluator();
  for (const r of records) {
    const labelled = labelledLibrary(r);
    if (labelled === undefined) continue;
    evaluator.add(labelled, predict(r));
  }
  return evaluator.result();
}
