import type {
  DetectAnswer,
  DiagnoseAnswer,
  DiagnoseTask,
  NotebookDocument,
  RepairAnswer,
  Task,
  TaskKind,
} from '@junobench/core';
import type { Notebook } from '@junobench/notebook';
import { notebookCrashInput, suggestLabels } from '@junobench/suggest';
import type { TaskKey } from './plan-tasks.js';

/** One line of a predictions file (schemas/prediction.schema.json). */
export interface PredictionLine {
  task: TaskKind;
  id: string;
  attempt?: number;
  answer: DetectAnswer | DiagnoseAnswer | RepairAnswer;
}

/**
 * The oracle: answers from the labels and the fixed notebooks. It must score
 * 100% on every task it can be scored on — the check that the tasks, the
 * answer keys and the harness agree with each other.
 */
export function planOracleAnswers(ids: readonly string[], keys: ReadonlyMap<string, TaskKey>): PredictionLine[] {
  return ids.map((id) => {
    const key = keys.get(id)!;
    switch (key.kind) {
      case 'detect':
        return {
          task: 'detect',
          id,
          answer: { crashes: key.crashes, cell: key.cell, ...(key.exception ? { exception: key.exception } : {}) },
        };
      case 'diagnose': {
        const { library, crashType, rootCause, pipelineStage } = key.labels;
        return { task: 'diagnose', id, answer: { library, crashType, rootCause, pipelineStage } };
      }
      case 'repair':
        return { task: 'repair', id, answer: { notebook: key.source.fixed as unknown as NotebookDocument } };
    }
  });
}

/**
 * The most frequent exception of the published JunoBench (111 crashes): the
 * heuristic's detect answer. Taken from the paper's counts, not from the
 * embedded instances, so the baseline learns nothing from the tasks it is
 * scored on.
 */
export const JUNOBENCH_MAJORITY = { exception: 'ValueError' };

/**
 * The heuristic baseline. diagnose: the label suggestions of `labels suggest`
 * (@junobench/suggest) on what the task gives — the notebook with its cells
 * and execution counts, the error and its traceback — so the baseline is the
 * toolchain's own estimator, measured like any tool; detect: the target
 * crashes (the two classes are equally frequent by construction) with the
 * most frequent exception; repair: none (no line: a missing prediction is wrong).
 */
export function planHeuristicAnswers(tasks: readonly Task[]): PredictionLine[] {
  const out: PredictionLine[] = [];
  for (const t of tasks) {
    if (t.task === 'detect')
      out.push({ task: 'detect', id: t.id, answer: { crashes: true, exception: JUNOBENCH_MAJORITY.exception } });
    else if (t.task === 'diagnose') out.push({ task: 'diagnose', id: t.id, answer: planHeuristicDiagnosis(t) });
  }
  return out;
}

export function planHeuristicDiagnosis(t: DiagnoseTask): DiagnoseAnswer {
  const s = suggestLabels(
    notebookCrashInput(t.notebook as unknown as Notebook, {
      ename: t.error.ename,
      evalue: t.error.evalue,
      traceback: t.error.traceback,
      codeCell: t.error.cell,
    }),
  );
  return {
    library: s.library.value,
    crashType: s.crashType.value,
    rootCause: s.rootCause.value,
    pipelineStage: s.pipelineStage.value,
  };
}
