import path from 'node:path';
import { readFile } from 'node:fs/promises';
import {
  checkSchema,
  writeJsonAtomic,
  type ChecksReport,
  type InstanceChecksResult,
  type MutantResult,
  type RunResult,
} from '@junobench/core';
import { planExecution } from '@junobench/notebook';
import { planMutants, type Mutant } from './plan-mutants.js';
import { planChecksProbe, readHarnessSource, type ChecksProbe } from './plan-checks-probe.js';
import { judgeChecks } from './judge-checks.js';
import { readChecksProbe, type ChecksVerdict } from './read-checks-probe.js';
import { readCrashSite, type CrashSite } from './read-crash-site.js';
import { runNotebookJobs, type NotebookJob, type RunJobsOptions } from './run-notebook-jobs.js';
import { judgeMutantRun, prepareChecksInstances, type ChecksInstance } from './prepare-checks-instance.js';

export interface TestChecksOptions extends Omit<RunJobsOptions, 'task'> {
  /** Runs of the fixed notebook with its checks, which must all pass (default 2: a flaky check fails one). */
  fixedRuns?: number;
  cellTimeoutSeconds?: number;
  timeoutSeconds?: number;
  /** Per-instance results cached by content hash (`<cacheDir>/checks/<hash>.json`); undefined: none. */
  cacheDir?: string;
  /** false: ignore cached results (fresh ones are still written). */
  useCache?: boolean;
  onInstance?: (r: InstanceChecksResult) => void;
}

/** The first runs of an instance: the crashing notebook (where it crashes) and the fixed one with its checks. */
export interface FirstRuns {
  site?: CrashSite;
  reproduced?: RunResult;
  fixed: { result?: RunResult; verdict: ChecksVerdict }[];
}

/**
 * `junobench checks test`: for each instance, run the fixed notebook with its checks (fixedRuns times; every run must
 * pass them and hide nothing), then every mutant of the crashing notebook (planMutants) with the same checks; a
 * mutant is rejected when it crashes, shows evidence of hiding, or fails a check (docs/checks.md, "Mutation testing: `junobench checks test [<id>...]`").
 */
export async function testChecks(dirs: readonly string[], options: TestChecksOptions): Promise<ChecksReport> {
  const fixedRuns = Math.max(1, options.fixedRuns ?? 2);
  const prepared = await prepareChecksInstances(dirs, { ...options, fixedRuns });
  const keys = new Map(prepared.map((p) => [p.id, p.cacheKey]));
  const results = new Map<string, InstanceChecksResult>();
  const decide = async (r: InstanceChecksResult, cache: boolean) => {
    results.set(r.instance, r);
    if (cache && options.cacheDir) await writeJsonAtomic(cacheFile(options.cacheDir, keys.get(r.instance)!), r);
    options.onInstance?.(r);
  };
  const toRun: ChecksInstance[] = [];
  for (const p of prepared) {
    const cached = options.cacheDir && options.useCache !== false ? await readCached(options.cacheDir, p) : undefined;
    if (cached) await decide({ ...cached, cached: true }, false);
    else if (p.missing.length > 0)
      await decide(
        base(
          p,
          'skipped-env',
          `required module${p.missing.length > 1 ? 's' : ''} ${p.missing.join(', ')} not importable here`,
        ),
        true,
      );
    else toRun.push(p);
  }
  const harness = await readHarnessSource();
  const first = await runFirst(toRun, harness, fixedRuns, options);
  const mutantsOf = new Map<string, Mutant[]>();
  const jobs: NotebookJob[] = [];
  const owners: { p: ChecksInstance; mutant: Mutant; probe: ChecksProbe; plan: number[] }[] = [];
  for (const p of toRun) {
    const f = first.get(p.id)!;
    if (!f.site) continue;
    const mutants = planMutantsOf(p, f);
    mutantsOf.set(p.id, mutants);
    for (const mutant of mutants) {
      const probe = planProbe(harness, p);
      const plan = planMutantRun(p, mutant);
      jobs.push({
        instanceDir: p.dir,
        notebook: mutant.notebook,
        plan,
        probe: probe.probe,
        ...p.limits,
        prewarm: p.instance.requires,
      });
      owners.push({ p, mutant, probe, plan });
    }
  }
  const mutantResults = await runNotebookJobs(jobs, { ...options, task: 'mutants' });
  const judged = new Map<string, MutantResult[]>();
  owners.forEach((o, i) => {
    const verdict = readChecksProbe(mutantResults[i], o.probe.nonce, o.plan, o.p.checks?.checks ?? []);
    const j = judgeMutantRun(mutantResults[i], verdict);
    const list = judged.get(o.p.id) ?? [];
    list.push({ id: o.mutant.id, family: o.mutant.family, description: o.mutant.description, ...j });
    judged.set(o.p.id, list);
  });
  for (const p of toRun) {
    const f = first.get(p.id)!;
    await decide(assembleResult(p, f, judged.get(p.id) ?? []), !f.fixed.some((r) => r.result?.status === 'failed'));
  }
  const instances = prepared.map((p) => results.get(p.id)!);
  return planChecksReport(options.runtime.kind, instances);
}

/** The crashing notebook once, the fixed one `fixedRuns` times with its checks (the first also snapshots its output). */
export async function runFirst(
  prepared: readonly ChecksInstance[],
  harness: string,
  fixedRuns: number,
  options: Omit<TestChecksOptions, 'fixedRuns'>,
  checksOf: (p: ChecksInstance) => string | undefined = (p) => p.checks?.source,
): Promise<Map<string, FirstRuns>> {
  const jobs: NotebookJob[] = [];
  const owners: { p: ChecksInstance; kind: 'reproduced' | 'fixed'; probe?: ChecksProbe }[] = [];
  for (const p of prepared) {
    jobs.push({
      instanceDir: p.dir,
      notebook: 'reproduced.ipynb',
      plan: p.plans.reproduced,
      ...p.limits,
      prewarm: p.instance.requires,
    });
    owners.push({ p, kind: 'reproduced' });
    for (let k = 0; k < fixedRuns; k++) {
      const probe = planProbe(harness, p, checksOf(p), k === 0 ? p.crashPosition : undefined);
      jobs.push({
        instanceDir: p.dir,
        notebook: 'fixed.ipynb',
        plan: p.plans.fixed,
        probe: probe.probe,
        ...p.limits,
        prewarm: p.instance.requires,
      });
      owners.push({ p, kind: 'fixed', probe });
    }
  }
  const results = await runNotebookJobs(jobs, { ...options, task: 'fixed and crashing notebooks' });
  const out = new Map<string, FirstRuns>();
  owners.forEach((o, i) => {
    const entry = out.get(o.p.id) ?? { fixed: [] };
    out.set(o.p.id, entry);
    const result = results[i];
    if (o.kind === 'reproduced') {
      entry.reproduced = result;
      const site = readCrashSite(result, o.p.instance.crash.cell);
      if (site) entry.site = site;
    } else {
      const checks = checksOf(o.p) === o.p.checks?.source ? (o.p.checks?.checks ?? []) : [];
      entry.fixed.push({ result, verdict: readChecksProbe(result, o.probe!.nonce, o.p.plans.fixed, checks) });
    }
  });
  return out;
}

/** The mutants of an instance's crashing notebook, placed by its first runs (where it crashed, what the fix printed). */
export function planMutantsOf(p: ChecksInstance, f: FirstRuns): Mutant[] {
  if (!f.site) return [];
  const fake = fakeOutputOf(f, p.crashPosition);
  return planMutants({
    notebook: p.reproduced,
    order: p.instance.execution.order,
    ...(p.instance.execution.cells ? { cells: p.instance.execution.cells } : {}),
    crashCell: p.instance.crash.cell,
    ...(f.site.line !== undefined ? { crashLine: f.site.line } : {}),
    ...(f.site.libraryCall ? { libraryCall: f.site.libraryCall } : {}),
    ...(fake ? { fakeOutput: fake } : {}),
  });
}

/** What a reader saw of the fixed notebook's crash cell: what it printed, then what it displayed. */
export function fakeOutputOf(f: FirstRuns, position: number): string | undefined {
  const snap = f.fixed[0]?.verdict.snapshot;
  if (!snap) return undefined;
  const at = (list: { position: number; text: string }[] = []) =>
    list.filter((x) => x.position === position).map((x) => x.text);
  const text = [...at(snap.printed), ...at(snap.shown).map((t) => `${t}\n`)].join('');
  return text || undefined;
}

export function planProbe(
  harness: string,
  p: ChecksInstance,
  checks = p.checks?.source,
  snapshotFrom?: number,
): ChecksProbe {
  return planChecksProbe(harness, {
    ename: p.instance.crash.ename,
    requires: p.instance.requires,
    ...(checks !== undefined ? { checks } : {}),
    ...(snapshotFrom !== undefined ? { snapshotFrom } : {}),
  });
}

/** The cells a mutant runs: the crashing notebook's order (its cells keep their execution counts). */
export function planMutantRun(p: ChecksInstance, mutant: Mutant): number[] {
  return planExecution(mutant.notebook, p.instance.execution.order, p.instance.execution.cells);
}

function base(p: ChecksInstance, status: InstanceChecksResult['status'], reason?: string): InstanceChecksResult {
  return {
    instance: p.id,
    status,
    ...(reason ? { reason } : {}),
    checks: p.checks?.checks ?? [],
    fixed: { runs: 0, passed: 0 },
    mutants: [],
    score: { generated: 0, rejected: 0, value: null },
    survivors: [],
    waived: [],
    contentHash: p.contentHash,
    cached: false,
  };
}

/** An instance's result from its runs: the fixed runs, the mutants judged, survivors against its waivers. */
export function assembleResult(p: ChecksInstance, f: FirstRuns, mutants: MutantResult[]): InstanceChecksResult {
  if (!f.site) {
    const failed = f.reproduced?.cells.find((c) => c.status === 'error');
    const what = failed
      ? `${failed.ename ?? 'an error'} in code cell ${failed.index}`
      : (f.reproduced?.status ?? 'no result');
    return base(
      p,
      'error',
      `reproduced.ipynb did not crash in code cell ${p.instance.crash.cell} here (${what}): no mutant can be placed`,
    );
  }
  const passed = f.fixed.filter((r) => r.result?.status === 'completed' && !judgeChecks(r.verdict));
  const bad = f.fixed.find((r) => !passed.includes(r));
  const fixed: InstanceChecksResult['fixed'] = { runs: f.fixed.length, passed: passed.length };
  if (bad) {
    const failed = bad.verdict.checks.filter((c) => !c.passed);
    if (failed.length > 0) fixed.failed = failed;
    if (bad.verdict.evidence.length > 0) fixed.evidence = bad.verdict.evidence;
    fixed.reason =
      bad.result?.status !== 'completed'
        ? `fixed.ipynb did not run to the end (${bad.result?.status ?? 'no result'}${bad.result?.reason ? `: ${bad.result.reason}` : ''})`
        : judgeChecks(bad.verdict)!.reason;
  }
  const ran = mutants.filter((m) => m.outcome !== 'not-run');
  const rejected = ran.filter((m) => m.outcome !== 'survived').length;
  const survivors = mutants.filter((m) => m.outcome === 'survived').map((m) => m.id);
  const waivers = p.instance.checks?.waive ?? [];
  const waived = waivers.filter((w) => survivors.includes(w.mutant));
  const unwaived = survivors.filter((s) => !waivers.some((w) => w.mutant === s));
  const status = bad ? 'fixed-fails' : unwaived.length > 0 ? 'survivors' : survivors.length > 0 ? 'waived' : 'complete';
  return {
    ...base(p, status),
    ...(bad
      ? { reason: fixed.reason! }
      : unwaived.length > 0
        ? { reason: `${unwaived.length} mutant${unwaived.length > 1 ? 's' : ''} survived: ${unwaived.join(', ')}` }
        : {}),
    fixed,
    mutants,
    score: { generated: ran.length, rejected, value: ran.length > 0 ? rejected / ran.length : null },
    survivors,
    waived,
  };
}

/** The report over instances (schemas/checks-report.schema.json). */
export function planChecksReport(runtime: 'local' | 'docker', instances: InstanceChecksResult[]): ChecksReport {
  return {
    runtime,
    summary: {
      instances: instances.length,
      mutants: instances.reduce((n, r) => n + r.score.generated, 0),
      rejected: instances.reduce((n, r) => n + r.score.rejected, 0),
      complete: instances.filter((r) => r.status === 'complete').length,
      skipped: instances.filter((r) => r.status === 'skipped-env').length,
    },
    instances,
  };
}

function cacheFile(cacheDir: string, hash: string): string {
  return path.join(cacheDir, 'checks', `${hash}.json`);
}

async function readCached(cacheDir: string, p: ChecksInstance): Promise<InstanceChecksResult | undefined> {
  try {
    const entry = JSON.parse(await readFile(cacheFile(cacheDir, p.cacheKey), 'utf8')) as InstanceChecksResult;
    const issues = checkSchema('checks-report', planChecksReport('local', [entry]));
    return issues.length === 0 && entry.contentHash === p.contentHash && entry.instance === p.id ? entry : undefined;
  } catch {
    return undefined;
  }
}
