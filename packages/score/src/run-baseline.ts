import { readJsonlAll, stableStringify, writeFileAtomic, type Task, type TaskKind } from '@junobench/core';
import { planHeuristicAnswers, planOracleAnswers, type PredictionLine } from './plan-baselines.js';
import { DEFAULT_TASK_SEED, planTasks } from './plan-tasks.js';
import { readTaskSources } from './read-task-sources.js';
import { readTaskSet } from './score-predictions.js';

export const BASELINES = ['oracle', 'heuristic'] as const;
export type BaselineName = (typeof BASELINES)[number];

export interface RunBaselineOptions {
  baseline: BaselineName;
  tasks: string;
  output: string;
  /** The oracle reads the answers from the instances the tasks were exported from. */
  instancesDir: string;
  /**
   * The benchmark's instances (the set every command uses): the tasks must be theirs. Default: every instance of the
   * folder that is not a draft, and the heuristic reads the tasks file alone.
   */
  ids?: readonly string[];
  seed?: string;
}

export interface BaselineReport {
  output: string;
  /** Prediction lines written per task kind. */
  counts: Record<TaskKind, number>;
  tasks: number;
}

export function formatPredictionsJsonl(lines: readonly PredictionLine[]): string {
  return lines.map((l) => `${stableStringify(l)}\n`).join('');
}

/** `junobench baseline oracle|heuristic`: predictions for a tasks file, written as JSONL. */
export async function runBaseline(options: RunBaselineOptions): Promise<BaselineReport> {
  let lines: PredictionLine[] = [];
  let tasks = 0;
  if (options.baseline === 'oracle' || options.ids) {
    // The tasks are checked against the instances: a tasks file of another benchmark is refused, naming its line.
    const { sources } = await readTaskSources(options.instancesDir, options.ids);
    const planned = planTasks(sources, { seed: options.seed ?? DEFAULT_TASK_SEED });
    const set = await readTaskSet(options.tasks, planned, options);
    tasks = set.ids.length;
    if (options.baseline === 'oracle') lines = planOracleAnswers(set.ids, set.keys);
  }
  if (options.baseline === 'heuristic') {
    const all = await readJsonlAll<Task>(options.tasks, { schema: 'task' });
    lines = planHeuristicAnswers(all);
    tasks = all.length;
  }
  await writeFileAtomic(options.output, formatPredictionsJsonl(lines));
  const counts = { detect: 0, diagnose: 0, repair: 0 } as Record<TaskKind, number>;
  for (const l of lines) counts[l.task]++;
  return { output: options.output, counts, tasks };
}
