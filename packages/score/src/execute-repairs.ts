import { mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { copyInstanceTree, formatJson, writeFileAtomic, type ProgressListener, type RunResult } from '@junobench/core';
import { listCodeCells, parseImports, type Notebook } from '@junobench/notebook';
import { createRunFolder, sweepStaleRunFolders, type NotebookRun, type Runtime } from '@junobench/runtime';
import type { ChecksProbe } from '@junobench/checks';
import { isAnswerFile } from './read-task-sources.js';
import type { RepairKey } from './plan-tasks.js';

/** The file name of the repaired notebook in its attempt's scratch folder. */
export const REPAIRED_NOTEBOOK = 'repaired.ipynb';

/** One repaired notebook to execute. */
export interface RepairRun {
  /** Unique per (task, attempt). */
  slot: string;
  attempt: number;
  key: RepairKey;
  notebook: Notebook;
  /** Code cells to execute, in order. */
  plan: number[];
  /** The checks harness around the cells (planChecksProbe): evidence of hiding, then the instance's checks. */
  checks?: ChecksProbe;
}

export interface ExecuteRepairsOptions {
  runtime: Runtime;
  /** Notebooks executed at once (default the number of CPUs). */
  jobs?: number;
  /** Override the instances' limits (seconds). */
  cellTimeoutSeconds?: number;
  timeoutSeconds?: number;
  /** Where the scratch copies go (default the OS temp folder; made if missing); removed afterwards. */
  scratchRoot?: string;
  onProgress?: ProgressListener;
  signal?: AbortSignal;
}

/**
 * Execute repaired notebooks through the runtime. Each attempt gets a scratch
 * folder of its own: a copy of its instance folder made with copyInstanceTree
 * (the link rule of instance folders) without the notebooks and instance.json
 * — a repair must not be able to read the fixed notebook or the labels — and
 * that attempt's notebook alone, always named REPAIRED_NOTEBOOK. No attempt
 * can see another's notebook (which would let one attempt copy another's
 * repair, or change its behaviour by what it finds), and the same answer runs
 * in the same folder whatever its attempt number. The runtime then runs every
 * notebook in a fresh kernel in its own copy of that folder (the docker
 * runtime mounts it read-only), with the instance's time limits; timeouts and
 * dead kernels come back as results, never as errors.
 */
export async function executeRepairs(
  runs: readonly RepairRun[],
  options: ExecuteRepairsOptions,
): Promise<Map<string, RunResult>> {
  const out = new Map<string, RunResult>();
  if (runs.length === 0) return out;
  // A run folder (the runtimes' own kind): removed at exit too — Ctrl-C ends the process with process.exit, which skips
  // the finally below — and swept by the next run when this process dies without exiting (SIGKILL). It holds a copy
  // of the instance's data per attempt.
  const root = options.scratchRoot ?? os.tmpdir();
  await mkdir(root, { recursive: true });
  sweepStaleRunFolders(root);
  const folder = createRunFolder(root);
  const scratch = folder.dir;
  try {
    const notebookRuns: NotebookRun[] = [];
    for (const [n, r] of runs.entries()) {
      const dir = path.join(scratch, `run-${n}`);
      await mkdir(dir);
      await copyInstanceTree(r.key.source.dir, dir, { ignore: isAnswerFile });
      await writeFileAtomic(path.join(dir, REPAIRED_NOTEBOOK), formatJson(r.notebook));
      const ex = r.key.execution;
      notebookRuns.push({
        id: `repair/${n}`,
        instanceDir: dir,
        notebook: REPAIRED_NOTEBOOK,
        cells: r.plan,
        cellTimeoutSeconds: options.cellTimeoutSeconds ?? ex.cellTimeoutSeconds,
        timeoutSeconds: options.timeoutSeconds ?? ex.timeoutSeconds,
        prewarm: planRepairPrewarm(r.notebook, r.plan, r.key.source.instance.requires),
        ...(r.checks ? { probe: r.checks.probe } : {}),
      });
    }
    let done = 0;
    options.onProgress?.({ task: 'score repairs', done, total: runs.length });
    const results = await options.runtime.run(notebookRuns, {
      jobs: options.jobs ?? Math.max(1, os.availableParallelism()),
      ...(options.signal ? { signal: options.signal } : {}),
      onResult: (_result, run) => {
        const r = runs[notebookRuns.indexOf(run)]!;
        options.onProgress?.({
          task: 'score repairs',
          done: ++done,
          total: runs.length,
          item: `${r.key.instance} attempt ${r.attempt}`,
        });
      },
    });
    results.forEach((result, i) => out.set(runs[i]!.slot, result));
    return out;
  } finally {
    folder.remove();
  }
}

/**
 * Modules to import while the kernel starts: what the cells that will run
 * import, limited to the instance's `requires`. Only sys.modules is touched,
 * so a repair that drops an import still fails as it would in a plain kernel.
 */
export function planRepairPrewarm(nb: Notebook, plan: readonly number[], requires: readonly string[]): string[] {
  const allowed = new Set(requires);
  const code = listCodeCells(nb);
  const out: string[] = [];
  for (const i of plan) {
    for (const imp of parseImports(code[i]?.source ?? '')) {
      const top = imp.module.split('.')[0]!;
      if (allowed.has(top) && !out.includes(imp.module)) out.push(imp.module);
    }
  }
  return out;
}

/** The modules the instances of repair tasks require, sorted, each once. */
export function listRequiredModules(keys: readonly RepairKey[]): string[] {
  return [...new Set(keys.flatMap((k) => k.source.instance.requires))].sort();
}

/**
 * Repair tasks that cannot be scored in this runtime: an instance whose
 * required modules are not importable there (e.g. TensorFlow in the local
 * Debian stack). Such a task is excluded with its reason, never counted as
 * resolved: neither the fixed notebook nor any repair could run.
 */
export async function planRepairExclusions(keys: readonly RepairKey[], runtime: Runtime): Promise<Map<string, string>> {
  const excluded = new Map<string, string>();
  if (keys.length === 0) return excluded;
  const modules = listRequiredModules(keys);
  const identity = await runtime.describe(modules);
  const where =
    identity.kind === 'docker'
      ? `the image ${identity.image ?? identity.imageId ?? ''}`.trim()
      : identity.python
        ? `the local Python ${identity.python}`
        : 'the local Python';
  for (const k of keys) {
    const missing = k.source.instance.requires.filter((m) => (identity.packages[m] ?? null) === null);
    if (missing.length > 0)
      excluded.set(
        k.id,
        `required module${missing.length > 1 ? 's' : ''} ${missing.join(', ')} not importable in ${where}`,
      );
  }
  return excluded;
}
