import type { ProgressListener, TaskKind } from '@junobench/core';
import type { Runtime } from '@junobench/runtime';
import type { ExportTasksReport } from '@junobench/score';
import type { InstanceSet } from './open-instance-set.js';

export type TaskContext = 'static' | 'runtime';

export interface ExportBenchmarkTasksOptions {
  set: Pick<InstanceSet, 'instancesDir' | 'ids'>;
  output: string;
  kinds?: readonly TaskKind[];
  seed?: string;
  workspace?: string;
  /** runtime: each detect and diagnose prompt gets the kernel state just before its target cell. */
  context?: TaskContext;
  /** The runtime the cells before each target run in (`--context runtime` only). */
  createRuntime?: () => Promise<Runtime>;
  jobs?: number;
  onProgress?: ProgressListener;
}

export interface ExportBenchmarkTasksReport extends ExportTasksReport {
  context: TaskContext;
  /** runtime context: targets whose state was captured, and those whose cells before the target did not all run. */
  states?: { captured: number; uncaptured: { key: string; reason: string }[] };
}

/**
 * `tasks export`: the tasks of exactly the set's instances; with the runtime context, the state before every detect
 * target (and so before every diagnose task's crash cell) is captured first by running only the cells before it
 * (@junobench/runtime-context), and carried in the tasks and their prompts.
 */
export async function exportBenchmarkTasks(options: ExportBenchmarkTasksOptions): Promise<ExportBenchmarkTasksReport> {
  const { exportTasks, readTaskSources, planStateTargets } = await import('@junobench/score');
  const context = options.context ?? 'static';
  const base = {
    instancesDir: options.set.instancesDir,
    ids: options.set.ids,
    output: options.output,
    ...(options.kinds ? { kinds: options.kinds } : {}),
    ...(options.seed ? { seed: options.seed } : {}),
    ...(options.workspace ? { workspace: options.workspace } : {}),
  };
  if (context === 'static') return { ...(await exportTasks(base)), context };
  if (!options.createRuntime) throw new Error('exportBenchmarkTasks: the runtime context needs createRuntime');
  const { captureRuntimeStates } = await import('@junobench/runtime-context');
  const { sources } = await readTaskSources(options.set.instancesDir, options.set.ids);
  const kinds = options.kinds ?? ['detect', 'diagnose', 'repair'];
  // Diagnose tasks use the reproduced targets' states: capture only what the kinds exported need.
  const targets = planStateTargets(sources).filter(
    (t) => kinds.includes('detect') || (kinds.includes('diagnose') && t.notebook === 'reproduced.ipynb'),
  );
  const runtime = await options.createRuntime();
  let states;
  try {
    states = await captureRuntimeStates(targets, runtime, {
      ...(options.jobs ? { jobs: options.jobs } : {}),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    });
  } finally {
    await runtime.close();
  }
  const report = await exportTasks({ ...base, states });
  const uncaptured = [...states].filter(([, s]) => !s.captured).map(([key, s]) => ({ key, reason: s.reason ?? '' }));
  return { ...report, context, states: { captured: states.size - uncaptured.length, uncaptured } };
}
