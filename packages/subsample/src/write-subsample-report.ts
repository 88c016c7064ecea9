import { writeJsonAtomic, type SubsampleCheckReport, type SubsampleReport } from '@junobench/core';
import type { RegenerateResult } from './regenerate-instance-data.js';

/** What `subsample <id> --check --json` writes: the redone data's report and whether it matches instance.json. Pure. */
export function planSubsampleCheckReport(
  instance: string,
  r: Pick<RegenerateResult, 'report' | 'expected' | 'matches'>,
): SubsampleCheckReport {
  return {
    instance,
    ...(r.expected ? { expected: r.expected } : {}),
    ...(r.matches !== undefined ? { matches: r.matches } : {}),
    data: r.report,
  };
}

/**
 * Write `subsample --json` (schemas/subsample-report.schema.json), checked first: a report that drifted from
 * its documented format is an internal error (exit 70), never a file the user's tools then misread.
 */
export async function writeSubsampleReport(file: string, report: SubsampleReport): Promise<void> {
  await writeJsonAtomic(file, report, { schema: 'subsample-report' });
}

/**
 * Write `subsample --check --json` (schemas/subsample-check-report.schema.json), checked first like
 * writeSubsampleReport.
 */
export async function writeSubsampleCheckReport(file: string, report: SubsampleCheckReport): Promise<void> {
  await writeJsonAtomic(file, report, { schema: 'subsample-check-report' });
}
