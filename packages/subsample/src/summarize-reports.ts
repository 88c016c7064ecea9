import { compareCodePoints, type SubsampleSummary } from '@junobench/core';
import type { SubsampleDataReport } from './subsample-data.js';

/** One instance's outcome of `junobench subsample`, as the pipeline reports it. */
export interface InstanceSubsampleReport {
  instance: string;
  /** applied: data/ replaced; refused: the crash would not survive, data/ kept; dry-run: nothing changed. */
  status: 'applied' | 'refused' | 'dry-run';
  data: SubsampleDataReport;
  /** Why a subsampling was refused: what changed in the verification. */
  reason?: string;
  durationMs: number;
}

/**
 * Totals over instances for curated/ (schemas/subsample-summary.schema.json) (sizes before/after, files kept and
 * dropped, time). Only applied subsamplings count in the size totals: a
 * refused one left its data as it was. Sorted by instance id.
 */
export function summarizeSubsampleReports(reports: readonly InstanceSubsampleReport[]): SubsampleSummary {
  const sorted = [...reports].sort((a, b) => compareCodePoints(a.instance, b.instance));
  const applied = sorted.filter((r) => r.status === 'applied');
  const sum = (l: readonly InstanceSubsampleReport[], f: (r: InstanceSubsampleReport) => number) =>
    l.reduce((s, r) => s + f(r), 0);
  const before = { files: sum(applied, (r) => r.data.before.files), bytes: sum(applied, (r) => r.data.before.bytes) };
  const after = { files: sum(applied, (r) => r.data.after.files), bytes: sum(applied, (r) => r.data.after.bytes) };
  return {
    instances: sorted.length,
    applied: applied.length,
    refused: sorted.filter((r) => r.status === 'refused').length,
    dryRun: sorted.filter((r) => r.status === 'dry-run').length,
    before,
    after,
    ratio: before.bytes === 0 ? 1 : Math.round((after.bytes / before.bytes) * 1e6) / 1e6,
    filesKept: sum(applied, (r) => r.data.filesKept),
    filesDropped: sum(applied, (r) => r.data.filesDropped),
    corrupt: sum(sorted, (r) => r.data.corrupt.length),
    durationMs: sum(sorted, (r) => r.durationMs),
    perInstance: sorted.map((r) => ({
      instance: r.instance,
      status: r.status,
      before: r.data.before,
      after: r.data.after,
      filesKept: r.data.filesKept,
      filesDropped: r.data.filesDropped,
      ...(r.reason ? { reason: r.reason } : {}),
    })),
  };
}
