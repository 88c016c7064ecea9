import type { CrashType, DetectAnswer, DiagnoseAnswer, DiagnoseTask, NotebookDocument, PipelineStage, RepairAnswer, RootCause, Task, TaskKind } from '@junobench/core';
import { mineImports, type Notebook } from '@junobench/notebook';
import { predictLibrary } from '@junobench/suggest';
import { normalizeEname, type TaskKey } from './plan-tasks.js';

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
        return { task: 'detect', id, answer: { crashes: key.crashes, cell: key.cell, ...(key.exception ? { exception: key.exception } : {}) } };
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
 * The most frequent classes of the published JunoBench (111 crashes): the
 * heuristic's answer where it has no better signal. Taken from the paper's
 * counts, not from the embedded instances, so the baseline learns nothing
 * from the tasks it is scored on.
 */
export const JUNOBENCH_MAJORITY = {
  exception: 'ValueError',
  crashType: 'invalid argument' as CrashType,
  rootCause: 'API misuse' as RootCause,
  pipelineStage: 'training' as PipelineStage,
};

const SHAPE = /shape|dimension|size mismatch|mat1 and mat2|must match the size|expected input|input_shape|incompatible/i;

/**
 * The crash type from the exception alone (class, then a few message cues):
 * how JunoBench's refined exception types mostly follow the raised class.
 */
export function planCrashType(ename: string, evalue: string): CrashType {
  const cls = normalizeEname(ename);
  switch (cls) {
    case 'KeyError':
      return 'key error';
    case 'IndexError':
    case 'AxisError':
      return 'index error';
    case 'AttributeError':
      return 'attribute error';
    case 'NameError':
      return 'variable not found';
    case 'ModuleNotFoundError':
    case 'ImportError':
      return 'module not found';
    case 'FileNotFoundError':
    case 'OSError':
    case 'IOError':
    case 'PermissionError':
      return 'io error';
    case 'NotFittedError':
      return 'model initialization error';
    case 'TypeError':
      return 'invalid argument';
    case 'RuntimeError':
    case 'InvalidArgumentError':
      return SHAPE.test(evalue) ? 'tensor shape mismatch' : cls === 'RuntimeError' ? 'runtime error' : 'invalid argument';
    case 'ValueError':
      if (/broadcast/i.test(evalue)) return 'unsupported broadcast';
      if (/feature names?/i.test(evalue)) return 'feature name mismatch';
      if (/\bNaN\b|infinity|could not convert|non-finite|missing values/i.test(evalue)) return 'data value violation';
      if (SHAPE.test(evalue)) return 'tensor shape mismatch';
      return 'value error';
    default:
      return JUNOBENCH_MAJORITY.crashType;
  }
}

/**
 * The heuristic baseline: library from the library-cause estimator (`pool
 * libcause`, @junobench/suggest), crash type from the exception, root cause
 * and pipeline stage the most frequent class; detect: the target crashes
 * (the two classes are equally frequent by construction) with the most
 * frequent exception; repair: none (no line: a missing prediction is wrong).
 */
export function planHeuristicAnswers(tasks: readonly Task[]): PredictionLine[] {
  const out: PredictionLine[] = [];
  for (const t of tasks) {
    if (t.task === 'detect') out.push({ task: 'detect', id: t.id, answer: { crashes: true, exception: JUNOBENCH_MAJORITY.exception } });
    else if (t.task === 'diagnose') out.push({ task: 'diagnose', id: t.id, answer: planHeuristicDiagnosis(t) });
  }
  return out;
}

export function planHeuristicDiagnosis(t: DiagnoseTask): DiagnoseAnswer {
  const { library } = predictLibrary({
    ename: t.error.ename,
    evalue: t.error.evalue,
    traceback: t.error.traceback,
    imports: mineImports(t.notebook as unknown as Notebook),
  });
  return {
    library,
    crashType: planCrashType(t.error.ename, t.error.evalue),
    rootCause: JUNOBENCH_MAJORITY.rootCause,
    pipelineStage: JUNOBENCH_MAJORITY.pipelineStage,
  };
}
