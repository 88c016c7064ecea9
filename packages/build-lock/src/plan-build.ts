/**
 * The build as a graph of stages, planned purely (DVC-style): a stage runs
 * when its fingerprint (inputs, parameters, code, environment) differs from
 * the one recorded in the build lock after its last successful run, or when
 * its outputs are gone or were changed by hand; otherwise it is skipped.
 * Upstream outputs are inputs downstream, so a change propagates exactly as
 * far as it matters.
 */

export interface StageLockEntry {
  /** Fingerprint of everything the stage read. */
  fingerprint: string;
  /** Hash of everything the stage wrote, to notice outputs changed or deleted by hand. */
  outputs: string;
  /** What the stage reported last time, shown again when it is skipped. */
  summary: string;
  /** Per path read (relative to the root), its content hash when the stage ran (see checkBuildSources). */
  inputs?: Record<string, string>;
}

export interface BuildLock {
  version: 1;
  stages: Record<string, StageLockEntry>;
}

export interface StageState {
  name: string;
  fingerprint: string;
  /** Current hash of the stage's outputs on disk (undefined when an output is missing). */
  outputs: string | undefined;
}

export type StageDecision =
  { stage: string; action: 'run'; reason: string } | { stage: string; action: 'skip'; reason: string; summary: string };

export interface PlanOptions {
  /** Run every stage regardless of the lock. */
  force?: boolean;
}

export function emptyLock(): BuildLock {
  return { version: 1, stages: {} };
}

/** Decide, in stage order, which stages must run. Pure. */
export function planBuild(states: readonly StageState[], lock: BuildLock, options: PlanOptions = {}): StageDecision[] {
  return states.map((s): StageDecision => {
    const prev = lock.stages[s.name];
    if (options.force) return { stage: s.name, action: 'run', reason: 'forced' };
    if (!prev) return { stage: s.name, action: 'run', reason: 'never built' };
    if (s.outputs === undefined) return { stage: s.name, action: 'run', reason: 'outputs missing' };
    if (prev.fingerprint !== s.fingerprint) return { stage: s.name, action: 'run', reason: 'inputs changed' };
    if (prev.outputs !== s.outputs)
      return { stage: s.name, action: 'run', reason: 'outputs changed since the last build' };
    return { stage: s.name, action: 'skip', reason: 'up to date', summary: prev.summary };
  });
}
