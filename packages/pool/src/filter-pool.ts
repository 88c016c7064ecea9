import { OutputSet, noProgress, type CrashRecord, type FilterCriteria, type ProgressListener } from '@junobench/core';
import { readPoolJsonl } from './read-pool-jsonl.js';
import { BufferedJsonlWriter } from './buffered-jsonl-writer.js';
import { compileCriteria, readCriteria } from './filter-criteria.js';
import { Funnel, type FunnelReport } from './filter-records.js';
import { formatPoolReport } from './format-pool-report.js';

export interface FilterPoolOptions {
  input: string;
  /** A criteria document, or the path of a criteria JSON file. */
  criteria: FilterCriteria | string;
  output: string;
  /** Where to write the funnel report (JSON); optional. */
  report?: string;
  onProgress?: ProgressListener;
}

/**
 * Stream a pool through the criteria: one record in memory at a time, so a
 * million-record pool filters in flat memory. Kept records and the funnel
 * report are committed together.
 */
export async function filterPool(
  options: FilterPoolOptions,
): Promise<FunnelReport & { output: string; reportFile?: string }> {
  const onProgress = options.onProgress ?? noProgress;
  const steps =
    typeof options.criteria === 'string'
      ? compileCriteria(await readCriteria(options.criteria), options.criteria)
      : compileCriteria(options.criteria);
  const funnel = new Funnel(steps);
  return OutputSet.run(async (set) => {
    const out = new BufferedJsonlWriter<CrashRecord>(await set.open(options.output));
    const reportFile = options.report ? await set.open(options.report) : undefined;
    let done = 0;
    for await (const { value } of readPoolJsonl(options.input)) {
      if (funnel.pass(value)) await out.write(value);
      if (++done % 10000 === 0) onProgress({ task: 'pool filter', done });
    }
    await out.flush();
    const report = funnel.report();
    if (reportFile) await reportFile.write(formatPoolReport('pool-funnel-report', report, options.report));
    return { ...report, output: options.output, ...(options.report ? { reportFile: options.report } : {}) };
  });
}
