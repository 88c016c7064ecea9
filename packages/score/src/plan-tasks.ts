import {
  CRASH_TYPES,
  JunoError,
  LIBRARY_NAMES,
  PIPELINE_STAGES,
  ROOT_CAUSES,
  compareCodePoints,
  createRng,
  sha256,
  stripAnsi,
  type DetectTask,
  type DiagnoseTask,
  type Labels,
  type NotebookDocument,
  type RepairExecution,
  type RepairTask,
  type Task,
  type TaskError,
  type TaskKind,
  type TaskVocabularies,
} from '@junobench/core';
import {
  DEFAULT_CELL_TIMEOUT_SECONDS,
  DEFAULT_TIMEOUT_SECONDS,
  listCodeCells,
  matchCells,
  mineNotebookCrashes,
  normalizeCell,
  normalizeEname,
  planExecution,
  stripComments,
  type CodeCell,
  type Notebook,
} from '@junobench/notebook';
import { renderDetectPrompt, renderDiagnosePrompt, renderRepairPrompt } from './render-prompt.js';
import type { TaskSource } from './read-task-sources.js';

export const TASK_KINDS: readonly TaskKind[] = ['detect', 'diagnose', 'repair'];
/** The default seed of task ids and order: published tasks files are made with it. */
export const DEFAULT_TASK_SEED = 'junobench-tasks-1';

/** What the scorer knows about a task and the tool does not. */
export type TaskKey = DetectKey | DiagnoseKey | RepairKey;

export interface DetectKey {
  kind: 'detect';
  id: string;
  instance: string;
  version: 'reproduced' | 'fixed';
  crashes: boolean;
  /** The exception class (module prefix removed) when the target crashes. */
  exception?: string;
  /** The crashing cell as the prompt numbers it (the target), null for none. */
  cell: number | null;
  /** The prompt number of the target cell. */
  target: number;
}

export interface DiagnoseKey {
  kind: 'diagnose';
  id: string;
  instance: string;
  labels: Labels;
}

export interface RepairKey {
  kind: 'repair';
  id: string;
  instance: string;
  source: TaskSource;
  /** The crashing notebook as given to the tool (error output included). */
  crashing: Notebook;
  crashCell: number;
  execution: RepairExecution;
}

export interface PlannedTasks {
  /** In file order: detect, diagnose, repair, each kind shuffled with the seed. */
  tasks: Task[];
  keys: Map<string, TaskKey>;
  /** Things worth knowing that do not stop the export (e.g. a detect pair that cannot be told apart). */
  warnings: string[];
}

export interface PlanTasksOptions {
  kinds?: readonly TaskKind[];
  seed?: string;
}

/**
 * The opaque id of a task: a keyed hash of (seed, kind, instance, version).
 * It names neither the instance (whose name gives its library away) nor the
 * version (which gives the detect answer away).
 */
export function hashTaskId(seed: string, kind: TaskKind, instance: string, version: string): string {
  return `${kind}-${sha256(`junobench-task\u0000${seed}\u0000${kind}\u0000${instance}\u0000${version}`).slice(0, 16)}`;
}

/**
 * Every task of the given kinds for the instances, with its answer key. Pure: same sources and seed → same tasks, same
 * order.
 */
export function planTasks(sources: readonly TaskSource[], options: PlanTasksOptions = {}): PlannedTasks {
  const kinds = options.kinds ?? TASK_KINDS;
  const seed = options.seed ?? DEFAULT_TASK_SEED;
  const keys = new Map<string, TaskKey>();
  const tasks: Task[] = [];
  const warnings: string[] = [];
  const sorted = [...sources].sort((a, b) => compareCodePoints(a.id, b.id));
  const vocabularies = planTaskVocabularies(sorted);
  for (const kind of TASK_KINDS) {
    if (!kinds.includes(kind)) continue;
    const planned: { task: Task; key: TaskKey }[] = [];
    for (const s of sorted) {
      if (kind === 'detect') {
        const pair = planDetectTasks(s, seed);
        if (
          pair[0].task.context.join('\n\u0000') === pair[1].task.context.join('\n\u0000') &&
          pair[0].task.target === pair[1].task.target
        ) {
          warnings.push(
            `${s.id}: its two detect tasks show the same code (the fix is not in a cell that runs before the crash cell): they cannot both be answered right`,
          );
        }
        planned.push(...pair);
      } else if (kind === 'diagnose') planned.push(planDiagnoseTask(s, seed, vocabularies));
      else planned.push(planRepairTask(s, seed));
    }
    for (const p of createRng(`${seed}\u0000${kind}`).shuffle(planned)) {
      tasks.push(p.task);
      keys.set(p.task.id, p.key);
    }
  }
  return { tasks, keys, warnings };
}

function planDetectTasks(
  s: TaskSource,
  seed: string,
): [{ task: DetectTask; key: DetectKey }, { task: DetectTask; key: DetectKey }] {
  const { order, cells } = s.instance.execution;
  const reproducedCells = listCodeCells(s.reproduced);
  const fixedCells = listCodeCells(s.fixed);
  const crashCell = s.instance.crash.cell;
  // The fixed notebook's cell that corresponds to the crash cell: the same cell, edited or moved.
  const matched = matchCells(
    reproducedCells.map((c) => normalizeCell(c.source)),
    fixedCells.map((c) => normalizeCell(c.source)),
  ).counterpart[crashCell];
  const fixedTarget = matched ?? (crashCell < fixedCells.length ? crashCell : null);
  if (fixedTarget === null) {
    throw new JunoError(
      'E_INSTANCE',
      `${s.id}: fixed.ipynb has no cell that corresponds to the crash cell (code cell ${crashCell} of reproduced.ipynb)`,
      {
        location: { file: `${s.dir}/fixed.ipynb` },
        hint: 'keep the crash cell (edited as needed) in the fixed notebook',
      },
    );
  }
  const make = (
    version: 'reproduced' | 'fixed',
    nb: Notebook,
    target: number,
  ): { task: DetectTask; key: DetectKey } => {
    const plan = planExecution(nb, order, cells);
    const at = plan.lastIndexOf(target);
    if (at < 0) {
      throw new JunoError(
        'E_INSTANCE',
        `${s.id}: ${version}.ipynb never executes code cell ${target}, the ${version === 'reproduced' ? 'crash cell' : "crash cell's counterpart"}`,
        {
          location: { file: `${s.dir}/${version}.ipynb` },
          hint:
            order === 'execution-count' ? 'give the cell an execution count' : 'check execution.cells in instance.json',
        },
      );
    }
    const code = listCodeCells(nb);
    const context = plan
      .slice(0, at)
      .map((i) => stripComments(code[i]!.source))
      .filter((c) => c.trim() !== '');
    const targetCode = stripComments(code[target]!.source);
    const id = hashTaskId(seed, 'detect', s.id, version);
    const crashes = version === 'reproduced';
    const task: DetectTask = {
      id,
      task: 'detect',
      context,
      target: targetCode,
      prompt: renderDetectPrompt(context, targetCode),
    };
    const key: DetectKey = {
      kind: 'detect',
      id,
      instance: s.id,
      version,
      crashes,
      ...(crashes ? { exception: normalizeEname(s.instance.crash.ename) } : {}),
      cell: crashes ? context.length + 1 : null,
      target: context.length + 1,
    };
    return { task, key };
  };
  return [make('reproduced', s.reproduced, crashCell), make('fixed', s.fixed, fixedTarget)];
}

/**
 * The exception class a detect answer names: the class alone (`KeyError`), with its module
 * (`pandas.errors.ParserError`), or as Python prints it, class then message (`KeyError: 'income'`,
 * `pandas.errors.ParserError: Error tokenizing data. C error: …`) — the message is not scored. The class is
 * taken only from a leading dotted name followed by the end or a colon: anything else (`a KeyError`,
 * `KeyError('x')`) is kept whole, and so names no class.
 */
export function parseAnswerException(answer: string): string {
  const t = answer.trim();
  const m = /^([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\s*(?::[\s\S]*)?$/.exec(t);
  return m ? normalizeEname(m[1]!) : t;
}

/**
 * The error output shown to tools: the one saved in original.ipynb for the
 * labelled exception (the crash as the notebook's author saw it), else one
 * made from instance.json's expected crash.
 */
export function planTaskError(s: TaskSource): TaskError {
  const { crash } = s.instance;
  const want = normalizeEname(crash.ename);
  const saved = s.original ? mineNotebookCrashes(s.original).find((c) => normalizeEname(c.ename) === want) : undefined;
  if (saved && saved.traceback.length > 0) {
    return { cell: crash.cell, ename: saved.ename, evalue: saved.evalue, traceback: saved.traceback.map(stripAnsi) };
  }
  const evalue = crash.match === 'regex' ? '' : crash.evalue;
  return { cell: crash.cell, ename: crash.ename, evalue, traceback: [`${crash.ename}: ${evalue}`] };
}

/**
 * The crashing notebook as tools see it: reproduced.ipynb with every output
 * removed but the error output of the crash cell. Execution counts stay:
 * for out-of-order crashes they are the evidence. Metadata goes, but the
 * kernel's: a notebook collected from Kaggle carries its data sources' ids
 * and per-cell `_cell_guid`/`_uuid`, which identify the published notebook
 * (and its later, fixed versions) without helping to diagnose or repair it.
 */
export function planCrashingNotebook(s: TaskSource, error: TaskError): Notebook {
  const nb = structuredClone(s.reproduced);
  const { kernelspec, language_info } = nb.metadata as Record<string, unknown>;
  nb.metadata = {
    ...(kernelspec !== undefined ? { kernelspec } : {}),
    ...(language_info !== undefined ? { language_info } : {}),
  } as Notebook['metadata'];
  let code = 0;
  for (const cell of nb.cells) {
    cell.metadata = {};
    if (cell.cell_type !== 'code') continue;
    const c = cell as CodeCell;
    c.outputs =
      code === error.cell
        ? [{ output_type: 'error', ename: error.ename, evalue: error.evalue, traceback: error.traceback }]
        : [];
    code++;
  }
  return nb;
}

export const TASK_VOCABULARIES: TaskVocabularies = {
  library: [...LIBRARY_NAMES],
  crashType: [...CRASH_TYPES],
  rootCause: [...ROOT_CAUSES],
  pipelineStage: [...PIPELINE_STAGES],
};

/**
 * The vocabularies a diagnose task lists: JunoBench's, plus any library outside
 * the canonical list that an instance being exported is labelled with (a label
 * may name one by its package name), so a tool choosing from the list can give
 * every true answer. The same list for every task of an export.
 */
export function planTaskVocabularies(sources: readonly TaskSource[]): TaskVocabularies {
  const canonical = new Set<string>(TASK_VOCABULARIES.library);
  const others = [...new Set(sources.map((s) => s.instance.labels.library).filter((l) => !canonical.has(l)))].sort(
    compareCodePoints,
  );
  return others.length === 0
    ? TASK_VOCABULARIES
    : { ...TASK_VOCABULARIES, library: [...TASK_VOCABULARIES.library, ...others] };
}

function planDiagnoseTask(
  s: TaskSource,
  seed: string,
  vocabularies: TaskVocabularies,
): { task: DiagnoseTask; key: DiagnoseKey } {
  const error = planTaskError(s);
  const nb = planCrashingNotebook(s, error);
  const id = hashTaskId(seed, 'diagnose', s.id, 'reproduced');
  const task: DiagnoseTask = {
    id,
    task: 'diagnose',
    notebook: nb as unknown as NotebookDocument,
    error,
    vocabularies,
    prompt: renderDiagnosePrompt(nb, error, vocabularies),
  };
  return { task, key: { kind: 'diagnose', id, instance: s.id, labels: s.instance.labels } };
}

export function planRepairExecution(s: TaskSource): RepairExecution {
  const ex = s.instance.execution;
  return {
    order: ex.order,
    ...(ex.cells && ex.cells.length > 0 ? { cells: [...ex.cells] } : {}),
    cellTimeoutSeconds: ex.cellTimeoutSeconds ?? DEFAULT_CELL_TIMEOUT_SECONDS,
    timeoutSeconds: ex.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS,
  };
}

function planRepairTask(s: TaskSource, seed: string): { task: RepairTask; key: RepairKey } {
  const error = planTaskError(s);
  const nb = planCrashingNotebook(s, error);
  const execution = planRepairExecution(s);
  const id = hashTaskId(seed, 'repair', s.id, 'reproduced');
  const task: RepairTask = {
    id,
    task: 'repair',
    notebook: nb as unknown as NotebookDocument,
    error,
    execution,
    files: [...s.files],
    prompt: renderRepairPrompt(nb, error, execution, s.files),
  };
  return {
    task,
    key: { kind: 'repair', id, instance: s.id, source: s, crashing: nb, crashCell: s.instance.crash.cell, execution },
  };
}
