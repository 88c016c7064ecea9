import { formatJson, validateOrThrow } from '@junobench/core';

/** The reports pool filter, libcause and resample write with --report; each is a schema in schemas/. */
export type PoolReportSchema = 'pool-funnel-report' | 'pool-libcause-report' | 'pool-resample-report';

/**
 * The report as it is written: checked against its own schema first, so a
 * report that drifted from its documented format fails here (an internal
 * error, exit 70) instead of reaching the user's tools.
 */
export function formatPoolReport(schema: PoolReportSchema, report: unknown, file?: string): string {
  return formatJson(validateOrThrow(schema, report, file ? { file } : {}, 'E_INTERNAL'));
}
