import {
  compareCodePoints,
  JunoError,
  LABEL_DIMENSIONS,
  VOCABULARIES,
  type BenchmarkStats,
  type CountRow,
  type CrossTable,
  type LabelDimension,
} from '@junobench/core';

/** One benchmark instance as the statistics see it. */
export interface StatsRow {
  id: string;
  library: string;
  crashType: string;
  rootCause: string;
  pipelineStage: string;
}

/** The paper's cross-tables: library × root cause and pipeline stage × crash type. */
export const DEFAULT_CROSS_TABLES: readonly (readonly [LabelDimension, LabelDimension])[] = [
  ['library', 'rootCause'],
  ['pipelineStage', 'crashType'],
];

/**
 * Counts and shares (format: schemas/stats.schema.json) per library cause, crash type, root cause and pipeline
 * stage, and cross-tables. Pure; the order of `rows` does not matter. Values
 * outside the vocabularies are counted as they are (validation happens where
 * rows are read). Two rows with the same id are an error: a benchmark counts
 * each instance once.
 */
export function computeStats(
  rows: readonly StatsRow[],
  crossTables: readonly (readonly [LabelDimension, LabelDimension])[] = DEFAULT_CROSS_TABLES,
): BenchmarkStats {
  const seen = new Set<string>();
  for (const r of rows) {
    if (seen.has(r.id)) {
      throw new JunoError('E_INPUT_ROW', `instance "${r.id}" appears twice in the statistics input`, {
        location: { field: 'id' },
        hint: 'each instance is counted once; remove the duplicate row',
      });
    }
    seen.add(r.id);
  }
  const total = rows.length;
  const counts = Object.fromEntries(
    LABEL_DIMENSIONS.map((d) => {
      const tally = new Map<string, number>();
      for (const r of rows) tally.set(r[d], (tally.get(r[d]) ?? 0) + 1);
      const ordered = [...tally.keys()].sort(byCountThenVocabulary(d, tally));
      return [d, ordered.map((value) => ({ value, count: tally.get(value)!, share: tally.get(value)! / total }))];
    }),
  ) as Record<LabelDimension, CountRow[]>;

  const tables = crossTables.map(([rd, cd]): CrossTable => {
    const rowValues = counts[rd].map((c) => c.value);
    const columnValues = counts[cd].map((c) => c.value);
    const ri = new Map(rowValues.map((v, i) => [v, i]));
    const ci = new Map(columnValues.map((v, i) => [v, i]));
    const cells = rowValues.map(() => new Array<number>(columnValues.length).fill(0));
    for (const r of rows) cells[ri.get(r[rd])!]![ci.get(r[cd])!]! += 1;
    return {
      rows: rd,
      columns: cd,
      rowValues,
      columnValues,
      counts: cells,
      rowTotals: cells.map((row) => row.reduce((s, x) => s + x, 0)),
      columnTotals: columnValues.map((_, j) => cells.reduce((s, row) => s + row[j]!, 0)),
    };
  });
  return { total, counts, crossTables: tables };
}

function byCountThenVocabulary(d: LabelDimension, tally: Map<string, number>): (a: string, b: string) => number {
  const vocab = VOCABULARIES[d];
  const rank = (v: string) => {
    const i = vocab.indexOf(v);
    return i < 0 ? vocab.length : i;
  };
  return (a, b) => tally.get(b)! - tally.get(a)! || rank(a) - rank(b) || compareCodePoints(a, b);
}
