import type { CandidateCheck } from './plan-candidate-checks.js';
import type { ChecksVerdict } from './read-checks-probe.js';

/** A mutant's run with every candidate check, as selection sees it. */
export interface MutantRunWithCandidates {
  id: string;
  /** It ran to the end: only checks (or evidence of hiding) can reject it. */
  completed: boolean;
  /** Runtime evidence of hiding rejects it already; a check that rejects it too is a second line. */
  hiding: boolean;
  verdict: ChecksVerdict;
}

export interface CheckSelection {
  selected: CandidateCheck[];
  /** Mutants that ran to the end and that no candidate rejects. */
  uncovered: string[];
  /** Candidates left out because a run of the fixed notebook failed them (a wrong or flaky property). */
  dropped: string[];
}

/** At most this many checks are proposed when no mutant needs one (every mutant crashes by itself). */
const BASELINE_CHECKS = 3;

/**
 * The small set of checks to propose: among the candidates that pass every run of the fixed notebook, a greedy cover
 * of the mutants that ran to the end (those without evidence of hiding first, which nothing else rejects), preferring
 * general checks (low rank) to exact ones; then, when no mutant needed a check, the few most general candidates, so
 * that every instance says what its fix achieves.
 */
export function selectChecks(
  candidates: readonly CandidateCheck[],
  fixed: readonly ChecksVerdict[],
  mutants: readonly MutantRunWithCandidates[],
): CheckSelection {
  const passesFixed = (name: string) =>
    fixed.length > 0 && fixed.every((v) => v.status === 'ok' && v.checks.some((c) => c.name === name && c.passed));
  const valid = candidates.filter((c) => passesFixed(c.name));
  const dropped = candidates.filter((c) => !passesFixed(c.name)).map((c) => c.name);
  const targets = mutants.filter((m) => m.completed);
  const weight = (m: MutantRunWithCandidates) => (m.hiding ? 1 : 10);
  const kills = new Map(
    valid.map((c) => [
      c.name,
      new Set(targets.filter((m) => m.verdict.checks.some((r) => r.name === c.name && !r.passed)).map((m) => m.id)),
    ]),
  );
  const uncovered = new Set(targets.filter((m) => valid.some((c) => kills.get(c.name)!.has(m.id))).map((m) => m.id));
  const selected: CandidateCheck[] = [];
  while (uncovered.size > 0) {
    let best: CandidateCheck | undefined;
    let bestScore = 0;
    for (const c of valid) {
      if (selected.includes(c)) continue;
      const gain = targets
        .filter((m) => uncovered.has(m.id) && kills.get(c.name)!.has(m.id))
        .reduce((n, m) => n + weight(m), 0);
      const score = gain / (c.rank * c.rank);
      if (score > bestScore) {
        best = c;
        bestScore = score;
      }
    }
    if (!best) break;
    selected.push(best);
    for (const id of kills.get(best.name)!) uncovered.delete(id);
  }
  // A second line for what the cover needed one check for: a few more general checks that reject mutants too.
  const spare = valid
    .filter((c) => !selected.includes(c) && c.rank <= 2 && kills.get(c.name)!.size > 0)
    .sort((a, b) => a.rank - b.rank || kills.get(b.name)!.size - kills.get(a.name)!.size);
  while (selected.length < BASELINE_CHECKS && spare.length > 0) selected.push(spare.shift()!);
  if (selected.length === 0) selected.push(...valid.filter((c) => c.rank <= 2).slice(0, BASELINE_CHECKS));
  const covered = new Set(selected.flatMap((c) => [...(kills.get(c.name) ?? [])]));
  return {
    selected: [...selected].sort((a, b) => candidates.indexOf(a) - candidates.indexOf(b)),
    uncovered: targets.filter((m) => !covered.has(m.id)).map((m) => m.id),
    dropped,
  };
}
