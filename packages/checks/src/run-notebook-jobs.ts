import { mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { copyInstanceTree, formatJson, writeFileAtomic, type ProgressListener, type RunResult } from '@junobench/core';
import type { Notebook } from '@junobench/notebook';
import { createRunFolder, sweepStaleRunFolders, type NotebookRun, type Runtime } from '@junobench/runtime';

/** One notebook to run: a file of the instance folder, or a notebook made here (a mutant) run beside its data. */
export interface NotebookJob {
  instanceDir: string;
  notebook: string | Notebook;
  plan: number[];
  probe?: NotebookRun['probe'];
  cellTimeoutSeconds: number;
  timeoutSeconds: number;
  prewarm?: string[];
}

export interface RunJobsOptions {
  runtime: Runtime;
  jobs?: number;
  /** Where made notebooks are written with a copy of their instance's data (default the OS temp folder). */
  scratchRoot?: string;
  onProgress?: ProgressListener;
  /** The progress task's name. */
  task?: string;
  signal?: AbortSignal;
}

// What a made notebook's folder leaves out of its instance: the answers, and the checks the mutants are judged by.
const LEFT_OUT = new Set(['original.ipynb', 'reproduced.ipynb', 'fixed.ipynb', 'instance.json', 'checks.py']);

/**
 * Run notebooks through the runtime, in order of `jobs` (results likewise). Made notebooks are written, all those of
 * one instance into one scratch copy of its folder (without its notebooks, instance.json and checks.py), removed
 * afterwards; the runtime then runs each in a fresh kernel in its own copy, as any notebook.
 */
export async function runNotebookJobs(
  jobs: readonly NotebookJob[],
  options: RunJobsOptions,
): Promise<(RunResult | undefined)[]> {
  if (jobs.length === 0) return [];
  const root = options.scratchRoot ?? os.tmpdir();
  await mkdir(root, { recursive: true });
  sweepStaleRunFolders(root);
  const folder = createRunFolder(root);
  try {
    const copies = new Map<string, string>();
    const runs: NotebookRun[] = [];
    for (const [n, job] of jobs.entries()) {
      let instanceDir = job.instanceDir;
      let notebook: string;
      if (typeof job.notebook === 'string') notebook = job.notebook;
      else {
        let copy = copies.get(job.instanceDir);
        if (!copy) {
          copy = path.join(folder.dir, `instance-${copies.size}`);
          await mkdir(copy);
          await copyInstanceTree(job.instanceDir, copy, { ignore: (rel) => LEFT_OUT.has(rel) });
          copies.set(job.instanceDir, copy);
        }
        instanceDir = copy;
        notebook = `made-${n}.ipynb`;
        await writeFileAtomic(path.join(copy, notebook), formatJson(job.notebook));
      }
      runs.push({
        id: `checks/${n}`,
        instanceDir,
        notebook,
        cells: job.plan,
        cellTimeoutSeconds: job.cellTimeoutSeconds,
        timeoutSeconds: job.timeoutSeconds,
        ...(job.prewarm && job.prewarm.length > 0 ? { prewarm: job.prewarm } : {}),
        ...(job.probe ? { probe: job.probe } : {}),
      });
    }
    const task = options.task ?? 'checks';
    let done = 0;
    options.onProgress?.({ task, done, total: runs.length });
    return await options.runtime.run(runs, {
      jobs: options.jobs ?? Math.max(1, os.availableParallelism()),
      ...(options.signal ? { signal: options.signal } : {}),
      onResult: () => options.onProgress?.({ task, done: ++done, total: runs.length }),
    });
  } finally {
    folder.remove();
  }
}
