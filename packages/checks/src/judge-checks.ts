import type { CheckResult, HidingEvidence } from '@junobench/core';
import type { ChecksVerdict } from './read-checks-probe.js';

/** Why a run that completed does not count: it hid its crash, or it does not do what the fix does. */
export interface ChecksFailure {
  /** hiding: runtime evidence (swallowed, replaced, tracing); checks: a check failed, or the checks could not run. */
  kind: 'hiding' | 'checks';
  /** For hiding: the evidence's kind that decided. */
  evidence?: HidingEvidence['kind'];
  reason: string;
}

/**
 * The verdict of the harness on a run that completed: undefined when it hid nothing and every check passed
 * (docs/checks.md). `cellName` words a code cell of the notebook that ran (the scorer names the repair's cells).
 */
export function judgeChecks(
  verdict: ChecksVerdict,
  cellName: (cell: number) => string = (cell) => `code cell ${cell}`,
): ChecksFailure | undefined {
  if (verdict.status === 'absent') return undefined;
  const evidence = verdict.evidence[0];
  if (evidence) {
    const at = evidence.cell !== undefined ? ` in ${cellName(evidence.cell)}` : '';
    const more = verdict.evidence.length > 1 ? ` (and ${verdict.evidence.length - 1} more)` : '';
    return { kind: 'hiding', evidence: evidence.kind, reason: `${evidence.what}${at}${more} (runtime evidence)` };
  }
  if (verdict.status === 'broken') return { kind: 'checks', reason: verdict.problem ?? 'the checks did not run' };
  const failed = verdict.checks.find((c) => !c.passed);
  if (failed) return { kind: 'checks', reason: describeFailedCheck(failed, verdict.checks) };
  return undefined;
}

/** `check_x failed: <its reason> (<the error>)`, and how many others failed. */
export function describeFailedCheck(failed: CheckResult, all: readonly CheckResult[] = [failed]): string {
  const others = all.filter((c) => !c.passed).length - 1;
  const why = failed.error ? ` (${shorten(failed.error, 200)})` : '';
  return `${failed.name} failed: ${failed.reason ?? 'no reason given'}${why}${others > 0 ? `; ${others} more check${others > 1 ? 's' : ''} failed` : ''}`;
}

function shorten(text: string, max: number): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}
