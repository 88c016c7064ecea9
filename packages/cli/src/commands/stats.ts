import path from 'node:path';
import type { Command } from 'commander';
import { JunoError, checkOutputPaths, writeJsonAtomic } from '@junobench/core';
import type { StatsRow } from '@junobench/labels';
import type { CliContext } from '../context.js';

const DEFAULT_INPUT = 'curated/benchmark.json';
const DEFAULT_OUT = 'curated/stats';

export function registerStatsCommand(program: Command, ctx: CliContext): void {
  program
    .command('stats')
    .description(
      'Counts and shares per library cause, crash type, root cause and pipeline stage, and the cross-tables library × root cause and pipeline stage × crash type: ' +
        'Markdown, JSON, and bar charts and heat maps as SVG and PNG.',
    )
    .option(
      '--input <file>',
      `curated benchmark (.json) or a benchmark-description sheet (.xlsx/.csv, read by the pool importer)`,
      DEFAULT_INPUT,
    )
    .option('--out <dir>', 'folder for stats.json, stats.md and charts/', DEFAULT_OUT)
    .option('--json <file>', 'also write the statistics JSON here')
    .option('--no-charts', 'skip the SVG/PNG charts')
    .action(async (opts: { input: string; out: string; json?: string; charts: boolean }) => {
      const { STATS_FILES, computeStats, formatStatsMarkdown, writeStats } = await import('@junobench/labels');
      const input = path.resolve(ctx.cwd, opts.input);
      const outDir = path.resolve(ctx.cwd, opts.out);
      await checkOutputPaths({
        inputs: [input],
        outputs: [
          { path: path.join(outDir, STATS_FILES.json), flag: '--out' },
          { path: path.join(outDir, STATS_FILES.markdown), flag: '--out' },
          { path: path.join(outDir, STATS_FILES.chartsDir), flag: '--out', folder: true },
          ...(opts.json ? [{ path: path.resolve(ctx.cwd, opts.json), flag: '--json' }] : []),
        ],
      });
      const rows = await readStatsInput(input, opts.input === DEFAULT_INPUT);
      const stats = computeStats(rows);
      const out = outDir;
      const written = await writeStats(out, stats, { charts: opts.charts });
      if (opts.json) await writeJsonAtomic(path.resolve(ctx.cwd, opts.json), stats, { schema: 'stats' });
      ctx.out(formatStatsMarkdown(stats));
      ctx.err(
        `wrote ${written.length} files to ${path.relative(ctx.cwd, out) || '.'}${opts.json ? ` and ${opts.json}` : ''}`,
      );
    });
}

async function readStatsInput(input: string, isDefault: boolean): Promise<StatsRow[]> {
  const ext = path.extname(input).toLowerCase();
  const { readBenchmarkRows, statsRowsFromRecords } = await import('@junobench/labels');
  if (ext === '.json') {
    try {
      return await readBenchmarkRows(input);
    } catch (e) {
      if (isDefault && e instanceof JunoError && e.code === 'E_INPUT_NOT_FOUND') {
        throw new JunoError('E_INPUT_NOT_FOUND', 'no curated benchmark yet', {
          location: { file: input },
          hint: 'run `junobench build` first, or pass --input <benchmark sheet .xlsx/.csv>',
          cause: e,
        });
      }
      throw e;
    }
  }
  if (ext === '.xlsx' || ext === '.csv' || ext === '.jsonl') {
    const { readPoolRecords } = await import('@junobench/pool');
    const { records, rejects } = await readPoolRecords(input, {
      format: ext === '.jsonl' ? 'jsonl' : 'benchmark',
    }).catch((e: unknown) => {
      if (ext === '.csv' && e instanceof JunoError && e.code === 'E_INPUT_COLUMNS') {
        // The toolchain's own curated benchmark.csv has other columns than the published description sheet.
        throw new JunoError(e.code, e.message, {
          ...(e.location ? { location: e.location } : {}),
          hint: 'a sheet like the published benchmark_desc (nb_name, eid, ename, evalue, traceback, …); for a curated benchmark pass its benchmark.json (e.g. --input curated/benchmark.json)',
          cause: e,
        });
      }
      throw e;
    });
    if (rejects.length > 0) {
      // Counting only the rows that imported would publish wrong numbers.
      const first = rejects[0]!;
      throw new JunoError(
        'E_INPUT_ROW',
        `${rejects.length} row${rejects.length === 1 ? '' : 's'} could not be read, so the statistics would be incomplete: ${first.reason}`,
        {
          location: { file: first.file, row: first.row, field: first.field },
          hint: 'fix the rows (`junobench pool import <file> -o pool.jsonl` lists them all in its rejects file)',
        },
      );
    }
    return statsRowsFromRecords(records, input);
  }
  throw new JunoError('E_INPUT_FORMAT', `cannot read statistics from a "${ext || 'extensionless'}" file`, {
    location: { file: input },
    hint: 'give curated/benchmark.json, a benchmark-description sheet (.xlsx or .csv), or a JSONL of CrashRecords',
  });
}
