import type { ChecksSuggestion, MutantResult } from '@junobench/core';
import { planCandidateChecks, renderChecksFile } from './plan-candidate-checks.js';
import { readHarnessSource } from './plan-checks-probe.js';
import { judgeMutantRun, prepareChecksInstances } from './prepare-checks-instance.js';
import { readChecksProbe } from './read-checks-probe.js';
import { runNotebookJobs, type NotebookJob, type RunJobsOptions } from './run-notebook-jobs.js';
import { selectChecks, type MutantRunWithCandidates } from './select-checks.js';
import { planMutantRun, planMutantsOf, planProbe, runFirst } from './mutation-runs.js';

export interface SuggestChecksOptions extends Omit<RunJobsOptions, 'task'> {
  cellTimeoutSeconds?: number;
  timeoutSeconds?: number;
}

/**
 * `junobench checks suggest <id>`: run the crashing notebook (where it crashes) and the fixed one with a snapshot of
 * what its crash cell and the cells after it produce; derive candidate checks from the snapshot
 * (planCandidateChecks); run the fixed notebook twice and every mutant of the crashing notebook with all the
 * candidates; keep a small set that passes both fixed runs and rejects every mutant that runs to the end
 * (selectChecks). The instance's own checks.py is neither read nor changed.
 */
export async function suggestChecks(instanceDir: string, options: SuggestChecksOptions): Promise<ChecksSuggestion> {
  const [p] = await prepareChecksInstances([instanceDir], options);
  const empty = { checks: [], candidates: 0, mutants: [], uncovered: [], dropped: [] };
  if (p!.missing.length > 0)
    return {
      instance: p!.id,
      status: 'skipped-env',
      reason: `required modules not importable here: ${p!.missing.join(', ')}`,
      ...empty,
    };
  const harness = await readHarnessSource();
  const first = (await runFirst([p!], harness, 1, options, () => undefined)).get(p!.id)!;
  const snapshot = first.fixed[0]?.verdict.snapshot;
  if (!first.site)
    return {
      instance: p!.id,
      status: 'error',
      reason: `reproduced.ipynb did not crash in code cell ${p!.instance.crash.cell} here`,
      ...empty,
    };
  if (!snapshot || first.fixed[0]?.result?.status !== 'completed')
    return {
      instance: p!.id,
      status: 'error',
      reason: `fixed.ipynb did not run to the end here (${first.fixed[0]?.result?.status ?? 'no result'})`,
      ...empty,
    };
  const candidates = planCandidateChecks(snapshot);
  if (candidates.length === 0)
    return {
      instance: p!.id,
      status: 'error',
      reason: 'the fixed notebook produced nothing from its crash cell on to check',
      ...empty,
    };
  const file = renderChecksFile(p!.id, candidates);
  const infos = candidates.map((c) => ({ name: c.name, reason: c.reason }));
  const mutants = planMutantsOf(p!, first);
  const runs: { probe: ReturnType<typeof planProbe>; plan: number[] }[] = [];
  const jobs: NotebookJob[] = [];
  for (const nb of ['fixed.ipynb', 'fixed.ipynb', ...mutants.map((m) => m.notebook)]) {
    const probe = planProbe(harness, p!, file);
    const plan = typeof nb === 'string' ? p!.plans.fixed : planMutantRun(p!, mutants[jobs.length - 2]!);
    runs.push({ probe, plan });
    jobs.push({
      instanceDir: p!.dir,
      notebook: nb,
      plan,
      probe: probe.probe,
      ...p!.limits,
      prewarm: p!.instance.requires,
    });
  }
  const results = await runNotebookJobs(jobs, { ...options, task: 'candidates' });
  const verdicts = results.map((r, i) => readChecksProbe(r, runs[i]!.probe.nonce, runs[i]!.plan, infos));
  const judged: MutantResult[] = [];
  const withCandidates: MutantRunWithCandidates[] = mutants.map((m, i) => {
    const result = results[i + 2];
    const verdict = verdicts[i + 2]!;
    const j = judgeMutantRun(result, verdict);
    judged.push({ id: m.id, family: m.family, description: m.description, ...j });
    return {
      id: m.id,
      completed: result?.status === 'completed',
      hiding: verdict.evidence.length > 0,
      verdict,
    };
  });
  const selection = selectChecks(candidates, verdicts.slice(0, 2), withCandidates);
  return {
    instance: p!.id,
    status: 'suggested',
    file: renderChecksFile(p!.id, selection.selected),
    checks: selection.selected.map((c) => ({ name: c.name, reason: c.reason })),
    candidates: candidates.length,
    mutants: judged,
    uncovered: selection.uncovered,
    dropped: selection.dropped,
  };
}
