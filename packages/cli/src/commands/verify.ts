import path from 'node:path';
import { Option, type Command } from 'commander';
import {
  JunoError,
  checkOutputPaths,
  readInstance,
  type InstanceVerification,
  type VerificationReport,
} from '@junobench/core';
import type { CliContext } from '../context.js';
import {
  addBenchmarkSetOptions,
  openBenchmarkSet,
  readsOfBenchmarkSet,
  type BenchmarkSetFlags,
} from './benchmark-set.js';
import { createRuntimeFromFlags, addRuntimeOptions, type RuntimeFlags } from './runtime-flags.js';
import {
  DEFAULT_CELL_TIMEOUT_SECONDS,
  DEFAULT_TIMEOUT_SECONDS,
  MAX_TIME_LIMIT_SECONDS,
  formatDuration,
  formatTable,
  parsePositiveInt,
  parseSeconds,
  printable,
} from './format.js';

interface VerifyFlags extends RuntimeFlags, BenchmarkSetFlags {
  jobs?: number;
  repeat: number;
  cache: boolean;
  cacheDir?: string;
  json?: string;
  prewarm: boolean;
  cellTimeout?: number;
  timeout?: number;
}

export function registerVerifyCommand(program: Command, ctx: CliContext): void {
  const cmd = program
    .command('verify')
    .description(
      'Execute instances in fresh Jupyter kernels: each reproduced notebook must crash as labelled, each fixed one must run.',
    )
    .argument('[instance-id...]', 'instances to verify (default: all)')
    .option('--instances <dir>', 'folder with one sub-folder per instance', 'raw/instances')
    .option('--jobs <n>', 'notebooks executed at once (default: number of CPUs)', parsePositiveInt)
    .option('--repeat <n>', 'runs per notebook; differing outcomes flag the instance as flaky', parsePositiveInt, 1)
    .option('--no-cache', 'ignore cached results and run everything (fresh results are still cached)')
    .option('--cache-dir <dir>', 'where per-instance results are cached (default: .junobench-cache)')
    .option('--json <file>', 'write all results as JSON (schemas/verification.schema.json)')
    .option('--no-prewarm', "don't import required modules while kernels start")
    .addOption(
      new Option(
        '--cell-timeout <s>',
        `seconds per cell (default: the instance's, else ${DEFAULT_CELL_TIMEOUT_SECONDS}; at most ${MAX_TIME_LIMIT_SECONDS})`,
      ).argParser(parseSeconds),
    )
    .addOption(
      new Option(
        '--timeout <s>',
        `seconds per notebook (default: the instance's, else ${DEFAULT_TIMEOUT_SECONDS}; at most ${MAX_TIME_LIMIT_SECONDS})`,
      ).argParser(parseSeconds),
    );
  addBenchmarkSetOptions(cmd);
  addRuntimeOptions(cmd);
  cmd.addHelpText(
    'after',
    '\nExit status: 0 all verified (skips allowed), 1 an instance is not verified or flaky, 2 bad input, 3 no usable runtime.\n' +
      'Examples:\n  junobench verify\n  junobench verify pandas_1 numpy_2 --repeat 3\n  junobench verify --include-drafts   # the drafts too\n' +
      '  junobench verify --release releases/junobench-0.2.0/junobench-0.2.0.tar.gz\n  junobench verify --runtime docker --json curated/verification.json',
  );
  cmd.action(async (ids: string[], flags: VerifyFlags) => {
    // Before any notebook runs: the results must not go into the instances they verify.
    if (flags.json)
      await checkOutputPaths({
        ...(await readsOfBenchmarkSet(flags, ctx)),
        outputs: [{ path: path.resolve(ctx.cwd, flags.json), flag: '--json' }],
      });
    const { report, drafts } = await runVerify(ids, flags, ctx);
    ctx.out(formatVerificationSummary(report, drafts));
    if (flags.json) {
      const { writeVerificationReport } = await import('@junobench/verify');
      await writeVerificationReport(path.resolve(ctx.cwd, flags.json), report);
      ctx.out(`results written to ${flags.json}`);
    }
    ctx.exitCode = report.summary.notVerified + report.summary.flaky > 0 ? 1 : 0;
  });
}

async function runVerify(
  ids: string[],
  flags: VerifyFlags,
  ctx: CliContext,
): Promise<{ report: VerificationReport; drafts: Set<string> }> {
  const { verifyInstances } = await import('@junobench/verify');
  const set = await openBenchmarkSet(flags, ctx, ids);
  const runtime = await createRuntimeFromFlags(flags, ctx).catch(async (e: unknown) => {
    await set.close();
    throw e;
  });
  const progress = ctx.progress('verify');
  try {
    const report = await verifyInstances({
      instancesDir: set.instancesDir,
      ids: set.ids,
      runtime,
      ...(flags.jobs ? { jobs: flags.jobs } : {}),
      repeat: flags.repeat,
      cacheDir: path.resolve(ctx.cwd, flags.cacheDir ?? ctx.env.JUNOBENCH_CACHE_DIR ?? '.junobench-cache'),
      useCache: flags.cache,
      prewarm: flags.prewarm,
      ...(flags.cellTimeout ? { cellTimeoutSeconds: flags.cellTimeout } : {}),
      ...(flags.timeout ? { timeoutSeconds: flags.timeout } : {}),
      onProgress: progress,
      onWarning: (m) => ctx.err(`warning: ${printable(m)}`),
    });
    return await withDraftTriage(report, set.instancesDir);
  } finally {
    progress.done();
    await runtime.close();
    await set.close();
  }
}

// A draft whose crash does not reproduce gets its cause in the words `add` uses (README, "Reproducing real crashes");
// every draft is named, so that the summary counts them apart from the benchmark.
async function withDraftTriage(
  report: VerificationReport,
  instancesDir: string,
): Promise<{ report: VerificationReport; drafts: Set<string> }> {
  const drafts = new Set<string>();
  for (const v of report.instances) {
    const instance = await readInstance(path.join(instancesDir, v.instance)).catch(() => undefined);
    if (instance?.status !== 'draft') continue;
    drafts.add(v.instance);
    if (v.status !== 'not-verified' && v.status !== 'skipped') continue;
    const { triageDraft, findingsOfInstance } = await import('@junobench/reproduce');
    const r = v.reproduced;
    const triage = triageDraft(
      {
        outcome: r.outcome as 'crash-mismatch',
        ...(r.reason ? { reason: r.reason } : {}),
        ...(r.observed
          ? { observed: { ename: r.observed.ename, evalue: r.observed.evalue, cell: r.observed.cell } }
          : {}),
        expected: instance.crash,
      },
      findingsOfInstance(instance),
    );
    if (triage) v.triage = triage;
  }
  return { report, drafts };
}

/**
 * The table and the summary. Drafts are counted apart: they are not in the benchmark, and their fix is absent or a
 * draft fix, so "verified" and "not verified" count the benchmark's instances alone.
 */
export function formatVerificationSummary(report: VerificationReport, drafts: ReadonlySet<string> = new Set()): string {
  const rows = report.instances.map((v) => [
    v.instance,
    v.reproduced.outcome,
    v.fixed.outcome,
    v.cached ? 'cached' : formatDuration(v.reproduced.durationMs + v.fixed.durationMs),
    statusWord(v, drafts.has(v.instance)),
  ]);
  const table = formatTable(['instance', 'reproduced', 'fixed', 'time', 'status'], rows);
  const notes = report.instances
    .filter((v) => v.status !== 'verified')
    .map((v) => `  ${v.instance}${drafts.has(v.instance) ? ' (draft)' : ''}: ${printable(explain(v))}`);
  const bench = report.instances.filter((v) => !drafts.has(v.instance) && v.status !== 'draft');
  const count = (s: InstanceVerification['status']) => bench.filter((v) => v.status === s).length;
  const draftRuns = report.instances.filter((v) => drafts.has(v.instance) || v.status === 'draft');
  const pending = draftRuns.filter((v) => v.status === 'draft').length;
  const failing = draftRuns.length - pending;
  const apart = [
    pending > 0 ? `${pending} reproducing the crash, fix pending` : '',
    failing > 0 ? `${failing} not reproducing it` : '',
  ].filter(Boolean);
  const line =
    (bench.length > 0
      ? `${count('verified')}/${bench.length} verified, ${count('not-verified')} not verified, ${count('flaky')} flaky, ${count('skipped')} skipped (${report.runtime} runtime)`
      : `no instance of the benchmark (${report.runtime} runtime)`) +
    (draftRuns.length > 0
      ? `; apart from them, ${draftRuns.length} draft${draftRuns.length === 1 ? '' : 's'} (not in the benchmark): ${apart.join(', ')}`
      : '');
  return [table, ...(notes.length > 0 ? ['', ...notes] : []), '', line].join('\n');
}

function statusWord(v: InstanceVerification, draft: boolean): string {
  if (draft && v.status !== 'draft') return v.status === 'verified' ? 'ok (draft)' : 'DRAFT: FAIL';
  return v.status === 'verified'
    ? 'ok'
    : v.status === 'skipped'
      ? 'SKIP'
      : v.status === 'flaky'
        ? 'FLAKY'
        : v.status === 'draft'
          ? 'DRAFT'
          : 'FAIL';
}

function explain(v: InstanceVerification): string {
  if (v.status === 'flaky' && v.repeats) {
    return `flaky: reproduced ${(v.repeats.reproduced ?? []).join('/')}; fixed ${(v.repeats.fixed ?? []).join('/')}`;
  }
  const parts: string[] = [];
  if (v.triage) parts.push(`cause ${v.triage.cause} — ${v.triage.detail}; next: ${v.triage.next}`);
  if (v.reproduced.outcome !== 'crash-reproduced')
    parts.push(`reproduced ${v.reproduced.outcome}${v.reproduced.reason ? ` (${v.reproduced.reason})` : ''}`);
  if (v.fixed.outcome !== 'fixed-ok' && !(v.status === 'skipped' && v.fixed.reason === v.reproduced.reason)) {
    parts.push(`fixed ${v.fixed.outcome}${v.fixed.reason ? ` (${v.fixed.reason})` : ''}`);
  }
  return parts.join('; ') || v.status;
}

export function assertRuntimeKind(kind: string): asserts kind is 'local' | 'docker' {
  if (kind !== 'local' && kind !== 'docker') {
    throw new JunoError('E_USAGE', `unknown runtime "${kind}"`, { hint: 'use --runtime local or --runtime docker' });
  }
}
