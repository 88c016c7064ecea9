import type { CheckInfo, CheckResult, HidingEvidence, RunResult } from '@junobench/core';

/** What the harness printed before its nonce on each of its lines. */
export const RESULT_MARK = '__junobench_checks__:';

/** A name the cells bound or changed, as the harness summarised it (packages/checks/python/jbchecks/harness.py). */
export interface NameSummary {
  type: string;
  shape?: number[];
  dtype?: string;
  columns?: string[];
  dtypes?: Record<string, string>;
  missing?: number | Record<string, number>;
  stats?: Record<string, ValueStats>;
  value?: number | string | boolean | null;
  length?: number;
  keys?: string[];
  sum?: number | null;
  mean?: number | null;
  min?: number | null;
  max?: number | null;
  infinite?: number;
  name?: string | null;
  estimator?: boolean;
  fitted?: string[];
  nFeatures?: number;
  module?: boolean;
  parameters?: number;
  training?: boolean;
  weights?: number | null;
  params?: string[];
  nobs?: number | null;
}

export interface ValueStats {
  missing?: number;
  infinite?: number;
  sum?: number | null;
  mean?: number | null;
  min?: number | null;
  max?: number | null;
}

export interface AxesSummary {
  title: string;
  xlabel: string;
  ylabel: string;
  /** Each line's number of points. */
  lines: number[];
  patches: number;
  /** Each collection's number of points (a scatter's). */
  collections: number[];
  images: number;
  texts: number;
}

export interface FigureSummary {
  position: number;
  suptitle: string;
  axes: AxesSummary[];
}

/** What the cells from the snapshot's position on produced, for `checks suggest`. */
export interface RunSnapshot {
  from: number | null;
  /** The run reached that position (else `names` is every name of the namespace). */
  reached: boolean;
  names: Record<string, NameSummary>;
  figures: FigureSummary[];
  printed: { position: number; text: string }[];
  /** The text form of what the cells displayed (a cell's last value, display()), from the snapshot's position on. */
  shown: { position: number; text: string }[];
}

/** The harness's report on one run. */
export interface ChecksVerdict {
  /**
   * ok: the harness reported, whole; absent: the run did not get to the finish step (a cell failed, the run timed
   * out: judge the run instead); broken: the harness's report is missing or cut (the finish step failed or timed out,
   * the notebook broke what the harness prints with): nothing the harness should have said can be trusted.
   */
  status: 'ok' | 'absent' | 'broken';
  problem?: string;
  evidence: HidingEvidence[];
  /** Every check of checks.py, in order; one that did not report is failed. */
  checks: CheckResult[];
  /** checks.py itself raised when it was executed. */
  checksError?: string;
  snapshot?: RunSnapshot;
}

interface RawEvidence {
  kind?: string;
  ename?: string;
  evalue?: string;
  what?: string;
  how?: string;
  position?: number;
  line?: number;
}

/**
 * Read a run's probe output: the result lines carrying this run's nonce, in order. `plan` maps a position (the index
 * of a cell among the cells run) to its code cell; `checks` (from checks.py, parseChecks) is what must have reported:
 * a check missing from the output failed.
 */
export function readChecksProbe(
  result: RunResult | undefined,
  nonce: string,
  plan: readonly number[],
  checks: readonly CheckInfo[] = [],
): ChecksVerdict {
  const empty = { evidence: [], checks: [] };
  if (!result || result.status !== 'completed') return { status: 'absent', ...empty };
  const setup = result.probe?.setup;
  if (setup && setup.status !== 'ok') {
    return {
      status: 'broken',
      problem: `the checks harness did not install (${setup.status}${setup.ename ? `: ${setup.ename}: ${setup.evalue ?? ''}` : ''})`,
      ...empty,
    };
  }
  const finish = result.probe?.finish;
  const prefix = `${RESULT_MARK}${nonce} `;
  const lines: Record<string, unknown>[] = [];
  for (const line of (finish?.stdout ?? '').split('\n')) {
    if (!line.startsWith(prefix)) continue;
    try {
      const value = JSON.parse(line.slice(prefix.length)) as unknown;
      if (value && typeof value === 'object' && !Array.isArray(value)) lines.push(value as Record<string, unknown>);
    } catch {
      // A line cut short (the step's output limit) reads as missing.
    }
  }
  const head = lines.find((l) => Array.isArray(l.evidence));
  const done = lines.some((l) => l.done === true);
  const verdict: ChecksVerdict = {
    status: head && done && finish?.status === 'ok' ? 'ok' : 'broken',
    evidence: ((head?.evidence as RawEvidence[] | undefined) ?? []).map((e) => toEvidence(e, plan)),
    checks: [],
  };
  if (verdict.status === 'broken') {
    verdict.problem = !finish
      ? 'the checks did not run after the last cell'
      : finish.status === 'timeout'
        ? `the checks did not finish in time (${finish.reason ?? 'timeout'})`
        : finish.status !== 'ok'
          ? `the checks stopped: ${finish.ename ? `${finish.ename}: ${(finish.evalue ?? '').slice(0, 200)}` : finish.status}`
          : 'the checks harness printed no complete report (the notebook replaced what it prints with?)';
  }
  const snap = lines.find((l) => l.snapshot && typeof l.snapshot === 'object');
  if (snap) verdict.snapshot = snap.snapshot as RunSnapshot;
  const checksError = lines.find((l) => typeof l.checksError === 'string');
  if (checksError) verdict.checksError = checksError.checksError as string;
  const reported = new Map<string, CheckResult>();
  for (const l of lines) {
    if (typeof l.check !== 'string' || typeof l.passed !== 'boolean') continue;
    reported.set(l.check, {
      name: l.check,
      ...(typeof l.reason === 'string' && l.reason ? { reason: l.reason } : {}),
      passed: l.passed,
      ...(typeof l.error === 'string' ? { error: l.error } : {}),
    });
  }
  const missing = verdict.checksError
    ? `checks.py raised ${verdict.checksError}`
    : (verdict.problem ?? 'the check did not report');
  for (const c of checks)
    verdict.checks.push(reported.get(c.name) ?? { name: c.name, reason: c.reason, passed: false, error: missing });
  // A check the static reading did not see (defined some other way) still counts.
  for (const [name, r] of reported) if (!checks.some((c) => c.name === name)) verdict.checks.push(r);
  return verdict;
}

function toEvidence(e: RawEvidence, plan: readonly number[]): HidingEvidence {
  const cell = typeof e.position === 'number' && e.position >= 0 ? plan[e.position] : undefined;
  const where = cell !== undefined ? { cell } : {};
  const line = typeof e.line === 'number' && e.line >= 0 ? { line: e.line } : {};
  if (e.kind === 'swallowed') {
    const ename = e.ename ?? 'an exception';
    return {
      kind: 'swallowed',
      what: `${ename}: ${(e.evalue ?? '').replace(/\s+/g, ' ').trim().slice(0, 200)} was raised and swallowed`,
      ename,
      ...where,
      ...line,
    };
  }
  if (e.kind === 'replaced') {
    return {
      kind: 'replaced',
      what: `library attribute ${e.what ?? '(unnamed)'} was replaced by ${e.how ?? "the notebook's code"}`,
    };
  }
  return { kind: 'tracing', what: e.what ?? 'the tracing was switched off', ...where, ...line };
}
