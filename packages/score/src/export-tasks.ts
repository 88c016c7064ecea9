import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import {
  JunoError,
  copyInstanceTree,
  formatJson,
  stableStringify,
  writeFileAtomic,
  type RuntimeState,
  type Task,
  type TaskKind,
} from '@junobench/core';
import { DEFAULT_TASK_SEED, TASK_KINDS, planTasks, type RepairKey } from './plan-tasks.js';
import { isAnswerFile, readTaskSources, type SkippedInstance } from './read-task-sources.js';

export interface ExportTasksOptions {
  instancesDir: string;
  /** The instances to export (the benchmark's set); default every instance of the folder that is not a draft. */
  ids?: readonly string[];
  /** `--context runtime`: the state before each detect target, keyed by stateKey (planStateTargets says what to run). */
  states?: ReadonlyMap<string, RuntimeState>;
  output: string;
  kinds?: readonly TaskKind[];
  seed?: string;
  /**
   * Also write, per repair task, a folder `<workspace>/<task id>/` holding the
   * instance's data files and the crashing notebook (`notebook.ipynb`), for
   * tools that run notebooks while repairing them.
   */
  workspace?: string;
}

export interface ExportTasksReport {
  output: string;
  counts: Record<TaskKind, number>;
  instances: number;
  skipped: SkippedInstance[];
  warnings: string[];
  workspace?: string;
}

/** Serialise tasks as JSONL with sorted keys: equal tasks give equal bytes. */
export function formatTasksJsonl(tasks: readonly Task[]): string {
  return tasks.map((t) => `${stableStringify(t)}\n`).join('');
}

/** `junobench tasks export`: the tasks of the instances, one per line, shuffled with the seed. */
export async function exportTasks(options: ExportTasksOptions): Promise<ExportTasksReport> {
  const kinds = options.kinds ?? TASK_KINDS;
  const { sources, skipped } = await readTaskSources(options.instancesDir, options.ids);
  if (sources.length === 0) {
    throw new JunoError('E_INPUT_EMPTY', `no instance to make tasks from in ${options.instancesDir}`, {
      hint:
        skipped.length > 0
          ? `every instance is a draft: ${skipped.map((s) => s.instance).join(', ')}`
          : 'pass --instances <dir> with one sub-folder per instance',
    });
  }
  const planned = planTasks(sources, {
    kinds,
    seed: options.seed ?? DEFAULT_TASK_SEED,
    ...(options.states ? { states: options.states } : {}),
  });
  if (options.workspace)
    await writeWorkspace(
      options.workspace,
      [...planned.keys.values()].filter((k): k is RepairKey => k.kind === 'repair'),
    );
  await writeFileAtomic(options.output, formatTasksJsonl(planned.tasks));
  const counts = { detect: 0, diagnose: 0, repair: 0 } as Record<TaskKind, number>;
  for (const t of planned.tasks) counts[t.task]++;
  return {
    output: options.output,
    counts,
    instances: sources.length,
    skipped,
    warnings: planned.warnings,
    ...(options.workspace ? { workspace: options.workspace } : {}),
  };
}

async function writeWorkspace(root: string, keys: readonly RepairKey[]): Promise<void> {
  const st = await stat(root).catch(() => undefined);
  if (st && !st.isDirectory()) {
    // Else the first mkdir inside it failed with ENOTDIR: an internal error, after the tasks were planned.
    throw new JunoError('E_USAGE', 'the workspace is a file, not a folder', {
      location: { file: root },
      hint: 'give a new or empty folder to --workspace (repair workspaces are written fresh)',
    });
  }
  let existing: string[] = [];
  try {
    existing = await readdir(root);
  } catch {
    // a new folder
  }
  if (existing.length > 0) {
    throw new JunoError('E_USAGE', 'the workspace folder is not empty', {
      location: { file: root },
      hint: 'give a new or empty folder to --workspace (repair workspaces are written fresh)',
    });
  }
  for (const k of keys) {
    const dir = path.join(root, k.id);
    await copyInstanceTree(k.source.dir, dir, { ignore: isAnswerFile });
    await writeFileAtomic(path.join(dir, 'notebook.ipynb'), formatJson(k.crashing));
  }
}
