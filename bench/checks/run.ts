// bench/checks: does scoring decide by what a repair does? On the embedded benchmark, every repair task gets, as
// attempts of one predictions file: the oracle (the fixed notebook), every non-fix generated from its crashing
// notebook (the mutant families of docs/checks.md) and the alternative correct fixes of
// test/fixtures/alternative-fixes; the real `junobench score` runs them all. Also the cost of the harness's tracing
// on the fixed notebooks. Usage:
//   npx tsx bench/checks/run.ts --part score [--runtime local|docker] [--jobs 2]   → bench/checks/score-<runtime>.json
//   npx tsx bench/checks/run.ts --part cost [--rounds 3] [--jobs 2]                → bench/checks/cost.json
//   npx tsx bench/checks/run.ts --part report                                      → bench/checks/results.md
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import {
  formatJson,
  listInstanceIds,
  readInstance,
  type ChecksReport,
  type RepairAttemptResult,
  type RunResult,
  type Scorecard,
} from '@junobench/core';
import { planExecution, readNotebook } from '@junobench/notebook';
import { createLocalRuntime, type NotebookRun } from '@junobench/runtime';
import {
  planChecksProbe,
  planMutantsOf,
  prepareChecksInstances,
  readHarnessSource,
  readInstanceChecks,
  runFirst,
} from '@junobench/checks';
import { applyNotebookEdits, type AlternativeFixes } from '../../packages/checks/test-helpers/notebook-edits.js';
import { flag } from '../args.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const here = path.join(root, 'bench/checks');
const instancesDir = path.join(root, 'raw/instances');
const jobs = Number(flag('--jobs', '2'));

const cli = (args: string[]) =>
  execa('node', [path.join(root, 'packages/cli/bin/junobench.js'), ...args], {
    cwd: root,
    reject: false,
    env: { ...process.env, CI: '1' },
  });

/** What an attempt is: the oracle, a non-fix of a family, or an alternative correct fix of a kind. */
interface AttemptLabel {
  kind: 'oracle' | 'non-fix' | 'alternative';
  /** The mutant family, or the alternative's kind. */
  group: string;
  name: string;
}

interface ScoreBench {
  runtime: 'local' | 'docker';
  wallMs: number;
  attempts: (AttemptLabel & {
    instance: string;
    outcome: string;
    resolved: boolean;
    reason?: string;
    /** Rejected only by what runs added: runtime evidence or a failed check (static rules alone would have resolved it). */
    byBehaviour: boolean;
  })[];
  excluded: { instance: string; reason: string }[];
}

async function scorePart(): Promise<void> {
  const runtimeKind = flag('--runtime', 'local') as 'local' | 'docker';
  const work = await mkdtemp(path.join(os.tmpdir(), 'jb-bench-checks-'));
  try {
    const tasksFile = path.join(work, 'tasks.jsonl');
    const exported = await cli(['tasks', 'export', '--task', 'repair', '-o', tasksFile]);
    if (exported.exitCode !== 0) throw new Error(exported.stderr);
    const tasks = (await readFile(tasksFile, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { id: string; notebook: unknown });
    // Which instance each task is: the crashing notebook a task carries is its reproduced notebook, outputs removed.
    const ids = await listInstanceIds(instancesDir);
    const runtime = await createLocalRuntime();
    const prepared = await prepareChecksInstances(
      ids.map((id) => path.join(instancesDir, id)),
      { runtime },
    );
    const runnable = prepared.filter((p) => p.missing.length === 0);
    const first = await runFirst(runnable, await readHarnessSource(), 1, { runtime, jobs });
    await runtime.close();
    const lines: string[] = [];
    const labels = new Map<string, AttemptLabel>();
    for (const p of prepared) {
      const task = tasks.find((t) => sameCode(t.notebook, p.reproduced));
      if (!task) throw new Error(`no repair task for ${p.id}`);
      const attempts: { label: AttemptLabel; notebook: unknown }[] = [
        { label: { kind: 'oracle', group: 'oracle', name: 'the fixed notebook' }, notebook: p.fixed },
      ];
      const f = first.get(p.id);
      for (const m of f ? planMutantsOf(p, f) : [])
        attempts.push({ label: { kind: 'non-fix', group: m.family, name: m.id }, notebook: m.notebook });
      const alternatives = JSON.parse(
        await readFile(path.join(root, 'test/fixtures/alternative-fixes', `${p.id}.json`), 'utf8'),
      ) as AlternativeFixes;
      for (const a of alternatives.alternatives) {
        const base = a.from === 'fixed' ? p.fixed : p.reproduced;
        attempts.push({
          label: { kind: 'alternative', group: a.kind, name: a.name },
          notebook: applyNotebookEdits(base, a.edits),
        });
      }
      attempts.forEach((a, i) => {
        labels.set(`${p.id}/${i + 1}`, a.label);
        lines.push(JSON.stringify({ task: 'repair', id: task.id, attempt: i + 1, answer: { notebook: a.notebook } }));
      });
    }
    const predictions = path.join(work, 'predictions.jsonl');
    await writeFile(predictions, `${lines.join('\n')}\n`);
    const card = path.join(work, 'scorecard.json');
    const t0 = Date.now();
    const scored = await cli([
      'score',
      predictions,
      '--tasks',
      tasksFile,
      '--runtime',
      runtimeKind,
      '--jobs',
      String(jobs),
      '--json',
      card,
    ]);
    const wallMs = Date.now() - t0;
    if (scored.exitCode !== 0 && scored.exitCode !== 1) throw new Error(scored.stderr);
    const sc = JSON.parse(await readFile(card, 'utf8')) as Scorecard;
    const out: ScoreBench = {
      runtime: runtimeKind,
      wallMs,
      attempts: (sc.repair?.results ?? []).map((r: RepairAttemptResult) => ({
        ...labels.get(`${r.instance}/${r.attempt}`)!,
        instance: r.instance,
        outcome: r.outcome,
        resolved: r.resolved,
        ...(r.reason ? { reason: r.reason } : {}),
        byBehaviour:
          r.outcome === 'checks-failed' || ((r.outcome === 'suppressed' || r.outcome === 'invalid') && !!r.evidence),
      })),
      excluded: (sc.repair?.excluded ?? []).map((e) => ({ instance: e.instance, reason: e.reason })),
    };
    await writeFile(path.join(here, `score-${runtimeKind}.json`), formatJson(out));
    console.log(`score (${runtimeKind}): ${out.attempts.length} attempts in ${(wallMs / 60000).toFixed(1)} min`);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

function sameCode(taskNotebook: unknown, nb: { cells: { cell_type: string; source: string | string[] }[] }): boolean {
  const code = (n: { cells: { cell_type: string; source: string | string[] }[] }) =>
    n.cells.filter((c) => c.cell_type === 'code').map((c) => (Array.isArray(c.source) ? c.source.join('') : c.source));
  return JSON.stringify(code(taskNotebook as typeof nb)) === JSON.stringify(code(nb));
}

interface CostBench {
  rounds: number;
  rows: {
    instance: string;
    mode: 'plain' | 'evidence' | 'checks';
    cellsMs: number[];
    cellsCpuMs: number[];
    setupMs: number[];
    finishMs: number[];
  }[];
}

// The fixed notebooks with no probe, with the harness recording evidence only, and with the harness running the
// instance's checks too; rounds interleave the three so that load spreads evenly.
async function costPart(): Promise<void> {
  const rounds = Number(flag('--rounds', '3'));
  const runtime = await createLocalRuntime();
  const harness = await readHarnessSource();
  const ids = await listInstanceIds(instancesDir);
  const identity = await runtime.describe(['tensorflow']);
  const rows: CostBench['rows'] = [];
  for (let r = 0; r < rounds; r++) {
    const runs: NotebookRun[] = [];
    const owners: { instance: string; mode: CostBench['rows'][number]['mode'] }[] = [];
    for (const id of ids) {
      const dir = path.join(instancesDir, id);
      const inst = await readInstance(dir);
      if (inst.requires.includes('tensorflow') && identity.packages.tensorflow === null) continue;
      const nb = await readNotebook(path.join(dir, 'fixed.ipynb'));
      const checks = await readInstanceChecks(dir);
      const base = {
        instanceDir: dir,
        notebook: 'fixed.ipynb',
        cells: planExecution(nb, inst.execution.order, inst.execution.cells),
        cellTimeoutSeconds: 600,
        timeoutSeconds: 1800,
        prewarm: inst.requires,
      };
      for (const mode of ['plain', 'evidence', 'checks'] as const) {
        const probe =
          mode === 'plain'
            ? undefined
            : planChecksProbe(harness, {
                ename: inst.crash.ename,
                requires: inst.requires,
                ...(mode === 'checks' && checks ? { checks: checks.source } : {}),
              }).probe;
        runs.push({ id: `${id}/${mode}/${r}`, ...base, ...(probe ? { probe } : {}) });
        owners.push({ instance: id, mode });
      }
    }
    const results: RunResult[] = await runtime.run(runs, { jobs });
    results.forEach((res, i) => {
      const o = owners[i]!;
      let row = rows.find((x) => x.instance === o.instance && x.mode === o.mode);
      if (!row) rows.push((row = { ...o, cellsMs: [], cellsCpuMs: [], setupMs: [], finishMs: [] }));
      row.cellsMs.push(res.phases?.cellsMs ?? NaN);
      row.cellsCpuMs.push(res.phases?.cellsCpuMs ?? NaN);
      row.setupMs.push(res.probe?.setup?.durationMs ?? 0);
      row.finishMs.push(res.probe?.finish?.durationMs ?? 0);
    });
    console.log(`cost: round ${r + 1}/${rounds}`);
  }
  await runtime.close();
  await writeFile(path.join(here, 'cost.json'), formatJson({ rounds, rows } satisfies CostBench));
}

const median = (xs: number[]) => {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const pct = (a: number, b: number) => (b === 0 ? '—' : `${((100 * a) / b).toFixed(1)}%`);

async function readJson<T>(file: string): Promise<T | undefined> {
  return readFile(file, 'utf8').then(
    (t) => JSON.parse(t) as T,
    () => undefined,
  );
}

async function reportPart(): Promise<void> {
  const out: string[] = [
    '# bench/checks: scoring by what a repair does',
    '',
    'Generated by `npx tsx bench/checks/run.ts --part report` from `score-local.json`, `score-docker.json`, `cost.json`',
    'and `raw/checks-report.json` (`junobench checks test --record`). How to run: the header of `run.ts`;',
    'what is measured: [docs/checks.md](../../docs/checks.md).',
    '',
  ];
  const record = await readJson<ChecksReport>(path.join(root, 'raw/checks-report.json'));
  if (record) {
    const s = record.summary;
    out.push(
      '## Mutation scores (`junobench checks test`)',
      '',
      `${s.rejected}/${s.mutants} mutants rejected (${pct(s.rejected, s.mutants)}); ${s.complete} of ${s.instances} instances complete, ${s.skipped} skipped (${record.runtime} runtime).`,
      '',
      '| instance | status | checks | mutants rejected | score | fixed runs passed | by their own crash | by evidence of hiding | by a failed check |',
      '|---|---|---:|---:|---:|---:|---:|---:|---:|',
    );
    for (const r of record.instances) {
      const n = (o: string) => r.mutants.filter((m) => m.outcome === o).length;
      out.push(
        `| ${r.instance} | ${r.status} | ${r.checks.length} | ${r.score.rejected}/${r.score.generated} | ${r.score.value === null ? '—' : pct(r.score.rejected, r.score.generated)} | ${r.fixed.runs > 0 ? `${r.fixed.passed}/${r.fixed.runs}` : '—'} | ${n('crashed')} | ${n('hiding')} | ${n('checks-failed')} |`,
      );
    }
    out.push('');
  }
  for (const runtime of ['local', 'docker'] as const) {
    const b = await readJson<ScoreBench>(path.join(here, `score-${runtime}.json`));
    if (!b) continue;
    const of = (k: AttemptLabel['kind']) => b.attempts.filter((a) => a.kind === k);
    const oracle = of('oracle');
    const nonFix = of('non-fix');
    const alt = of('alternative');
    const count = (xs: typeof b.attempts) => xs.filter((a) => a.resolved).length;
    out.push(
      `## \`junobench score\`, ${runtime} runtime`,
      '',
      `${b.attempts.length} repair attempts scored in ${(b.wallMs / 60000).toFixed(1)} min (jobs ${jobs}); excluded: ${b.excluded.map((e) => `${e.instance} (${e.reason})`).join('; ') || 'none'}.`,
      '',
      '| attempts | resolved |',
      '|---|---:|',
      `| the oracle (fixed notebooks) | ${count(oracle)}/${oracle.length} (${pct(count(oracle), oracle.length)}) |`,
      `| non-fixes (every family, every task) | ${count(nonFix)}/${nonFix.length} (${pct(count(nonFix), nonFix.length)}) |`,
      `| alternative correct fixes | ${count(alt)}/${alt.length} (${pct(count(alt), alt.length)}) |`,
      '',
      `Non-fixes rejected only by what running them showed (runtime evidence or a failed check; the static rules alone would have resolved them): ${nonFix.filter((a) => a.byBehaviour).length} of ${nonFix.length}.`,
      '',
      '| non-fix family | attempts | resolved | static rules | crashed | evidence of hiding | a failed check |',
      '|---|---:|---:|---:|---:|---:|---:|',
    );
    const families = [...new Set(nonFix.map((a) => a.group))];
    for (const f of families) {
      const xs = nonFix.filter((a) => a.group === f);
      const by = (pred: (a: (typeof xs)[number]) => boolean) => xs.filter(pred).length;
      out.push(
        `| ${f} | ${xs.length} | ${count(xs)} | ${by((a) => !a.byBehaviour && ['cells-missing', 'suppressed', 'disabled', 'invalid'].includes(a.outcome))} | ${by((a) => ['crashed', 'timeout', 'kernel-died', 'not-executed'].includes(a.outcome))} | ${by((a) => a.byBehaviour && a.outcome !== 'checks-failed')} | ${by((a) => a.outcome === 'checks-failed')} |`,
      );
    }
    out.push('', '| alternative correct fix | kind | instance | outcome |', '|---|---|---|---|');
    for (const a of alt)
      out.push(
        `| ${a.name} | ${a.group} | ${a.instance} | ${a.resolved ? 'resolved' : `${a.outcome}: ${(a.reason ?? '').replace(/\|/g, '\\|').slice(0, 160)}`} |`,
      );
    out.push('');
  }
  const cost = await readJson<CostBench>(path.join(here, 'cost.json'));
  if (cost) {
    out.push(
      '## The harness’s cost (local runtime, fixed notebooks)',
      '',
      `Median over ${cost.rounds} interleaved rounds of each fixed notebook's cells (wall and CPU time of the kernel), with no probe, with the harness recording evidence only (tracing from the first cell), and with it running the instance's checks too; setup is installing the harness, finish the evidence and the checks after the last cell.`,
      '',
      '| instance | cells (plain) | cells (evidence) | cells CPU (plain) | cells CPU (evidence) | CPU overhead | setup | finish with checks |',
      '|---|---:|---:|---:|---:|---:|---:|---:|',
    );
    const ids = [...new Set(cost.rows.map((r) => r.instance))];
    let plainCpu = 0;
    let tracedCpu = 0;
    for (const id of ids) {
      const row = (m: string) => cost.rows.find((r) => r.instance === id && r.mode === m)!;
      const p = row('plain');
      const e = row('evidence');
      const c = row('checks');
      plainCpu += median(p.cellsCpuMs);
      tracedCpu += median(e.cellsCpuMs);
      out.push(
        `| ${id} | ${median(p.cellsMs).toFixed(0)} ms | ${median(e.cellsMs).toFixed(0)} ms | ${median(p.cellsCpuMs).toFixed(0)} ms | ${median(e.cellsCpuMs).toFixed(0)} ms | ${pct(median(e.cellsCpuMs) - median(p.cellsCpuMs), median(p.cellsCpuMs))} | ${median(e.setupMs).toFixed(0)} ms | ${median(c.finishMs).toFixed(0)} ms |`,
      );
    }
    out.push(
      '',
      `Over all instances, the cells' CPU time grows by ${pct(tracedCpu - plainCpu, plainCpu)} with the tracing on.`,
      '',
    );
  }
  await writeFile(path.join(here, 'results.md'), out.join('\n'));
}

const part = flag('--part', 'report');
if (part === 'score') await scorePart();
else if (part === 'cost') await costPart();
else if (part === 'report') await reportPart();
else throw new Error(`unknown --part ${part} (score, cost, report)`);
