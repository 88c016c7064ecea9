import { stat } from 'node:fs/promises';
import path from 'node:path';
import { Option, type Command } from 'commander';
import { JunoError, checkOutputPaths, formatJson, validateOrThrow, writeFileAtomic } from '@junobench/core';
import type { Runtime } from '@junobench/runtime';
import type { CliContext } from '../context.js';
import {
  addBenchmarkSetOptions,
  openBenchmarkSet,
  readsOfBenchmarkSet,
  type BenchmarkSetFlags,
} from './benchmark-set.js';
import { defaultTrajectories } from './serve.js';
import { addRuntimeOptions, createRuntimeFromFlags, sandboxUnavailable, type RuntimeFlags } from './runtime-flags.js';
import {
  DEFAULT_CELL_TIMEOUT_SECONDS,
  DEFAULT_TIMEOUT_SECONDS,
  MAX_TIME_LIMIT_SECONDS,
  formatDuration,
  parsePositiveInt,
  parseSeconds,
  printable,
  showPath,
} from './format.js';

const MAX_PROBLEMS_SHOWN = 20;

interface ScoreFlags extends RuntimeFlags, BenchmarkSetFlags {
  tasks?: string;
  tool?: string;
  seed?: string;
  jobs?: number;
  json?: string;
  out?: string;
  lenient?: boolean;
  cellTimeout?: number;
  timeout?: number;
  trajectories?: string | false;
}

// Verb: score (docs/scoring.md); `tasks export` and `baseline` are in tasks.ts and baseline.ts. Library packages are
// imported inside each action (`await import('@junobench/...')`) so that other commands do not pay for loading them.
export function registerScoreCommands(program: Command, ctx: CliContext): void {
  const resolve = (p: string) => path.resolve(ctx.cwd, p);
  const show = (p: string) => showPath(ctx.cwd, p);

  const score = program
    .command('score')
    .description(
      'Score a predictions file (schemas/prediction.schema.json: {task, id, attempt?, answer}). detect: accuracy of crash / no crash, of the cell ' +
        'and of the exception class; diagnose: accuracy and macro-F1 per dimension, and per library; repair: every repaired notebook is executed ' +
        '(resolved = does what the fix does: runs to the end without an exception, every code cell still there and executed, the crash cell included, no exception handler or constant-false guard added, at run time no exception of the labelled class swallowed and no library function replaced, and every check of the instance passed); pass@k with several attempts. ' +
        'A missing prediction counts as wrong. Repairs are untrusted code: they run in the docker runtime when an engine and the benchmark image are available.',
    )
    .argument(
      '<predictions.jsonl...>',
      'the predictions to score; two or more files (one per tool): also a comparison (95% bootstrap intervals over instances, paired differences, McNemar tests)',
    )
    .option('--tool <names>', "the tools' names, one per predictions file, comma-separated (default: each file's name)")
    .option(
      '--tasks <tasks.jsonl>',
      'the tasks file the predictions answer (default: every task of the instances, of the kinds the predictions use)',
    )
    .option('--instances <dir>', 'the instances the tasks were exported from', 'raw/instances')
    .option('--seed <seed>', 'the seed the tasks were exported with')
    .option('--jobs <n>', 'repaired notebooks executed at once (default: number of CPUs)', parsePositiveInt)
    .option(
      '--json <file>',
      'write the scorecard as JSON (schemas/scorecard.schema.json); with several files, the comparison (schemas/comparison.schema.json)',
    )
    .option(
      '--out <dir>',
      'write the scorecard there: scorecard.md, scorecard.json and an SVG chart per dimension; with several files, <dir>/<tool>/ each and comparison.md, comparison.json, comparison.svg',
    )
    .option(
      '--trajectories <dirs>',
      "the sessions' trajectories (`serve`, `baseline agent`), one folder per predictions file, comma-separated: calls and time per task in the scorecard (default: <predictions without .jsonl>.trajectories/ when it exists)",
    )
    .option('--no-trajectories', 'leave the trajectories out even when they are beside the predictions')
    .option(
      '--lenient',
      'score the lines that can be scored; report malformed lines and unknown tasks instead of failing',
    )
    .addOption(
      new Option(
        '--cell-timeout <s>',
        `seconds per cell of a repair (default: the instance's, else ${DEFAULT_CELL_TIMEOUT_SECONDS}; at most ${MAX_TIME_LIMIT_SECONDS})`,
      ).argParser(parseSeconds),
    )
    .addOption(
      new Option(
        '--timeout <s>',
        `seconds per repaired notebook (default: the instance's, else ${DEFAULT_TIMEOUT_SECONDS}; at most ${MAX_TIME_LIMIT_SECONDS})`,
      ).argParser(parseSeconds),
    );
  addBenchmarkSetOptions(score);
  addRuntimeOptions(score);
  // Repairs are untrusted: here the default is the sandbox when there is one (see chooseRuntime).
  const runtimeOption = score.options.find((o) => o.long === '--runtime');
  if (runtimeOption) {
    runtimeOption.description = 'where repaired notebooks run';
    runtimeOption.defaultValueDescription =
      'docker when an engine answers and the benchmark image is in it, else local';
  }
  score.addHelpText(
    'after',
    '\nExit status: 0 scored, 2 bad input (a malformed prediction line or an unknown task, named by line number, unless --lenient), 3 no usable runtime.\n' +
      'Examples:\n  junobench score predictions.jsonl --tasks tasks.jsonl --out scorecard/\n  junobench score predictions.jsonl --tasks tasks.jsonl --runtime docker --jobs 2 --json scorecard.json\n' +
      '  junobench score oracle.jsonl heuristic.jsonl --tasks tasks.jsonl --release releases/junobench-0.2.0 --out compare/',
  );
  score.action(async (predictionFiles: string[], flags: ScoreFlags) => {
    const { writeScorecard, formatScoreSummary, listScorecardFiles, defaultToolName } =
      await import('@junobench/score');
    const { listComparisonFiles } = await import('@junobench/compare');
    const several = predictionFiles.length > 1;
    const tools = flags.tool
      ? flags.tool.split(',').map((t) => t.trim())
      : predictionFiles.map((p) => defaultToolName(p));
    const badTool = tools.find((t) => !/^[A-Za-z0-9][A-Za-z0-9_.+-]*$/.test(t));
    if (several && badTool !== undefined)
      throw new JunoError('E_USAGE', `the tool name "${badTool}" cannot name a folder of --out`, {
        hint: 'name the tools with letters, digits and . _ + - (e.g. --tool gpt-4o,heuristic)',
      });
    const cardDir = (i: number) =>
      flags.out ? (several ? path.join(resolve(flags.out), tools[i]!) : resolve(flags.out)) : undefined;
    // Before any repair runs: a scorecard that cannot be written, or would replace the predictions, fails now.
    if (flags.out) {
      const st = await stat(resolve(flags.out)).catch(() => undefined);
      if (st && !st.isDirectory()) {
        throw new JunoError(
          'E_USAGE',
          `--out ${flags.out} is a file; give a folder (score writes scorecard.md, scorecard.json and the charts into it)`,
          {
            location: { file: resolve(flags.out) },
            hint: '--json <file> writes the scorecard JSON alone to a file',
          },
        );
      }
    }
    const trajectories = await findTrajectories(predictionFiles.map(resolve), flags.trajectories, resolve);
    const reads = await readsOfBenchmarkSet(flags, ctx);
    await checkOutputPaths({
      inputs: [
        ...predictionFiles.map((p) => resolve(p)),
        ...(flags.tasks ? [resolve(flags.tasks)] : []),
        ...reads.inputs,
      ],
      trees: reads.trees,
      outputs: [
        ...(flags.out ? [{ path: resolve(flags.out), flag: '--out', folder: true }] : []),
        ...(flags.json ? [{ path: resolve(flags.json), flag: '--json' }] : []),
        ...predictionFiles.flatMap((_, i) =>
          cardDir(i) ? listScorecardFiles(cardDir(i)!).map((file) => ({ path: file, flag: '--out' })) : [],
        ),
        ...(flags.out && several
          ? listComparisonFiles(resolve(flags.out)).map((file) => ({ path: file, flag: '--out' }))
          : []),
      ],
    });
    const explicitRuntime = score.getOptionValueSource('runtime') !== 'default';
    let chosen: Awaited<ReturnType<typeof chooseRuntime>> | undefined;
    const createRuntime = async (): Promise<Runtime> => {
      chosen = await chooseRuntime(flags, explicitRuntime, ctx);
      return chosen.runtime;
    };
    const onExecute = (runtime: Runtime, runs: number) => {
      if (runtime.kind !== 'local') return;
      if (runtime.sandboxed) {
        ctx.err(
          `note: the ${runs} repaired notebook${runs > 1 ? 's run' : ' runs'} in the local runtime's bubblewrap sandbox (no network, none of your files${chosen?.why ? `; ${chosen.why}` : ''}).` +
            (runs > 1
              ? ' They share its folder and home, so one could change what a later one sees: for repairs you did not write, use --runtime docker (docs/security.md).'
              : ''),
        );
        return;
      }
      ctx.err(
        `warning: the ${runs} repaired notebook${runs > 1 ? 's are' : ' is'} untrusted code and will run UNSANDBOXED in the local runtime, with your user's rights${chosen?.why ? ` (${chosen.why})` : ''}. ` +
          'To sandbox them: sh tools/setup-engine.sh && npx junobench image build, then score --runtime docker.',
      );
    };
    // Importing every module the repair tasks need (torch, tensorflow…) takes tens of seconds with nothing else on
    // screen.
    const onCheckRuntime = (runtime: Runtime, modules: readonly string[]) => {
      if (modules.length === 0) return;
      const listed =
        modules.length > 8 ? `${modules.slice(0, 8).join(', ')} and ${modules.length - 8} more` : modules.join(', ');
      ctx.err(`checking which modules the repair tasks need the ${runtime.kind} runtime can import (${listed})…`);
    };
    let current = 0;
    // With --lenient, the lines left out are said before any repair runs, not after minutes of them.
    const onLeftOut = (problems: readonly { line: number; message: string }[]) => {
      const file = show(resolve(predictionFiles[current]!));
      for (const p of problems.slice(0, MAX_PROBLEMS_SHOWN))
        ctx.err(`warning: ${file} line ${p.line}: ${printable(p.message)} (left out)`);
      if (problems.length > MAX_PROBLEMS_SHOWN)
        ctx.err(
          `warning: … and ${problems.length - MAX_PROBLEMS_SHOWN} more (the scorecard, --out or --json, lists every line left out)`,
        );
    };
    const { scoreTools } = await import('@junobench/evaluate');
    const set = await openBenchmarkSet(flags, ctx);
    const progress = ctx.progress('score');
    let scored;
    try {
      scored = await scoreTools({
        set,
        predictions: predictionFiles.map((p) => resolve(p)),
        tools,
        trajectories,
        ...(flags.tasks ? { tasks: resolve(flags.tasks) } : {}),
        ...(flags.seed ? { seed: flags.seed } : {}),
        lenient: flags.lenient === true,
        repair: {
          createRuntime,
          // With --shared-instances, workers read every folder in place and refuse one outside the shared folder: the
          // repairs' scratch copies (made here, per attempt) must be in it too, not in $TMPDIR.
          ...(flags.queue && flags.sharedInstances
            ? { scratchRoot: path.join(resolve(flags.sharedInstances), '.junobench-score') }
            : {}),
          onCheckRuntime,
          onExecute,
          ...(flags.jobs ? { jobs: flags.jobs } : {}),
          ...(flags.cellTimeout ? { cellTimeoutSeconds: flags.cellTimeout } : {}),
          ...(flags.timeout ? { timeoutSeconds: flags.timeout } : {}),
        },
        onTool: (tool, i) => {
          current = i;
          if (several) ctx.err(`scoring ${tool} (${show(resolve(predictionFiles[i]!))})…`);
        },
        onProgress: progress,
        onLeftOut,
      });
    } finally {
      progress.done();
      await set.close();
    }
    for (const [i, { tool, result }] of scored.results.entries()) {
      const card = result.scorecard;
      if (several) ctx.out(`\n${tool}`);
      ctx.out(formatScoreSummary(card));
      if (result.repairRuns > 0) {
        ctx.out(
          `repairs: ${result.repairRuns} notebook${result.repairRuns > 1 ? 's' : ''} executed in ${formatDuration(result.repairMs)} (${card.runtime?.kind} runtime, ${card.runtime?.sandboxed ? 'sandboxed' : 'not sandboxed'})`,
        );
      }
      const dir = cardDir(i);
      const written = await writeScorecard(card, {
        ...(dir ? { out: dir } : {}),
        ...(flags.json && !several ? { json: resolve(flags.json) } : {}),
      });
      if (dir)
        ctx.out(
          `scorecard written to ${show(dir)}/ (scorecard.md, scorecard.json, ${written.filter((f) => f.endsWith('.svg')).length} charts)`,
        );
    }
    if (scored.comparison) {
      const { formatComparisonSummary, writeComparison } = await import('@junobench/compare');
      ctx.out(`\ncomparison (95% bootstrap intervals over instances; p: McNemar's exact test)`);
      ctx.out(formatComparisonSummary(scored.comparison));
      if (flags.out) {
        await writeComparison(scored.comparison, resolve(flags.out));
        ctx.out(`comparison written to ${show(resolve(flags.out))}/ (comparison.md, comparison.json, comparison.svg)`);
      }
      if (flags.json) {
        validateOrThrow('comparison', scored.comparison, {}, 'E_INTERNAL');
        await writeFileAtomic(resolve(flags.json), formatJson(scored.comparison));
      }
    }
    if (flags.json) ctx.out(`${several ? 'comparison' : 'scorecard'} JSON written to ${show(resolve(flags.json))}`);
  });
}

/**
 * The trajectories folder of each predictions file: the ones given (one per file), else the folder `serve` writes
 * beside a predictions file when it is there.
 */
async function findTrajectories(
  predictions: readonly string[],
  given: string | false | undefined,
  resolve: (p: string) => string,
): Promise<(string | undefined)[]> {
  if (given === false) return predictions.map(() => undefined);
  if (given === undefined)
    return Promise.all(
      predictions.map(async (p) => {
        const dir = defaultTrajectories(p);
        return (await stat(dir).catch(() => undefined))?.isDirectory() ? dir : undefined;
      }),
    );
  const dirs = given.split(',').map((d) => d.trim());
  if (dirs.length !== predictions.length || dirs.some((d) => d === ''))
    throw new JunoError(
      'E_USAGE',
      `--trajectories names ${dirs.length} folder${dirs.length === 1 ? '' : 's'} for ${predictions.length} predictions file${predictions.length === 1 ? '' : 's'}`,
      {
        hint: 'give one trajectories folder per predictions file, in the same order: --trajectories a.trajectories,b.trajectories',
      },
    );
  return dirs.map(resolve);
}

/**
 * The runtime repairs run in. Asked for explicitly (--runtime, or a queue):
 * that one. Otherwise the sandbox when it is there — a container engine that
 * answers and the benchmark image recorded by `junobench image build` present
 * in it — else the local runtime, with the reason.
 */
async function chooseRuntime(
  flags: ScoreFlags,
  explicit: boolean,
  ctx: CliContext,
): Promise<{ runtime: Runtime; kind: 'local' | 'docker'; why?: string }> {
  const queued = Boolean((flags as { queue?: unknown }).queue);
  if (explicit || queued) {
    const runtime = await createRuntimeFromFlags(flags, ctx);
    const why = queued ? 'queue workers with the local runtime' : '--runtime local';
    return { runtime, kind: runtime.kind, ...(runtime.kind === 'local' ? { why } : {}) };
  }
  const why = await dockerUnavailable(flags, ctx);
  if (!why) {
    const runtime = await createRuntimeFromFlags({ ...flags, runtime: 'docker' }, ctx);
    return { runtime, kind: 'docker' };
  }
  const runtime = await createRuntimeFromFlags({ ...flags, runtime: 'local' }, ctx);
  return { runtime, kind: 'local', why };
}

async function dockerUnavailable(flags: ScoreFlags, ctx: CliContext): Promise<string | undefined> {
  let tag = flags.image;
  if (!tag) {
    const { readImageRecord } = await import('@junobench/image');
    try {
      tag = (await readImageRecord(path.resolve(ctx.cwd, 'curated/image.json'))).tag;
    } catch {
      return 'no benchmark image recorded yet';
    }
  }
  return sandboxUnavailable(ctx, tag);
}
