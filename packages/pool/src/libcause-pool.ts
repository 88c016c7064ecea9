import {
  OutputSet,
  compareCodePoints,
  noProgress,
  type CrashRecord,
  type PoolLibcauseReport,
  type ProgressListener,
} from '@junobench/core';
import { readPoolJsonl } from './read-pool-jsonl.js';
import { BufferedJsonlWriter } from './buffered-jsonl-writer.js';
import { LibcauseEvaluator, labelledLibrary, predictLibrary, type LibcauseEvaluation } from '@junobench/suggest';
import { formatPoolReport } from './format-pool-report.js';
import { predictLibraryBaseline } from './predict-library-baseline.js';

export interface LibcausePoolOptions {
  input: string;
  output: string;
  /** Compare with the labelled library where records have one. */
  eval?: boolean;
  /** Where to write the library estimate report (JSON); optional. */
  report?: string;
  onProgress?: ProgressListener;
}

/**
 * schemas/pool-libcause-report.schema.json (pool libcause --report writes it), with the evaluations typed as
 * @junobench/suggest makes them; `satisfies PoolLibcauseReport` below keeps the two in step.
 */
export interface LibcauseReport {
  records: number;
  /** Predicted library → number of records. */
  predicted: Record<string, number>;
  /** Against the labelled records (with `eval`). */
  evaluation?: LibcauseEvaluation;
  /** The original keyword-counting heuristic on the same records, for comparison (with `eval`). */
  baseline?: LibcauseEvaluation;
}

/**
 * Set `predictedLibrary` on every record of a pool, streaming. With `eval`,
 * also scores the prediction (and the keyword baseline) against the labels.
 * The output and the report are committed together.
 */
export async function libcausePool(
  options: LibcausePoolOptions,
): Promise<LibcauseReport & { output: string; reportFile?: string }> {
  const onProgress = options.onProgress ?? noProgress;
  const evaluator = options.eval ? new LibcauseEvaluator() : undefined;
  const baseline = options.eval ? new LibcauseEvaluator() : undefined;
  const predicted = new Map<string, number>();
  return OutputSet.run(async (set) => {
    const out = new BufferedJsonlWriter<CrashRecord>(await set.open(options.output));
    const reportFile = options.report ? await set.open(options.report) : undefined;
    let done = 0;
    for await (const { value } of readPoolJsonl(options.input)) {
      const { library } = predictLibrary(value);
      value.predictedLibrary = library;
      predicted.set(library, (predicted.get(library) ?? 0) + 1);
      const labelled = evaluator ? labelledLibrary(value) : undefined;
      if (labelled !== undefined) {
        evaluator!.add(labelled, library);
        baseline!.add(labelled, predictLibraryBaseline(value));
      }
      await out.write(value);
      if (++done % 10000 === 0) onProgress({ task: 'pool libcause', done });
    }
    await out.flush();
    const report = {
      records: done,
      predicted: Object.fromEntries([...predicted].sort((a, b) => compareCodePoints(a[0], b[0]))),
      ...(evaluator ? { evaluation: evaluator.result(), baseline: baseline!.result() } : {}),
    } satisfies LibcauseReport satisfies PoolLibcauseReport;
    if (reportFile) await reportFile.write(formatPoolReport('pool-libcause-report', report, options.report));
    return { ...report, output: options.output, ...(options.report ? { reportFile: options.report } : {}) };
  });
}
