import { access, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import {
  JunoError,
  validateOrThrow,
  writeJsonAtomic,
  type ChecksReport,
  type ChecksSuggestion,
  type InstanceChecksResult,
} from '@junobench/core';
import type { CliContext } from '../context.js';
import { addBenchmarkSetOptions, openBenchmarkSet, type BenchmarkSetFlags } from './benchmark-set.js';
import { addRuntimeOptions, createRuntimeFromFlags, type RuntimeFlags } from './runtime-flags.js';
import { formatTable, parsePositiveInt } from './format.js';

interface ChecksFlags extends RuntimeFlags, BenchmarkSetFlags {
  jobs?: number;
  json?: string;
}

interface TestFlags extends ChecksFlags {
  cache: boolean;
  cacheDir?: string;
  fixedRuns: number;
  record?: string | boolean;
}

interface SuggestFlags extends ChecksFlags {
  write?: boolean;
  force?: boolean;
}

/** `junobench checks suggest|test`: per-instance checks, suggested and mutation-tested (docs/checks.md). */
export function registerChecksCommands(program: Command, ctx: CliContext): void {
  const checks = program
    .command('checks')
    .description(
      "Each instance's checks.py: what a fix must achieve, run in the kernel after a notebook's last cell (verify runs them on the fixed notebook, score on every repair).",
    );

  const suggest = checks
    .command('suggest')
    .description(
      "Run the fixed notebook, snapshot what its crash cell and the cells after it produce, derive candidate checks, run them on the fixed notebook twice and on every non-fix generated from the crashing notebook, and propose the few that pass the fix and reject every non-fix. The instance's checks.py is not changed unless --write.",
    )
    .argument('<instance-id>', 'the instance')
    .option('--instances <dir>', 'folder with one sub-folder per instance', 'raw/instances')
    .option('--jobs <n>', 'notebooks executed at once (default: number of CPUs)', parsePositiveInt)
    .option('--json <file>', 'write the suggestion as JSON (schemas/checks-suggestion.schema.json)')
    .option(
      '--write',
      'write the proposed checks.py into the instance folder (refused when it has one, unless --force)',
    )
    .option('--force', 'with --write: replace an existing checks.py');
  addBenchmarkSetOptions(suggest);
  addRuntimeOptions(suggest);
  suggest.addHelpText(
    'after',
    '\nExit status: 0 checks proposed that reject every non-fix that ran to the end, 1 some non-fix is not rejected (listed) or nothing could be proposed, 2 bad input, 3 no usable runtime.\n' +
      'Examples:\n  junobench checks suggest pandas_3\n  junobench checks suggest pandas_3 --write\n  junobench checks suggest pandas_3 --json suggestion.json',
  );
  suggest.action(async (id: string, flags: SuggestFlags) => {
    const { suggestChecks } = await import('@junobench/checks');
    const set = await openBenchmarkSet(flags, ctx, [id]);
    try {
      const runtime = await createRuntimeFromFlags(flags, ctx);
      const progress = ctx.progress('checks suggest');
      let s: ChecksSuggestion;
      try {
        s = await suggestChecks(path.join(set.instancesDir, id), {
          runtime,
          ...(flags.jobs ? { jobs: flags.jobs } : {}),
          onProgress: progress,
        });
      } finally {
        progress.done();
        await runtime.close();
      }
      ctx.out(formatSuggestion(s));
      if (flags.json) {
        await writeJsonAtomic(
          path.resolve(ctx.cwd, flags.json),
          validateOrThrow('checks-suggestion', s, { file: flags.json }),
        );
        ctx.out(`suggestion written to ${flags.json}`);
      }
      if (flags.write && s.file) {
        const target = path.join(set.instancesDir, id, 'checks.py');
        if (!flags.force && (await exists(target)))
          throw new JunoError('E_USAGE', `${target} exists: not replaced`, {
            hint: 'review the proposal above and edit the file, or pass --force to replace it',
          });
        await writeFile(target, s.file);
        ctx.out(`checks written to ${target}`);
      }
      ctx.exitCode = s.status === 'suggested' && s.uncovered.length === 0 ? 0 : s.status === 'skipped-env' ? 0 : 1;
    } finally {
      await set.close();
    }
  });

  const test = checks
    .command('test')
    .description(
      "Mutation-test each instance's checks: the fixed notebook must pass them on every run; every non-fix generated from the crashing notebook (statement deleted, replaced, guarded, commented out, moved into dead code; cell wrapped; output faked; exception swallowed; library call patched) must be rejected, by a failed check, runtime evidence of hiding or its own crash. Prints each instance's mutation score and the mutants that survive.",
    )
    .argument('[instance-id...]', 'instances to test (default: all but drafts and deprecated ones)')
    .option('--instances <dir>', 'folder with one sub-folder per instance', 'raw/instances')
    .option('--jobs <n>', 'notebooks executed at once (default: number of CPUs)', parsePositiveInt)
    .option('--fixed-runs <n>', 'runs of the fixed notebook, each of which must pass the checks', parsePositiveInt, 2)
    .option('--json <file>', 'write the results as JSON (schemas/checks-report.schema.json)')
    .option(
      '--record [file]',
      'merge the results into the record the build reads (default: checks-report.json beside the instances folder, raw/checks-report.json); `release prepare` refuses an instance whose recorded checks let a mutant survive',
    )
    .option('--no-cache', 'ignore cached results (fresh ones are still cached)')
    .option('--cache-dir <dir>', 'where per-instance results are cached (default: .junobench-cache)');
  addBenchmarkSetOptions(test);
  addRuntimeOptions(test);
  test.addHelpText(
    'after',
    '\nExit status: 0 every instance at 100% (or its survivors waived in instance.json, checks.waive), 1 a mutant survives unwaived or the fixed notebook fails its checks, 2 bad input, 3 no usable runtime.\n' +
      'Examples:\n  junobench checks test\n  junobench checks test pandas_3 numpy_2 --json checks.json\n  junobench checks test pandas_3 --record   # into raw/checks-report.json, which the build records',
  );
  test.action(async (ids: string[], flags: TestFlags) => {
    const record = flags.record === undefined || flags.record === false ? undefined : flags.record;
    if (record !== undefined && flags.release)
      throw new JunoError('E_USAGE', "--record updates the raw tree's record: it does not go with --release", {
        hint: 'leave out --record, or use --json <file> to keep the results',
      });
    const { testChecks } = await import('@junobench/checks');
    const set = await openBenchmarkSet(flags, ctx, ids);
    try {
      const runtime = await createRuntimeFromFlags(flags, ctx);
      const progress = ctx.progress('checks test');
      let report: ChecksReport;
      try {
        report = await testChecks(
          set.ids.map((id) => path.join(set.instancesDir, id)),
          {
            runtime,
            ...(flags.jobs ? { jobs: flags.jobs } : {}),
            fixedRuns: flags.fixedRuns,
            cacheDir: path.resolve(ctx.cwd, flags.cacheDir ?? ctx.env.JUNOBENCH_CACHE_DIR ?? '.junobench-cache'),
            useCache: flags.cache,
            onProgress: progress,
          },
        );
      } finally {
        progress.done();
        await runtime.close();
      }
      ctx.out(formatChecksReport(report));
      if (flags.json) {
        await writeJsonAtomic(
          path.resolve(ctx.cwd, flags.json),
          validateOrThrow('checks-report', report, { file: flags.json }),
        );
        ctx.out(`results written to ${flags.json}`);
      }
      if (record !== undefined) {
        const { defaultChecksRecord, writeChecksRecord } = await import('@junobench/checks');
        const file = typeof record === 'string' ? path.resolve(ctx.cwd, record) : defaultChecksRecord(set.instancesDir);
        await writeChecksRecord(file, report);
        ctx.out(`recorded in ${path.relative(ctx.cwd, file) || file}`);
      }
      ctx.exitCode = report.instances.some((r) => FAILING.has(r.status)) ? 1 : 0;
    } finally {
      await set.close();
    }
  });
}

const FAILING: ReadonlySet<InstanceChecksResult['status']> = new Set(['survivors', 'fixed-fails', 'error']);

const pct = (v: number | null) => (v === null ? '—' : `${(v * 100).toFixed(1)}%`);

/** The table of `checks test`: each instance's mutation score and survivors, then a summary line. */
export function formatChecksReport(report: ChecksReport): string {
  const rows = report.instances.map((r) => [
    r.instance,
    r.status,
    String(r.checks.length),
    `${r.score.rejected}/${r.score.generated}`,
    pct(r.score.value),
    r.fixed.runs > 0 ? `${r.fixed.passed}/${r.fixed.runs}` : '—',
    r.cached ? 'cached' : '',
  ]);
  const table = formatTable(['instance', 'status', 'checks', 'rejected', 'score', 'fixed ok', ''], rows);
  const notes: string[] = [];
  for (const r of report.instances) {
    if (r.reason && r.status !== 'complete') notes.push(`${r.instance}: ${r.reason}`);
    for (const id of r.survivors) {
      const m = r.mutants.find((x) => x.id === id);
      const w = r.waived.find((x) => x.mutant === id);
      notes.push(`  survivor ${id}: ${m?.description ?? ''}${w ? ` (waived: ${w.reason})` : ''}`);
    }
  }
  const s = report.summary;
  const line = `${s.rejected}/${s.mutants} mutants rejected (${pct(s.mutants > 0 ? s.rejected / s.mutants : null)}); ${s.complete}/${s.instances} instances complete, ${s.skipped} skipped (${report.runtime} runtime)`;
  return [table, ...(notes.length > 0 ? ['', ...notes] : []), '', line].join('\n');
}

/** The proposal of `checks suggest`: the file, then how the mutants fared. */
export function formatSuggestion(s: ChecksSuggestion): string {
  if (s.status !== 'suggested') return `${s.instance}: ${s.status}${s.reason ? ` (${s.reason})` : ''}`;
  const out = [s.file ?? '', `# ${s.checks.length} checks chosen from ${s.candidates} candidates.`];
  const rows = s.mutants.map((m) => [
    m.id,
    m.outcome,
    (m.failed ?? []).length > 0 ? `${m.failed!.length} candidates` : '',
  ]);
  out.push('', formatTable(['mutant', 'with every candidate', 'rejected by'], rows));
  if (s.dropped.length > 0) out.push('', `left out (a fixed run failed them): ${s.dropped.join(', ')}`);
  out.push(
    '',
    s.uncovered.length > 0
      ? `not rejected by any proposed check: ${s.uncovered.join(', ')} — write a check for each, or waive it in instance.json (checks.waive)`
      : 'every non-fix that ran to the end is rejected by a proposed check',
  );
  return out.join('\n');
}

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}
