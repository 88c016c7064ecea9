import type { ProgressListener, RunResult, RuntimeState } from '@junobench/core';
import type { NotebookRun, Runtime } from '@junobench/runtime';
import { parseStateProbe, planStateProbe, uncapturedState } from './plan-state-probe.js';

/** One target cell whose pre-execution state is wanted. */
export interface StateTarget {
  /** The caller's key for the result. */
  key: string;
  /** The instance folder (the runtime runs a copy of it). */
  instanceDir: string;
  /** The notebook, relative to instanceDir. */
  notebook: string;
  /** The code cells that run before the target, in execution order: the target itself is not among them. */
  cells: number[];
  /** The target cell's code: parsed by the probe for the names it reads, never run. */
  target: string;
  cellTimeoutSeconds: number;
  timeoutSeconds: number;
  prewarm?: string[];
}

export interface CaptureOptions {
  jobs?: number;
  onProgress?: ProgressListener;
  signal?: AbortSignal;
}

/** The probe's own time limit: describing a few names takes well under a second. */
const PROBE_SECONDS = 60;

/** The notebook run of a target: the cells before it, then the probe, in the same fresh kernel. */
export function planStateRun(t: StateTarget, id: string): NotebookRun {
  return {
    id,
    instanceDir: t.instanceDir,
    notebook: t.notebook,
    cells: [...t.cells],
    cellTimeoutSeconds: t.cellTimeoutSeconds,
    timeoutSeconds: t.timeoutSeconds,
    ...(t.prewarm && t.prewarm.length > 0 ? { prewarm: [...t.prewarm] } : {}),
    probe: { finish: planStateProbe(t.target), finishTimeoutSeconds: PROBE_SECONDS },
  };
}

/**
 * What the probe reported, as a task's state. Only the run's status is ever quoted: a cell before the target that
 * failed here says nothing about the target, and its message must not reach a prompt either.
 */
export function readStateResult(result: RunResult | undefined): RuntimeState {
  if (!result) return uncapturedState('not run');
  if (result.status !== 'completed')
    return uncapturedState(`the cells before the target did not all run here (${result.status})`);
  const finish = result.probe?.finish;
  if (!finish || finish.status !== 'ok')
    return uncapturedState(`the state probe did not finish (${finish?.status ?? 'absent'})`);
  const names = parseStateProbe(finish.stdout);
  return names ? { captured: true, names } : uncapturedState('the state probe printed no state');
}

/**
 * The kernel state just before each target cell, by running only the cells before it in the runtime and then the
 * probe (planStateProbe): the target is never executed, so its outcome cannot leak into a prompt.
 */
export async function captureRuntimeStates(
  targets: readonly StateTarget[],
  runtime: Runtime,
  options: CaptureOptions = {},
): Promise<Map<string, RuntimeState>> {
  const out = new Map<string, RuntimeState>();
  if (targets.length === 0) return out;
  const runs = targets.map((t, i) => planStateRun(t, `state/${i}`));
  let done = 0;
  options.onProgress?.({ task: 'state', done, total: runs.length });
  const results = await runtime.run(runs, {
    ...(options.jobs ? { jobs: options.jobs } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    onResult: () => options.onProgress?.({ task: 'state', done: ++done, total: runs.length }),
  });
  targets.forEach((t, i) => out.set(t.key, readStateResult(results[i])));
  return out;
}
