import type { Task } from '@junobench/core';
import { listCodeCells, planExecution, type CodeCell, type ExecutionOrder, type Notebook } from '@junobench/notebook';

/**
 * What a session needs of one task, and nothing of its answer: the notebook the agent sees, the folder its data is
 * copied from (never the answer files), the cells run before the target and the execution limits.
 */
export interface HarnessTask {
  /** The task as the tasks file gives it to the tool. */
  task: Task;
  /** The instance folder the data files are copied from (its notebooks, instance.json and checks.py never are). */
  instanceDir: string;
  /** The notebook the agent reads and edits: the crashing notebook (repair, diagnose) or context + target (detect). */
  notebook: Notebook;
  /** Code-cell indices run before the target, in the replay order. */
  replay: number[];
  /** The target's code-cell index: the crash cell (repair, diagnose), the cell to judge (detect; never run). */
  target: number;
  cellTimeoutSeconds: number;
  timeoutSeconds: number;
  /** Modules imported silently into each fresh kernel (the instance's requirements). */
  prewarm: string[];
}

/** The cells of an execution list that run before the first run of `target`. */
export function planReplay(
  nb: Notebook,
  order: ExecutionOrder,
  explicit: readonly number[] | undefined,
  target: number,
): number[] {
  const all = planExecution(nb, order, explicit);
  const at = all.indexOf(target);
  return at < 0 ? all.filter((i) => i < target) : all.slice(0, at);
}

/** A detect task as a notebook: its context cells, then the target (in the file order the prompt numbers them). */
export function planDetectNotebook(context: readonly string[], target: string): Notebook {
  const cell = (source: string): CodeCell => ({
    cell_type: 'code',
    source,
    execution_count: null,
    metadata: {},
    outputs: [],
  });
  return {
    nbformat: 4,
    nbformat_minor: 5,
    metadata: { kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' } },
    cells: [...context.map(cell), cell(target)],
  };
}

/** The code cells' sources, in file order. */
export function listSources(nb: Notebook): string[] {
  return listCodeCells(nb).map((c) => c.source);
}
