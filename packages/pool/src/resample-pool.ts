import { OutputSet, noProgress, type CrashRecord, type ProgressListener } from '@junobench/core';
import { readPoolJsonl } from './read-pool-jsonl.js';
import { BufferedJsonlWriter } from './buffered-jsonl-writer.js';
import { formatPoolReport } from './format-pool-report.js';
import { ResampleAccumulator, type ResampleOptions, type ResampleReport } from './resample-records.js';

export interface ResamplePoolOptions extends ResampleOptions {
  input: string;
  output: string;
  /** Where to write the resample report (JSON); optional. */
  report?: string;
  onProgress?: ProgressListener;
}

/**
 * Draw the balanced sample from a pool file, streaming: memory holds only the
 * records drawn so far (at most perLibrary per library), never the pool.
 */
export async function resamplePool(
  options: ResamplePoolOptions,
): Promise<ResampleReport & { output: string; reportFile?: string }> {
  const onProgress = options.onProgress ?? noProgress;
  const acc = new ResampleAccumulator(options);
  let done = 0;
  for await (const { value } of readPoolJsonl(options.input)) {
    acc.add(value);
    if (++done % 10000 === 0) onProgress({ task: 'pool resample', done });
  }
  const { selected, report } = acc.result();
  return OutputSet.run(async (set) => {
    const out = new BufferedJsonlWriter<CrashRecord>(await set.open(options.output));
    for (const r of selected) await out.write(r);
    await out.flush();
    if (options.report)
      await (await set.open(options.report)).write(formatPoolReport('pool-resample-report', report, options.report));
    return { ...report, output: options.output, ...(options.report ? { reportFile: options.report } : {}) };
  });
}
