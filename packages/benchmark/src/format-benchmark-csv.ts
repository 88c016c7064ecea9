import { stringify } from 'csv-stringify/sync';
import { neutralizeCsvFormula, type Benchmark } from '@junobench/core';

export const BENCHMARK_CSV_COLUMNS = [
  'id',
  'platform',
  'notebook_url',
  'datasets',
  'dataset_licenses',
  'dataset_urls',
  'synthetic_data',
  'crash_ename',
  'crash_evalue',
  'crash_match',
  'crash_cell',
  'execution_order',
  'requires',
  'library',
  'crash_type',
  'root_cause',
  'pipeline_stage',
  'diagnosis',
  'verification_status',
  'reproduced_outcome',
  'fixed_outcome',
  'verification_note',
] as const;

export function formatBenchmarkCsv(b: Benchmark): string {
  const rows = b.instances.map((e) => [
    e.id,
    e.source.platform,
    e.source.notebookUrl ?? '',
    e.source.datasets.map((d) => d.title).join('; '),
    e.source.datasets.map((d) => d.license).join('; '),
    e.source.datasets.map((d) => d.url ?? '').join('; '),
    e.syntheticData ? 'yes' : 'no',
    e.crash.ename,
    e.crash.evalue,
    e.crash.match,
    String(e.crash.cell),
    e.execution?.order ?? 'file',
    e.requires.join(' '),
    e.labels.library,
    e.labels.crashType,
    e.labels.rootCause,
    e.labels.pipelineStage,
    e.labels.diagnosis ?? '',
    e.verification.status,
    e.verification.reproduced ?? '',
    e.verification.fixed ?? '',
    e.verification.reason ?? '',
  ]);
  // A spreadsheet must never run a cell as a formula (OWASP); benchmark.json keeps the exact text.
  return stringify([[...BENCHMARK_CSV_COLUMNS], ...rows.map((r) => r.map(neutralizeCsvFormula))], {
    record_delimiter: 'unix',
  });
}
