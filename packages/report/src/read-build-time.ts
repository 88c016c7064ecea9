import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { ReportProvenance } from './report-data.js';

/**
 * When the data a report shows was built: SOURCE_DATE_EPOCH when set (a
 * release sets it, so its report is byte for byte reproducible), else when
 * `<curated>/benchmark.json` was written (the same curated/ gives the same
 * time however often the report is rendered again).
 */
export async function readBuildTime(
  curatedDir: string,
  sourceDateEpoch?: number,
): Promise<NonNullable<ReportProvenance['builtAt']> | undefined> {
  if (sourceDateEpoch !== undefined)
    return { iso: new Date(sourceDateEpoch * 1000).toISOString(), source: 'SOURCE_DATE_EPOCH' };
  const st = await stat(path.join(curatedDir, 'benchmark.json')).catch(() => undefined);
  if (!st) return undefined;
  return {
    iso: new Date(Math.floor(st.mtimeMs / 1000) * 1000).toISOString(),
    source: 'when the build wrote benchmark.json; set SOURCE_DATE_EPOCH to fix it',
  };
}
