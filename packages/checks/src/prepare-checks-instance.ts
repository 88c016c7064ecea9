import path from 'node:path';
import {
  JunoError,
  hashTree,
  hashValue,
  readInstance,
  type Instance,
  type RunResult,
  type RuntimeIdentity,
} from '@junobench/core';
import {
  DEFAULT_CELL_TIMEOUT_SECONDS,
  DEFAULT_TIMEOUT_SECONDS,
  listCodeCells,
  matchCells,
  normalizeCell,
  planExecution,
  readNotebook,
  type Notebook,
} from '@junobench/notebook';
import type { Runtime } from '@junobench/runtime';
import { hashHarness } from './plan-checks-probe.js';
import { readInstanceChecks, type InstanceChecks } from './read-checks.js';
import type { ChecksVerdict } from './read-checks-probe.js';
import { judgeChecks } from './judge-checks.js';
import type { MutantOutcome } from '@junobench/core';

/** Bumped when mutants or their judging change, so that cached mutation tests are not reused. */
export const CHECKS_TEST_VERSION = 1;

/** An instance read for checks: its notebooks, where its crash cell runs in the fixed notebook, its checks. */
export interface ChecksInstance {
  id: string;
  dir: string;
  instance: Instance;
  reproduced: Notebook;
  fixed: Notebook;
  plans: { reproduced: number[]; fixed: number[] };
  /** The position in the fixed notebook's run of the crash cell's counterpart (what the fix changed runs from there). */
  crashPosition: number;
  checks?: InstanceChecks;
  /** Required modules this runtime cannot import. */
  missing: string[];
  limits: { cellTimeoutSeconds: number; timeoutSeconds: number };
  /** What the result is about: the instance's files (checks.py included), the harness, the mutants' logic. */
  contentHash: string;
  /** Where its result is cached: the content hash, the runtime's identity, the runs and their limits. */
  cacheKey: string;
}

export interface PrepareOptions {
  runtime: Runtime;
  cellTimeoutSeconds?: number;
  timeoutSeconds?: number;
  fixedRuns?: number;
}

/** Read instance folders for checks, with the runtime's identity (one describe call for all). */
export async function prepareChecksInstances(
  dirs: readonly string[],
  options: PrepareOptions,
): Promise<ChecksInstance[]> {
  const loaded = [];
  for (const dir of dirs) {
    const tree = await hashTree(dir);
    const instance = await readInstance(dir);
    const reproduced = await readNotebook(path.join(dir, 'reproduced.ipynb'));
    const fixed = await readNotebook(path.join(dir, 'fixed.ipynb')).catch((e: unknown) => {
      throw new JunoError('E_INSTANCE', `${instance.id} has no fixed notebook to test checks against`, {
        location: { file: path.join(dir, 'fixed.ipynb') },
        hint: 'add fixed.ipynb first (a draft is checked once it has its fix)',
        cause: e,
      });
    });
    const { order, cells } = instance.execution;
    const plans = { reproduced: planExecution(reproduced, order, cells), fixed: planExecution(fixed, order, cells) };
    const counterpart =
      matchCells(
        listCodeCells(reproduced).map((c) => normalizeCell(c.source)),
        listCodeCells(fixed).map((c) => normalizeCell(c.source)),
      ).counterpart[instance.crash.cell] ?? instance.crash.cell;
    const at = plans.fixed.lastIndexOf(counterpart);
    const checks = await readInstanceChecks(dir);
    loaded.push({ dir, tree, instance, reproduced, fixed, plans, crashPosition: Math.max(0, at), checks });
  }
  const modules = [...new Set(loaded.flatMap((l) => l.instance.requires))].sort();
  const identity = await options.runtime.describe(modules);
  const harness = await hashHarness();
  const fixedRuns = options.fixedRuns ?? 2;
  return loaded.map((l) => {
    const packages = Object.fromEntries(l.instance.requires.map((m) => [m, identity.packages[m] ?? null]));
    const own: RuntimeIdentity = { ...identity, packages };
    const ex = l.instance.execution;
    const limits = {
      cellTimeoutSeconds: options.cellTimeoutSeconds ?? ex.cellTimeoutSeconds ?? DEFAULT_CELL_TIMEOUT_SECONDS,
      timeoutSeconds: options.timeoutSeconds ?? ex.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS,
    };
    return {
      id: l.instance.id,
      dir: l.dir,
      instance: l.instance,
      reproduced: l.reproduced,
      fixed: l.fixed,
      plans: l.plans,
      crashPosition: l.crashPosition,
      ...(l.checks ? { checks: l.checks } : {}),
      missing: l.instance.requires.filter((m) => packages[m] === null),
      limits,
      contentHash: hashChecksContent(l.tree, harness),
      cacheKey: hashValue({ content: hashChecksContent(l.tree, harness), runtime: own, fixedRuns, limits }),
    };
  });
}

/**
 * What a mutation-test result is about, without running anything: the instance's files (hashTree), the harness, and
 * the mutants' logic. The build compares it with the recorded result's (docs/checks.md, "Recorded results, the build and releases").
 */
export function hashChecksContent(tree: string, harness: string): string {
  return hashValue({ instance: tree, harness, logic: CHECKS_TEST_VERSION });
}

/** What rejected a mutant's run, if anything: its own end (crashed), runtime evidence (hiding) or a failed check. */
export function judgeMutantRun(
  result: RunResult | undefined,
  verdict: ChecksVerdict,
): { outcome: MutantOutcome; reason?: string; failed?: string[] } {
  if (!result || result.status === 'failed')
    return { outcome: 'not-run', reason: `the runtime could not run it: ${result?.reason ?? 'no result'}` };
  if (result.status !== 'completed') {
    const cell = result.cells.find((c) => c.status === 'error');
    const reason = cell
      ? `${cell.ename ?? 'an error'}: ${(cell.evalue ?? '').replace(/\s+/g, ' ').slice(0, 160)} in code cell ${cell.index}`
      : `${result.status}${result.reason ? `: ${result.reason}` : ''}`;
    return { outcome: 'crashed', reason };
  }
  const failure = judgeChecks(verdict);
  if (!failure) return { outcome: 'survived' };
  if (failure.kind === 'hiding') return { outcome: 'hiding', reason: failure.reason };
  const failed = verdict.checks.filter((c) => !c.passed).map((c) => c.name);
  return { outcome: 'checks-failed', reason: failure.reason, ...(failed.length > 0 ? { failed } : {}) };
}
