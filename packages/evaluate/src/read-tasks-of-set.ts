import { readJsonlAll, type Task } from '@junobench/core';
import type { InstanceSet } from './open-instance-set.js';

/**
 * A tasks file's tasks, in file order, as the tool is given them (prompts included, as exported: with the runtime
 * context when it was exported with it), each checked to be a task of the set's instances with the seed (a tasks file
 * of another benchmark, or another seed, is refused naming its line).
 */
export async function readTasksOfSet(
  file: string,
  set: Pick<InstanceSet, 'instancesDir' | 'ids'>,
  seed?: string,
): Promise<Task[]> {
  const { readTaskSources, planTasks, readTaskSet, DEFAULT_TASK_SEED } = await import('@junobench/score');
  const { sources } = await readTaskSources(set.instancesDir, set.ids);
  const planned = planTasks(sources, { seed: seed ?? DEFAULT_TASK_SEED });
  await readTaskSet(file, planned, { instancesDir: set.instancesDir, ...(seed ? { seed } : {}) });
  return readJsonlAll<Task>(file, { schema: 'task' });
}
