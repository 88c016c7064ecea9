import { checkSchema, formatIssue, type ExpectedCrash, type InstanceVerification, type Outcome } from '@junobench/core';
import { RUNTIME_FAILURE_REASON } from './classify-outcome.js';
import { matchExpectedCrash } from './match-crash.js';

const REPRODUCED_OUTCOMES: ReadonlySet<Outcome> = new Set([
  'crash-reproduced',
  'crash-mismatch',
  'no-crash',
  'timeout',
  'kernel-died',
  'skipped-env',
]);
// absent: a draft without fixed.ipynb (`junobench add`), whose reproduced notebook alone is run; draft-fix: a draft
// whose fixed.ipynb is still the marked starter `add` wrote, not run either.
const FIXED_OUTCOMES: ReadonlySet<Outcome> = new Set([
  'fixed-ok',
  'fixed-crashed',
  'checks-failed',
  'timeout',
  'kernel-died',
  'skipped-env',
  'absent',
  'draft-fix',
]);
const GOOD: ReadonlySet<Outcome> = new Set(['crash-reproduced', 'fixed-ok']);

/**
 * An instance's status from its runs' outcomes (one per repeat and version):
 * the one rule, used when a verdict is made and when a cached one is checked.
 */
export function deriveStatus(
  reproduced: readonly Outcome[],
  fixed: readonly Outcome[],
): Pick<InstanceVerification, 'status' | 'verified' | 'flaky'> {
  const first = { reproduced: pickWorst(reproduced), fixed: pickWorst(fixed) };
  const flaky = new Set(reproduced).size > 1 || new Set(fixed).size > 1;
  const skipped = first.reproduced === 'skipped-env' || first.fixed === 'skipped-env';
  const verified = !flaky && first.reproduced === 'crash-reproduced' && first.fixed === 'fixed-ok';
  // A draft without fixed.ipynb whose crash reproduces is reported as a draft,
  // not a failure: it waits for its fix. One whose crash does not reproduce
  // (or only sometimes) failed what a draft is checked for, as `add` says
  // with exit 1; one that cannot run here is skipped, as any instance.
  const draft =
    (first.fixed === 'absent' || first.fixed === 'draft-fix') && first.reproduced === 'crash-reproduced' && !flaky;
  const status = draft ? 'draft' : skipped ? 'skipped' : flaky ? 'flaky' : verified ? 'verified' : 'not-verified';
  return { status, verified, flaky };
}

// With repeats, the representative run is one that went wrong when there is one.
function pickWorst(outcomes: readonly Outcome[]): Outcome | undefined {
  return outcomes.find((o) => !GOOD.has(o)) ?? outcomes[0];
}

export interface CachedExpectation {
  id: string;
  contentHash: string;
  crash: ExpectedCrash;
  /** Runs per version the entry must hold (the cache key includes it). */
  repeat: number;
}

export type CachedCheck = { ok: true; value: InstanceVerification } | { ok: false; reason: string };

/**
 * Whether a cache entry can stand for a fresh verification. The cache is a
 * folder of files anyone (or a bug, or a crash mid-write) may have changed, so
 * an entry is trusted only when it is valid against the schema, belongs to
 * this instance and content hash, every outcome fits its version, every crash
 * outcome carries the crash it observed (a `crash-reproduced` one matching the
 * instance's expected crash), and status, verified and flaky are exactly what
 * the outcomes give. Anything else is a miss: the instance is run again.
 */
export function checkCachedVerification(entry: unknown, expected: CachedExpectation): CachedCheck {
  const bad = (reason: string): CachedCheck => ({ ok: false, reason });
  const issues = checkSchema('verification', {
    runtime: 'local',
    summary: { total: 1, verified: 0, notVerified: 0, skipped: 0, flaky: 0 },
    instances: [entry],
  });
  if (issues.length > 0) return bad(`not a valid verification entry (${formatIssue(issues[0]!)})`);
  const v = entry as InstanceVerification;
  if (v.contentHash !== expected.contentHash) return bad('its content hash is not the one it is stored under');
  if (v.instance !== expected.id) return bad(`it is the entry of instance "${v.instance}"`);
  if (v.reproduced.version !== 'reproduced' || v.fixed.version !== 'fixed') return bad('its versions are swapped');
  const repeat = Math.max(1, expected.repeat);
  const reproduced = v.repeats?.reproduced ?? [v.reproduced.outcome];
  const fixed = v.repeats?.fixed ?? [v.fixed.outcome];
  if (reproduced.length !== repeat || fixed.length !== repeat)
    return bad(`it holds ${reproduced.length}/${fixed.length} runs, not ${repeat}`);
  if (repeat === 1 && v.repeats) return bad('it has repeats for a single run');
  for (const o of reproduced)
    if (!REPRODUCED_OUTCOMES.has(o)) return bad(`"${o}" is not an outcome of reproduced.ipynb`);
  for (const o of fixed) if (!FIXED_OUTCOMES.has(o)) return bad(`"${o}" is not an outcome of fixed.ipynb`);
  if (pickWorst(reproduced) !== v.reproduced.outcome || pickWorst(fixed) !== v.fixed.outcome) {
    return bad('the outcomes shown are not the ones its runs had');
  }
  for (const r of [v.reproduced, v.fixed]) {
    // Written by versions that cached them: the runtime failed, the notebook was never judged.
    if (r.reason?.startsWith(RUNTIME_FAILURE_REASON))
      return bad(
        `${r.version}: the runtime could not run it (${r.reason.slice(RUNTIME_FAILURE_REASON.length, RUNTIME_FAILURE_REASON.length + 120)})`,
      );
    const needsCrash =
      r.outcome === 'crash-reproduced' || r.outcome === 'crash-mismatch' || r.outcome === 'fixed-crashed';
    if (needsCrash && !r.observed) return bad(`${r.version}: "${r.outcome}" without the crash it observed`);
  }
  if (
    v.reproduced.outcome === 'crash-reproduced' &&
    !matchExpectedCrash(expected.crash, v.reproduced.observed!).matches
  ) {
    return bad("reproduced: the observed crash does not match the instance's crash");
  }
  const derived = deriveStatus(reproduced, fixed);
  if (derived.status !== v.status || derived.verified !== v.verified || derived.flaky !== v.flaky) {
    return bad(
      `it says ${v.status} (verified ${v.verified}, flaky ${v.flaky}) but its outcomes give ${derived.status}`,
    );
  }
  return { ok: true, value: v };
}
