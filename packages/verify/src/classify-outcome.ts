import type { ExpectedCrash, ObservedCrash, RunResult, RuntimeIdentity, VersionResult } from '@junobench/core';
import { judgeChecks, type ChecksVerdict } from '@junobench/checks';
import { parseTraceback } from '@junobench/notebook';
import { matchExpectedCrash } from './match-crash.js';

export type NotebookVersionName = 'reproduced' | 'fixed';

/** How the reason of a run the runtime could not carry out begins: such a verdict is never cached. */
export const RUNTIME_FAILURE_REASON = 'no kernel ran the notebook: ';

/** The first error of a run: exception, message, code cell and the crashing line when shown. */
export function observedError(result: RunResult): ObservedCrash | undefined {
  const cell = result.cells.find((c) => c.status === 'error');
  if (!cell) return undefined;
  const observed: ObservedCrash = { ename: cell.ename ?? '', evalue: cell.evalue ?? '', cell: cell.index };
  const line = parseTraceback(cell.traceback ?? []).userFrame?.line;
  if (line !== undefined) observed.line = line;
  return observed;
}

function base(
  version: NotebookVersionName,
  result: RunResult,
  runtime: RuntimeIdentity,
): Omit<VersionResult, 'outcome'> {
  return {
    version,
    cells: result.cells,
    durationMs: result.durationMs,
    ...(result.kernelStartMs !== undefined ? { kernelStartMs: result.kernelStartMs } : {}),
    ...(result.kernel !== undefined ? { kernel: result.kernel } : {}),
    ...(result.phases !== undefined ? { phases: result.phases } : {}),
    runtime,
  };
}

// Outcomes both versions share: the run did not get to a verdict.
function classifyCommon(
  version: NotebookVersionName,
  result: RunResult,
  runtime: RuntimeIdentity,
): VersionResult | undefined {
  if (result.status === 'timeout') {
    return { ...base(version, result, runtime), outcome: 'timeout', reason: result.reason ?? 'timed out' };
  }
  if (result.status === 'kernel-died') {
    return { ...base(version, result, runtime), outcome: 'kernel-died', reason: result.reason ?? 'the kernel died' };
  }
  if (result.status === 'failed') {
    // The kernel never got to run the notebook (would not start, runner failure):
    // as far as the notebook is concerned its kernel died; the reason says why.
    return {
      ...base(version, result, runtime),
      outcome: 'kernel-died',
      reason: `${RUNTIME_FAILURE_REASON}${result.reason ?? 'unknown reason'}`,
    };
  }
  return undefined;
}

/** reproduced.ipynb: crash-reproduced · crash-mismatch · no-crash · timeout · kernel-died. */
export function classifyReproduced(
  result: RunResult,
  expected: ExpectedCrash,
  runtime: RuntimeIdentity,
): VersionResult {
  const common = classifyCommon('reproduced', result, runtime);
  if (common) return common;
  const observed = observedError(result);
  if (result.status === 'completed' || !observed) {
    return {
      ...base('reproduced', result, runtime),
      outcome: 'no-crash',
      reason: `ran to the end without the expected ${expected.ename}`,
    };
  }
  const m = matchExpectedCrash(expected, observed);
  return m.matches
    ? { ...base('reproduced', result, runtime), outcome: 'crash-reproduced', observed }
    : { ...base('reproduced', result, runtime), outcome: 'crash-mismatch', observed, reason: m.differences.join('; ') };
}

/**
 * fixed.ipynb: fixed-ok · fixed-crashed · checks-failed · timeout · kernel-died. With `checks` (what the harness
 * reported), a run that completed must also pass every check of checks.py and hide nothing (docs/checks.md).
 */
export function classifyFixed(result: RunResult, runtime: RuntimeIdentity, checks?: ChecksVerdict): VersionResult {
  const common = classifyCommon('fixed', result, runtime);
  if (common) return common;
  const observed = observedError(result);
  if (result.status === 'completed' || !observed) {
    const ran = {
      ...base('fixed', result, runtime),
      ...(checks && checks.checks.length > 0 ? { checks: checks.checks } : {}),
      ...(checks && checks.evidence.length > 0 ? { evidence: checks.evidence } : {}),
    };
    const failure = checks ? judgeChecks(checks) : undefined;
    if (failure) return { ...ran, outcome: 'checks-failed', reason: failure.reason };
    return { ...ran, outcome: 'fixed-ok' };
  }
  return {
    ...base('fixed', result, runtime),
    outcome: 'fixed-crashed',
    observed,
    reason: `${observed.ename}: ${observed.evalue.slice(0, 200)} in code cell ${observed.cell}`,
  };
}

/** Both versions of an instance whose required modules are missing: a skip with its reason, never a pass. */
export function skippedEnv(
  version: NotebookVersionName,
  missing: readonly string[],
  runtime: RuntimeIdentity,
): VersionResult {
  const where =
    runtime.kind === 'docker'
      ? `the image ${runtime.image ?? runtime.imageId ?? ''}`.trim()
      : (runtime.python ?? 'the local Python');
  return {
    version,
    outcome: 'skipped-env',
    reason: `required module${missing.length > 1 ? 's' : ''} ${missing.join(', ')} not importable in ${where}`,
    cells: [],
    durationMs: 0,
    runtime,
  };
}
