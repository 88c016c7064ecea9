import type { CrashRecord, FilterCriteria, PoolFunnelReport, PoolFunnelStep } from '@junobench/core';
import { compileCriteria, type CompiledStep } from './filter-criteria.js';

// The funnel report's shape is schemas/pool-funnel-report.schema.json (pool filter --report writes it).
export type FunnelStep = PoolFunnelStep;

/** Per step of the criteria: records in, kept and removed (docs/formats.md). */
export type FunnelReport = PoolFunnelReport;

/**
 * Runs records through compiled steps one at a time, counting the funnel;
 * shared by the in-memory and the streaming filter.
 */
export class Funnel {
  private readonly counts: FunnelStep[];
  private input = 0;
  private kept = 0;

  constructor(private readonly steps: CompiledStep[]) {
    this.counts = steps.map((s) => ({ name: s.name, action: s.action, in: 0, kept: 0, removed: 0 }));
  }

  /** Whether the record passes every step. */
  pass(record: CrashRecord): boolean {
    this.input++;
    for (let i = 0; i < this.steps.length; i++) {
      const step = this.steps[i]!;
      const c = this.counts[i]!;
      c.in++;
      const hit = step.test(record);
      if (hit === (step.action === 'keep')) {
        c.kept++;
      } else {
        c.removed++;
        return false;
      }
    }
    this.kept++;
    return true;
  }

  report(): FunnelReport {
    return { input: this.input, kept: this.kept, steps: this.counts.map((c) => ({ ...c })) };
  }
}

/** Keep the records that pass every step, in input order, with the funnel report. Pure. */
export function filterRecords(
  records: Iterable<CrashRecord>,
  criteria: FilterCriteria,
): { kept: CrashRecord[]; report: FunnelReport } {
  const funnel = new Funnel(compileCriteria(criteria));
  const kept: CrashRecord[] = [];
  for (const r of records) if (funnel.pass(r)) kept.push(r);
  return { kept, report: funnel.report() };
}
