import {
  JunoError,
  hashFile,
  quoteShort,
  readJsonl,
  readTrajectories,
  stableStringify,
  type BenchmarkIdentity,
  type ProgressListener,
  type RepairAnswer,
  type RuntimeIdentity,
  type Scorecard,
  type Task,
  type TaskKind,
} from '@junobench/core';
import type { Notebook } from '@junobench/notebook';
import type { Runtime } from '@junobench/runtime';
import { planChecksProbe, readChecksProbe, readHarnessSource } from '@junobench/checks';
import { checkRepair, judgeRepair, type RepairVerdict } from './check-repair.js';
import { summarizeTrajectories } from './summarize-trajectories.js';
import { executeRepairs, listRequiredModules, planRepairExclusions, type RepairRun } from './execute-repairs.js';
import {
  DEFAULT_TASK_SEED,
  TASK_KINDS,
  planTasks,
  type DetectKey,
  type DiagnoseKey,
  type PlannedTasks,
  type RepairKey,
  type TaskKey,
} from './plan-tasks.js';
import {
  predictionProblemsError,
  readPredictions,
  type ParsedPredictions,
  type PredictionProblem,
} from './read-predictions.js';
import { readTaskSources } from './read-task-sources.js';
import { planAttempts, repairSlot, scoreDetect, scoreDiagnose, scoreRepair } from './score-answers.js';

/** The tasks being scored, in tasks-file order, with their keys. */
export interface TaskSet {
  ids: string[];
  keys: Map<string, TaskKey>;
  instances: number;
  /** runtime: the detect and diagnose tasks carry the state before their target (`tasks export --context runtime`). */
  context?: 'static' | 'runtime' | 'mixed';
}

export interface ScoreRepairOptions {
  /** The runtime repairs execute in; created only when there are repair tasks. */
  createRuntime: () => Promise<Runtime>;
  jobs?: number;
  cellTimeoutSeconds?: number;
  timeoutSeconds?: number;
  scratchRoot?: string;
  signal?: AbortSignal;
  /**
   * Called before asking the runtime which of the modules the repair tasks need it has (importing them all takes a
   * while, tens of seconds for a local Python with torch): e.g. to say what the wait is.
   */
  onCheckRuntime?: (runtime: Runtime, modules: readonly string[]) => void;
  /** Called once before repaired notebooks are executed (not when none is), e.g. to say where they run. */
  onExecute?: (runtime: Runtime, runs: number) => void;
}

export interface ScoreResult {
  scorecard: Scorecard;
  /**
   * Wall-clock time of executing the repairs (0 when none ran); kept out of the scorecard so that it stays
   * reproducible.
   */
  repairMs: number;
  /** Repaired notebooks executed. */
  repairRuns: number;
}

/**
 * Score parsed predictions on a task set: detect and diagnose from the
 * answers, repair by executing each repaired notebook that passes the static
 * check (checkRepair) through the runtime and judging its run (judgeRepair).
 */
export async function scorePredictions(
  set: TaskSet,
  parsed: ParsedPredictions,
  repair: ScoreRepairOptions,
  onProgress?: ProgressListener,
): Promise<ScoreResult> {
  const keysOf = <K extends TaskKey>(kind: K['kind']) =>
    set.ids.map((id) => set.keys.get(id)!).filter((k): k is K => k.kind === kind);
  const byKind = (kind: TaskKind) => parsed.predictions.filter((p) => p.task === kind);
  const leftOut = (kind: TaskKind) =>
    (parsed.problemAttempts ?? []).filter((p) => p.task === kind).map((p) => p.attempt);
  const detectKeys = keysOf<DetectKey>('detect');
  const diagnoseKeys = keysOf<DiagnoseKey>('diagnose');
  const repairKeys = keysOf<RepairKey>('repair');
  const scorecard: Scorecard = {
    tasks: {
      detect: detectKeys.length,
      diagnose: diagnoseKeys.length,
      repair: repairKeys.length,
      instances: set.instances,
    },
    predictions: { lines: parsed.lines, scored: parsed.predictions.length, problems: parsed.problems },
  };
  if (detectKeys.length > 0) scorecard.detect = scoreDetect(detectKeys, byKind('detect'), leftOut('detect'));
  if (diagnoseKeys.length > 0)
    scorecard.diagnose = scoreDiagnose(diagnoseKeys, byKind('diagnose'), leftOut('diagnose'));
  let repairMs = 0;
  let repairRuns = 0;
  if (repairKeys.length > 0) {
    const predictions = byKind('repair');
    const attempts = planAttempts(predictions, leftOut('repair'));
    const runtime = await repair.createRuntime();
    try {
      // A container, or the local runtime's bubblewrap sandbox; the local one with --unsandboxed runs with the
      // user's rights.
      scorecard.runtime = { kind: runtime.kind, sandboxed: runtime.sandboxed ?? runtime.kind === 'docker' };
      repair.onCheckRuntime?.(runtime, listRequiredModules(repairKeys));
      const excluded = await planRepairExclusions(repairKeys, runtime);
      const verdicts = new Map<string, RepairVerdict>();
      const runs: RepairRun[] = [];
      const harness = await readHarnessSource();
      const checks = new Map<string, ReturnType<typeof checkRepair>>();
      for (const p of predictions) {
        const key = set.keys.get(p.id) as RepairKey;
        if (excluded.has(key.id)) continue;
        const slot = repairSlot(key.id, p.attempt);
        const check = checkRepair(key.crashing, buildRepairedNotebook(p.answer as RepairAnswer, key), key.execution);
        checks.set(slot, check);
        if (check.failure) verdicts.set(slot, judgeRepair(check, key.crashCell));
        else
          runs.push({
            slot,
            attempt: p.attempt,
            key,
            notebook: check.notebook!,
            plan: check.plan,
            // Every repair runs with the harness: evidence of hiding for all, the checks where the instance has them.
            checks: planChecksProbe(harness, {
              ename: key.source.instance.crash.ename,
              requires: key.source.instance.requires,
              ...(key.source.checks ? { checks: key.source.checks.source } : {}),
            }),
          });
      }
      // A line left out (--lenient) is a missing answer; say which line and why, not "no prediction for this task".
      const answered = new Set(predictions.map((p) => repairSlot(p.id, p.attempt)));
      for (const left of parsed.problemAttempts ?? []) {
        const slot = left.id === undefined ? undefined : repairSlot(left.id, left.attempt);
        if (
          left.task !== 'repair' ||
          slot === undefined ||
          !set.keys.has(left.id!) ||
          answered.has(slot) ||
          verdicts.has(slot)
        )
          continue;
        verdicts.set(slot, {
          resolved: false,
          outcome: 'no-prediction',
          reason: `the answer on line ${left.line} was left out (--lenient): ${left.message}`,
        });
      }
      if (runs.length > 0) repair.onExecute?.(runtime, runs.length);
      const started = Date.now();
      const results = await executeRepairs(runs, {
        runtime,
        ...(repair.jobs ? { jobs: repair.jobs } : {}),
        ...(repair.cellTimeoutSeconds ? { cellTimeoutSeconds: repair.cellTimeoutSeconds } : {}),
        ...(repair.timeoutSeconds ? { timeoutSeconds: repair.timeoutSeconds } : {}),
        ...(repair.scratchRoot ? { scratchRoot: repair.scratchRoot } : {}),
        ...(repair.signal ? { signal: repair.signal } : {}),
        ...(onProgress ? { onProgress } : {}),
      });
      repairMs = runs.length > 0 ? Date.now() - started : 0;
      repairRuns = runs.length;
      for (const r of runs) {
        const result = results.get(r.slot);
        const harnessSaid = readChecksProbe(result, r.checks!.nonce, r.plan, r.key.source.checks?.checks ?? []);
        verdicts.set(r.slot, judgeRepair(checks.get(r.slot)!, r.key.crashCell, result, harnessSaid));
      }
      scorecard.repair = scoreRepair(repairKeys, attempts, verdicts, excluded);
    } finally {
      await runtime.close();
    }
  }
  return { scorecard, repairMs, repairRuns };
}

/**
 * The repaired notebook of an answer: the notebook itself, or one built from
 * a list of code cells (in the order they should run; for execution-count
 * instances they get counts 1, 2, … so that they run in that order).
 */
export function buildRepairedNotebook(answer: RepairAnswer, key: Pick<RepairKey, 'crashing' | 'execution'>): unknown {
  if (answer.notebook) return answer.notebook;
  const counted = key.execution.order === 'execution-count';
  const nb: Notebook = {
    nbformat: 4,
    nbformat_minor: 4,
    metadata: key.crashing.metadata,
    // A cell may be a list of lines, as nbformat (and every task notebook) writes `source`: joined as nbformat joins
    // them.
    cells: (answer.cells ?? []).map((source, i) => ({
      cell_type: 'code',
      metadata: {},
      source: typeof source === 'string' ? source : source.join(''),
      execution_count: counted ? i + 1 : null,
      outputs: [],
    })),
  };
  return nb;
}

export interface RunScoreOptions {
  predictions: string;
  /** The tasks file the predictions answer; default: every task of the instances, of the kinds the predictions use. */
  tasks?: string;
  instancesDir: string;
  /** The benchmark's instances (the set every command uses); default every instance of the folder but drafts. */
  ids?: readonly string[];
  /** Recorded in the scorecard, with the predictions' and tasks' sha256, the seed and the context. */
  provenance?: { tool?: string; benchmark: BenchmarkIdentity; junobench: string };
  seed?: string;
  /** Score the lines that can be scored and report the others, instead of failing (exit 2). */
  lenient?: boolean;
  repair: ScoreRepairOptions;
  onProgress?: ProgressListener;
  /**
   * Called with the lines left out (--lenient) as soon as the predictions are read, before any repair runs: a user
   * learns that lines were refused now, not after minutes of repairs.
   */
  onLeftOut?: (problems: readonly PredictionProblem[]) => void;
  /** The trajectories of the sessions that wrote the predictions (`serve`): their calls and time go in the scorecard. */
  trajectories?: string;
}

/** `junobench score`: read the instances, the tasks and the predictions, and score. */
export async function runScore(options: RunScoreOptions): Promise<ScoreResult> {
  const { sources } = await readTaskSources(options.instancesDir, options.ids);
  const seed = options.seed ?? DEFAULT_TASK_SEED;
  const planned = planTasks(sources, { seed });
  const set = options.tasks ? await readTaskSet(options.tasks, planned, options) : undefined;
  const parsed = await readPredictions(options.predictions, set ? set.keys : planned.keys);
  if (parsed.problems.length > 0 && !options.lenient)
    throw predictionProblemsError(options.predictions, parsed.problems, parsed.lines);
  if (parsed.problems.length > 0) options.onLeftOut?.(parsed.problems);
  // Read before any repair runs: a bad trajectory line fails now, not after minutes of repairs.
  const trajectories = options.trajectories
    ? summarizeTrajectories(await readTrajectories(options.trajectories))
    : undefined;
  const used = new Set(parsed.predictions.map((p) => p.task));
  const effective =
    set ??
    allTasksOf(
      planned,
      TASK_KINDS.filter((k) => used.has(k)),
      sources.length,
    );
  // The runtime's identity (interpreter, or image) as the exclusions asked it: recorded without asking again.
  let identity: RuntimeIdentity | undefined;
  const createRuntime = async (): Promise<Runtime> => {
    const runtime = await options.repair.createRuntime();
    const describe = runtime.describe.bind(runtime);
    runtime.describe = async (modules) => (identity = await describe(modules));
    return runtime;
  };
  const result = await scorePredictions(effective, parsed, { ...options.repair, createRuntime }, options.onProgress);
  const card = result.scorecard;
  if (trajectories) card.trajectories = trajectories;
  const scored = new Set([...effective.keys.values()].map((k) => k.instance));
  card.libraries = Object.fromEntries(
    sources.filter((s) => scored.has(s.id)).map((s) => [s.id, s.instance.labels.library]),
  );
  if (card.runtime && identity) {
    if (identity.image) card.runtime.image = identity.image;
    if (identity.imageId) card.runtime.imageId = identity.imageId;
    if (identity.pythonVersion) card.runtime.python = identity.pythonVersion;
  }
  if (options.provenance) {
    const p = options.provenance;
    card.provenance = {
      tool: p.tool ?? defaultToolName(options.predictions),
      junobench: p.junobench,
      benchmark: p.benchmark,
      tasks: {
        seed,
        ...(options.tasks ? { sha256: await hashFile(options.tasks) } : {}),
        context: effective.context ?? 'static',
      },
      predictions: { sha256: await hashFile(options.predictions) },
    };
  }
  return result;
}

/** A tool named by its predictions file: `runs/gpt-x.jsonl` → `gpt-x`. */
export function defaultToolName(predictions: string): string {
  const base = predictions.split(/[\\/]/).pop() ?? predictions;
  return base.replace(/\.jsonl?$/i, '') || base;
}

function allTasksOf(planned: PlannedTasks, kinds: readonly TaskKind[], instances: number): TaskSet {
  const ids = planned.tasks.filter((t) => kinds.includes(t.task)).map((t) => t.id);
  return { ids, keys: new Map(ids.map((id) => [id, planned.keys.get(id)!])), instances };
}

/**
 * The tasks of a tasks file, matched with the tasks planned from the
 * instances now: each line must be one of them, byte for byte in content,
 * or the answers could not be known.
 */
export async function readTaskSet(
  file: string,
  planned: PlannedTasks,
  options: { instancesDir: string; seed?: string },
): Promise<TaskSet> {
  const byId = new Map(planned.tasks.map((t) => [t.id, t]));
  const ids: string[] = [];
  const keys = new Map<string, TaskKey>();
  const instances = new Set<string>();
  // Detect and diagnose tasks without, and with, a runtime state.
  const withState = [0, 0];
  for await (const { value, line } of readJsonl<Task>(file, { schema: 'task' })) {
    const now = byId.get(value.id);
    if (!now) {
      // Ids are keyed by the seed: a tasks file exported with --seed reads as unknown tasks without it. Re-exporting
      // over the file would replace the tasks a tool has answered, so that is the last resort, to another file.
      const seed = options.seed ?? DEFAULT_TASK_SEED;
      throw new JunoError(
        'E_INPUT_ROW',
        `task ${quoteShort(value.id)} is not a task of the instances in ${options.instancesDir} with the seed ${JSON.stringify(seed)}`,
        {
          location: { file, line },
          hint:
            `if the tasks were exported with another --seed, pass that same --seed here${options.seed === undefined ? ` (the default is ${DEFAULT_TASK_SEED})` : ''}; ` +
            `if they come from other instances, pass --instances <their folder>; else export them again (junobench tasks export --instances ${options.instancesDir} -o new-tasks.jsonl) and run the tool on those`,
        },
      );
    }
    // The prompt is the task's content rendered as text for language models: a junobench version that words it
    // better must not make a tasks file already answered unscorable. Everything the tool was given besides it must
    // match.
    if (contentOf(now) !== contentOf(value)) {
      throw new JunoError(
        'E_INPUT_ROW',
        `task "${value.id}" differs from the same task exported from ${options.instancesDir} now (the instances changed since the export)`,
        {
          location: { file, line },
          hint: `re-export the tasks to a new file (junobench tasks export --instances ${options.instancesDir} -o new-tasks.jsonl) and run the tool on those`,
        },
      );
    }
    if (keys.has(value.id)) {
      throw new JunoError('E_INPUT_ROW', `task "${value.id}" appears twice`, {
        location: { file, line },
        hint: 'each task once per tasks file',
      });
    }
    ids.push(value.id);
    if (value.task !== 'repair') withState[(value as { state?: unknown }).state ? 1 : 0]! += 1;
    const key = planned.keys.get(value.id)!;
    keys.set(value.id, key);
    instances.add(key.instance);
  }
  if (ids.length === 0)
    throw new JunoError('E_INPUT_EMPTY', 'the tasks file holds no task', {
      location: { file },
      hint: 'junobench tasks export -o tasks.jsonl',
    });
  const context = withState[1] === 0 ? 'static' : withState[0] === 0 ? 'runtime' : 'mixed';
  return { ids, keys, instances: instances.size, context };
}

/**
 * What a task gives a tool besides its wording: the prompt is the content rendered as text (a junobench version that
 * words it better must not make an answered tasks file unscorable) and the runtime state is context captured at export
 * (`--context runtime`), not part of what the answers are computed from.
 */
function contentOf(task: Task): string {
  const { prompt: _prompt, state: _state, ...rest } = task as Task & { state?: unknown };
  return stableStringify(rest);
}
