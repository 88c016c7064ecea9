import { JunoError, readJsonlAll, type Task } from '@junobench/core';
import type { Notebook } from '@junobench/notebook';
import {
  DEFAULT_TASK_SEED,
  planRepairExecution,
  planTasks,
  readTaskSet,
  readTaskSources,
  type TaskSource,
} from '@junobench/score';
import { planDetectNotebook, planReplay, type HarnessTask } from './harness-task.js';

export interface OpenHarnessTasksOptions {
  /** The tasks file (`junobench tasks export`). */
  tasks: string;
  /** The benchmark's instances the tasks were exported from. */
  instancesDir: string;
  ids?: readonly string[];
  seed?: string;
}

/**
 * The tasks of a tasks file as sessions open them, in file order: each one checked to be a task of the instances (a
 * tasks file of another benchmark or seed is refused naming its line), with the instance folder its data comes from.
 */
export async function openHarnessTasks(options: OpenHarnessTasksOptions): Promise<HarnessTask[]> {
  const { sources } = await readTaskSources(options.instancesDir, options.ids);
  const planned = planTasks(sources, { seed: options.seed ?? DEFAULT_TASK_SEED });
  const set = await readTaskSet(options.tasks, planned, {
    instancesDir: options.instancesDir,
    ...(options.seed ? { seed: options.seed } : {}),
  });
  const byInstance = new Map(sources.map((s) => [s.id, s]));
  // As the file gives them (prompts, and the runtime context when it was exported with it).
  const tasks = new Map((await readJsonlAll<Task>(options.tasks, { schema: 'task' })).map((t) => [t.id, t]));
  return set.ids.map((id) => {
    const key = set.keys.get(id)!;
    const source = byInstance.get(key.instance)!;
    return planHarnessTask(tasks.get(id)!, source);
  });
}

/** One task's session plan, from the task and its instance (read for the data folder and the limits only). */
export function planHarnessTask(task: Task, source: TaskSource): HarnessTask {
  const ex = planRepairExecution(source);
  const common = {
    task,
    instanceDir: source.dir,
    cellTimeoutSeconds: ex.cellTimeoutSeconds,
    timeoutSeconds: ex.timeoutSeconds,
    prewarm: [...source.instance.requires],
  };
  if (task.task === 'detect') {
    const notebook = planDetectNotebook(task.context, task.target);
    return { ...common, notebook, replay: task.context.map((_, i) => i), target: task.context.length };
  }
  const notebook = structuredClone(task.notebook) as unknown as Notebook;
  const target = task.error.cell;
  if (!Number.isInteger(target) || target < 0)
    throw new JunoError('E_INPUT_ROW', `task ${task.id}: error.cell ${target} is not a code-cell index`);
  return { ...common, notebook, replay: planReplay(notebook, ex.order, ex.cells, target), target };
}
