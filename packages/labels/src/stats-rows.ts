import {
  canonicalLibrary,
  JunoError,
  LABEL_DIMENSIONS,
  readJsonFile,
  type Benchmark,
  type LabelDimension,
} from '@junobench/core';
import { checkLabelValue } from './check-label.js';
import type { StatsRow } from './compute-stats.js';

/** The statistics rows of a curated benchmark (labels there are already schema-checked). */
export function statsRowsFromBenchmark(benchmark: Benchmark): StatsRow[] {
  return benchmark.instances.map((e) => ({
    id: e.id,
    library: e.labels.library,
    crashType: e.labels.crashType,
    rootCause: e.labels.rootCause,
    pipelineStage: e.labels.pipelineStage,
  }));
}

/** What the statistics need of a pool CrashRecord (structural, so labels does not depend on pool). */
export interface LabelledRecord {
  id: string;
  notebook?: string;
  labels?: { library?: string; crashType?: string; rootCause?: string; pipelineStage?: string };
}

/**
 * The statistics rows of imported records (e.g. a benchmark-description sheet
 * read by the pool importer). The library label may be an alias as sheets
 * write it (`tensorflow`, `NBspecific`) and is canonicalised; every other
 * label must be in the vocabulary. Problems are collected and thrown as one
 * JunoError naming each record and field.
 */
export function statsRowsFromRecords(records: readonly LabelledRecord[], source: string): StatsRow[] {
  const problems: string[] = [];
  let firstField: string | undefined;
  const rows: StatsRow[] = [];
  for (const r of records) {
    const name = r.notebook && r.notebook !== r.id ? `${r.notebook} (${r.id})` : r.id;
    const row: Partial<StatsRow> = { id: r.id };
    for (const d of LABEL_DIMENSIONS) {
      const raw = r.labels?.[d];
      const problem = (message: string) => {
        problems.push(`${name}, labels.${d}: ${message}`);
        firstField ??= `labels.${d}`;
      };
      if (raw === undefined || raw.trim() === '') {
        problem('missing');
        continue;
      }
      const value = d === 'library' ? (canonicalLibrary(raw) ?? raw) : raw.trim();
      const message = checkLabelValue(d as LabelDimension, value);
      if (message) problem(message);
      else row[d] = value;
    }
    if (LABEL_DIMENSIONS.every((d) => row[d] !== undefined)) rows.push(row as StatsRow);
  }
  if (problems.length > 0) {
    const shown = problems.slice(0, 20).map((p) => `  - ${p}`);
    if (problems.length > 20) shown.push(`  … and ${problems.length - 20} more`);
    throw new JunoError(
      'E_INPUT_ROW',
      `${problems.length} record${problems.length === 1 ? ' has' : 's have'} missing or unknown labels:\n${shown.join('\n')}`,
      {
        location: { file: source, field: firstField },
        hint: 'statistics need all four labels (library, crash type, root cause, pipeline stage) in the vocabularies of schemas/taxonomy.schema.json',
      },
    );
  }
  if (rows.length === 0) {
    throw new JunoError('E_INPUT_EMPTY', 'no labelled records to count', {
      location: { file: source },
      hint: 'give a benchmark file with at least one instance',
    });
  }
  return rows;
}

/** Read `curated/benchmark.json` (schema-checked) as statistics rows. */
export async function readBenchmarkRows(file: string): Promise<StatsRow[]> {
  const benchmark = await readJsonFile<Benchmark>(file, { schema: 'benchmark' });
  if (benchmark.instances.length === 0) {
    throw new JunoError('E_INPUT_EMPTY', 'the benchmark has no instances', {
      location: { file, field: 'instances' },
      hint: 'run `junobench build` first',
    });
  }
  return statsRowsFromBenchmark(benchmark);
}
