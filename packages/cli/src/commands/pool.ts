import path from 'node:path';
import { Option, type Command } from 'commander';
import { checkOutputPaths, compareCodePoints } from '@junobench/core';
import type { ImportFormat, LibcauseEvaluation } from '@junobench/pool';
import type { CliContext } from '../context.js';
import { formatTable, parsePositiveInt } from './format.js';

// @junobench/pool (and exceljs behind it) is imported inside the actions (CONTRIBUTING.md: imports in
// the CLI). The --format choices the help shows are its IMPORT_FORMATS, copied: the type check fails
// when a format is missing here.
const IMPORT_FORMATS = [
  'auto',
  'empirical',
  'benchmark',
  'jsonl',
  'csv',
  'notebooks',
] as const satisfies readonly ImportFormat[];
const _everyFormat: [Exclude<ImportFormat, (typeof IMPORT_FORMATS)[number]>] extends [never] ? true : never = true;

const MAX_WARNINGS_SHOWN = 20;

export function registerPoolCommand(program: Command, ctx: CliContext): void {
  const resolve = (p: string) => path.resolve(ctx.cwd, p);
  // Paths as the user would type them: relative inside the working folder, absolute outside it.
  const show = (p: string) => {
    const rel = path.relative(ctx.cwd, p);
    return rel === '' || rel.startsWith('..') || path.isAbsolute(rel) ? p : rel;
  };
  const pool = program
    .command('pool')
    .description(
      'The raw crash pool: import sources, filter by criteria, estimate the library cause, resample per library.',
    );

  pool
    .command('import')
    .description(
      'Import crash sources into one pool JSONL of CrashRecords: empirical-study or benchmark-description sheets (.xlsx/.csv), ' +
        'JSONL of CrashRecords, or notebooks (.ipynb files or folders: every saved error output is a crash). ' +
        'Rows that cannot become records go to the rejects file with their row and reason.',
    )
    .argument('<inputs...>', 'sheets, .jsonl files, notebooks or folders of notebooks')
    .requiredOption('-o, --output <pool.jsonl>', 'the pool to write')
    .addOption(
      new Option('--format <format>', 'input format (auto: by extension, and by columns for sheets)')
        .choices([...IMPORT_FORMATS])
        .default('auto'),
    )
    .option('--rejects <file>', 'where rejected rows go (default: <output>.rejects.jsonl)')
    .action(async (inputs: string[], opts: { output: string; format: ImportFormat; rejects?: string }) => {
      await checkOutputPaths({
        inputs: inputs.map(resolve),
        outputs: [
          { path: resolve(opts.output), flag: '-o' },
          ...(opts.rejects ? [{ path: resolve(opts.rejects), flag: '--rejects' }] : []),
        ],
      });
      const { importPool } = await import('@junobench/pool');
      const progress = ctx.progress('pool import');
      const report = await withProgress(progress, (onProgress) =>
        importPool(inputs.map(resolve), {
          format: opts.format,
          output: resolve(opts.output),
          ...(opts.rejects ? { rejects: resolve(opts.rejects) } : {}),
          onProgress,
        }),
      );
      for (const r of report.inputs) {
        const warn = r.warnings.length > 0 ? `, ${r.warnings.length} warning${r.warnings.length > 1 ? 's' : ''}` : '';
        ctx.out(
          `${show(r.input)} (${r.format}, ${r.container}): read ${r.read}, imported ${r.imported}, rejected ${r.rejected}${warn}`,
        );
      }
      const warnings = report.inputs.flatMap((r) => r.warnings);
      for (const w of warnings.slice(0, MAX_WARNINGS_SHOWN))
        ctx.err(`warning: ${show(w.file)} row ${w.row}: ${w.message}`);
      if (warnings.length > MAX_WARNINGS_SHOWN) ctx.err(`warning: … and ${warnings.length - MAX_WARNINGS_SHOWN} more`);
      const t = report.total;
      ctx.out(`total: read ${t.read}, imported ${t.imported}, rejected ${t.rejected}`);
      ctx.out(`wrote ${show(report.output)} (${t.imported} records)`);
      ctx.out(
        `rejects: ${show(report.rejects)} (${t.rejected} rows)${t.rejected > 0 ? ' — each line names the file, row and reason' : ''}`,
      );
    });

  pool
    .command('filter')
    .description(
      'Keep the records that pass every step of a criteria file (keep/drop steps; see docs/formats.md), with a funnel report.',
    )
    .requiredOption('-i, --input <pool.jsonl>', 'the pool to filter')
    .requiredOption('--criteria <criteria.json>', 'the criteria file (e.g. raw/criteria/junobench.json)')
    .requiredOption('-o, --output <kept.jsonl>', 'where the kept records go')
    .option('--report <funnel.json>', 'also write the funnel report as JSON')
    .action(async (opts: { input: string; criteria: string; output: string; report?: string }) => {
      await checkOutputPaths({
        inputs: [resolve(opts.input), resolve(opts.criteria)],
        outputs: [
          { path: resolve(opts.output), flag: '-o' },
          ...(opts.report ? [{ path: resolve(opts.report), flag: '--report' }] : []),
        ],
      });
      const { filterPool } = await import('@junobench/pool');
      const progress = ctx.progress('pool filter');
      const result = await withProgress(progress, (onProgress) =>
        filterPool({
          input: resolve(opts.input),
          criteria: resolve(opts.criteria),
          output: resolve(opts.output),
          ...(opts.report ? { report: resolve(opts.report) } : {}),
          onProgress,
        }),
      );
      ctx.out(
        formatTable(
          ['step', 'action', 'in', 'kept', 'removed'],
          result.steps.map((s, i) => [
            `${i + 1}. ${s.name}`,
            s.action,
            String(s.in),
            String(s.kept),
            String(s.removed),
          ]),
        ),
      );
      ctx.out(`kept ${result.kept} of ${result.input} records → ${show(result.output)}`);
      if (result.reportFile) ctx.out(`funnel report: ${show(result.reportFile)}`);
    });

  pool
    .command('libcause')
    .description(
      'Estimate the library that caused each crash from its traceback (library frames, exception class, crashing line, imports) ' +
        'and set predictedLibrary. With --eval, compare with the labelled library and print accuracy and a confusion table.',
    )
    .requiredOption('-i, --input <pool.jsonl>', 'the pool')
    .requiredOption('-o, --output <out.jsonl>', 'the pool with predictedLibrary set')
    .option('--eval', 'score the estimate against labelled records; the last line is "accuracy: 0.xxx (hits/total)"')
    .option('--report <file>', 'also write the library estimate report as JSON')
    .action(async (opts: { input: string; output: string; eval?: boolean; report?: string }) => {
      await checkOutputPaths({
        inputs: [resolve(opts.input)],
        outputs: [
          { path: resolve(opts.output), flag: '-o' },
          ...(opts.report ? [{ path: resolve(opts.report), flag: '--report' }] : []),
        ],
      });
      const { libcausePool } = await import('@junobench/pool');
      const progress = ctx.progress('pool libcause');
      const result = await withProgress(progress, (onProgress) =>
        libcausePool({
          input: resolve(opts.input),
          output: resolve(opts.output),
          eval: opts.eval === true,
          ...(opts.report ? { report: resolve(opts.report) } : {}),
          onProgress,
        }),
      );
      const counts = Object.entries(result.predicted).sort((a, b) => b[1] - a[1] || compareCodePoints(a[0], b[0]));
      ctx.out(`predicted libraries: ${counts.map(([l, n]) => `${l} ${n}`).join(', ') || '(no records)'}`);
      ctx.out(`wrote ${show(result.output)} (${result.records} records)`);
      if (result.reportFile) ctx.out(`report: ${show(result.reportFile)}`);
      if (opts.eval) {
        const ev = result.evaluation!;
        if (ev.total === 0) {
          ctx.out('no record has a labelled library: nothing to compare with');
        } else {
          ctx.out('');
          ctx.out(`confusion (rows: labelled library, columns: predicted) over ${ev.total} labelled records:`);
          ctx.out(formatConfusion(ev));
          ctx.out('');
          ctx.out(
            formatTable(
              ['library', 'labelled', 'predicted', 'hits', 'recall', 'precision'],
              Object.entries(ev.perLibrary).map(([lib, s]) => [
                lib,
                String(s.labelled),
                String(s.predicted),
                String(s.hits),
                s.recall.toFixed(3),
                s.precision.toFixed(3),
              ]),
            ),
          );
          ctx.out('');
          const b = result.baseline!;
          ctx.out(
            `baseline (keyword counting over the traceback, crash line ×3): ${b.accuracy.toFixed(3)} (${b.hits}/${b.total})`,
          );
        }
        ctx.out(`accuracy: ${ev.accuracy.toFixed(3)} (${ev.hits}/${ev.total})`);
      }
    });

  pool
    .command('resample')
    .description(
      'Draw a balanced sample: up to N crashes per library (the labelled library, else the predicted one), ' +
        'seeded and the same whatever the order of the pool. Reports the libraries that fall short.',
    )
    .requiredOption('-i, --input <pool.jsonl>', 'the pool (after pool libcause, for unlabelled records)')
    .requiredOption('--per-library <n>', 'at most this many crashes per library', parsePositiveInt)
    .option('--libraries <a,b,…>', 'only these libraries (e.g. pandas,numpy,tensorflow)')
    .requiredOption('--seed <s>', 'seed of the draw (the same seed gives the same sample)')
    .requiredOption('-o, --output <sample.jsonl>', 'where the sample goes')
    .option('--report <file>', 'also write the resample report as JSON')
    .action(
      async (opts: {
        input: string;
        perLibrary: number;
        libraries?: string;
        seed: string;
        output: string;
        report?: string;
      }) => {
        await checkOutputPaths({
          inputs: [resolve(opts.input)],
          outputs: [
            { path: resolve(opts.output), flag: '-o' },
            ...(opts.report ? [{ path: resolve(opts.report), flag: '--report' }] : []),
          ],
        });
        const { resamplePool } = await import('@junobench/pool');
        const progress = ctx.progress('pool resample');
        const result = await withProgress(progress, (onProgress) =>
          resamplePool({
            input: resolve(opts.input),
            output: resolve(opts.output),
            perLibrary: opts.perLibrary,
            seed: opts.seed,
            ...(opts.libraries ? { libraries: opts.libraries.split(',') } : {}),
            ...(opts.report ? { report: resolve(opts.report) } : {}),
            onProgress,
          }),
        );
        ctx.out(
          formatTable(
            ['library', 'available', 'selected'],
            result.libraries.map((l) => [l.library, String(l.available), String(l.selected)]),
          ),
        );
        if (result.shortfalls.length > 0) {
          ctx.out(
            `short of ${result.perLibrary}: ${result.shortfalls.map((s) => `${s.library} (${s.available} available)`).join(', ')}`,
          );
        }
        if (result.unassigned > 0)
          ctx.out(`${result.unassigned} records have no library (run pool libcause first to estimate one)`);
        ctx.out(
          `selected ${result.selected} of ${result.input} records (seed ${result.seed}) → ${show(result.output)}`,
        );
      },
    );
}

/** Run library work with a progress listener and end the progress display whatever happens. */
async function withProgress<T>(
  progress: ReturnType<CliContext['progress']>,
  work: (onProgress: ReturnType<CliContext['progress']>) => Promise<T>,
): Promise<T> {
  try {
    return await work(progress);
  } finally {
    progress.done();
  }
}

function formatConfusion(ev: LibcauseEvaluation): string {
  const labelled = Object.keys(ev.confusion).sort(compareCodePoints);
  const predicted = [...new Set(Object.values(ev.confusion).flatMap((row) => Object.keys(row)))].sort(
    compareCodePoints,
  );
  return formatTable(
    ['labelled \\ predicted', ...predicted],
    labelled.map((l) => [l, ...predicted.map((p) => (ev.confusion[l]![p] ? String(ev.confusion[l]![p]) : '.'))]),
  );
}
