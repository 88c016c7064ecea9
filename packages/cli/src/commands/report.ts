import { stat } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Command } from 'commander';
import { checkOutputPaths, JunoError } from '@junobench/core';
import type { CliContext } from '../context.js';
import { printable } from './format.js';

interface ReportFlags {
  from: string;
  out?: string;
  raw?: string | false;
  triage?: string[];
  scores?: string;
  release?: string;
  trajectories?: string;
}

// Verbs: report (docs/report.md). Library packages are imported inside each action
// (`await import('@junobench/...')`) so that other commands do not pay for loading them.
export function registerReportCommands(program: Command, ctx: CliContext): void {
  program
    .command('report')
    .description(
      'A browsable HTML report of the curated benchmark that opens from disk (no server, no network): an index of every instance (sortable, filterable), ' +
        'a page per instance (reproduced and fixed notebooks side by side with the changed cells as a diff, the crash cell with its traceback, labels, ' +
        "the annotators' disagreements and how they were resolved, source, datasets and licences, verification and runtime) and a statistics page.",
    )
    .option('--from <dir>', 'the curated folder', 'curated')
    .option(
      '--out <dir>',
      'where the report goes (replaced whole; a folder holding files a report did not write is refused; default: <from>/report)',
    )
    .option(
      '--raw <dir>',
      "raw inputs: adjudicators' notes and instances left out of the benchmark (default: raw, when it exists)",
    )
    .option('--no-raw', 'read the curated folder only')
    .option(
      '--triage <triage.json...>',
      'triage reports of `junobench add` batches: a page with their funnels and causes',
    )
    .option(
      '--scores <dir>',
      'scorecards (`junobench score … --out <dir>`): a leaderboard page ranking the tools per task kind, with intervals and paired tests',
    )
    .option(
      '--trajectories <dir>',
      'trajectories of agent sessions (`junobench serve`, `baseline agent`): each session, call by call, on its instance page',
    )
    .option(
      '--release <release>',
      'the report of a release (its folder, .tar.gz or extracted folder): its version, toolchain, files with checksums and download links (default --out: <release folder>/report)',
    )
    .addHelpText(
      'after',
      '\nThe index shows where the report comes from: the toolchain (version, git commit), the dataset version, the build time\n' +
        '(SOURCE_DATE_EPOCH when set, else when benchmark.json was written), the agreement gate and the deprecated instances.\n' +
        'Examples:\n  junobench report\n  junobench report --from curated --out /tmp/junobench-report\n  junobench report --scores compare/\n  junobench report --trajectories agent.trajectories\n  junobench report --release releases/junobench-0.2.0\nThen open <out>/index.html in a browser.',
    )
    .action(async (flags: ReportFlags) => {
      const { generateReport, readBuildTime } = await import('@junobench/report');
      const epoch = ctx.env.SOURCE_DATE_EPOCH;
      if (epoch !== undefined && !/^\d+$/.test(epoch))
        throw new JunoError(
          'E_USAGE',
          `SOURCE_DATE_EPOCH must be a whole number of seconds since 1970, not "${epoch}"`,
          {
            hint: 'e.g. SOURCE_DATE_EPOCH=$(git log -1 --format=%ct)',
          },
        );
      const leaderboard = flags.scores
        ? await (await import('@junobench/evaluate')).readLeaderboard(path.resolve(ctx.cwd, flags.scores))
        : undefined;
      const progress = ctx.progress('report');
      let result;
      let out: string;
      try {
        if (flags.release) {
          if (flags.triage || flags.trajectories)
            throw new JunoError(
              'E_USAGE',
              `${flags.triage ? '--triage' : '--trajectories'} goes with the report of curated/, not of a release`,
              { hint: `leave out --release, or ${flags.triage ? '--triage' : '--trajectories'}` },
            );
          const { generateReleaseReport } = await import('@junobench/publish');
          result = await generateReleaseReport({
            input: path.resolve(ctx.cwd, flags.release),
            ...(flags.out ? { out: path.resolve(ctx.cwd, flags.out) } : {}),
            ...(leaderboard ? { leaderboard } : {}),
          });
          out = result.out;
        } else {
          const from = path.resolve(ctx.cwd, flags.from);
          out = path.resolve(ctx.cwd, flags.out ?? path.join(flags.from, 'report'));
          let raw: string | undefined;
          // An explicit --raw must exist (generateReport says so); the default is used only when present.
          if (typeof flags.raw === 'string') raw = path.resolve(ctx.cwd, flags.raw);
          else if (flags.raw !== false && (await isDir(path.resolve(ctx.cwd, 'raw'))))
            raw = path.resolve(ctx.cwd, 'raw');
          await checkOutputPaths({
            inputs: (flags.triage ?? []).map((t) => path.resolve(ctx.cwd, t)),
            trees: [
              ...(flags.trajectories
                ? [{ path: path.resolve(ctx.cwd, flags.trajectories), what: '--trajectories' }]
                : []),
              { path: path.join(from, 'instances'), what: 'the curated instances' },
              ...(raw ? [{ path: raw, what: '--raw' }] : []),
            ],
            outputs: [{ path: out, flag: '--out', folder: true }],
          });
          const { readToolchainIdentity } = await import('@junobench/build-lock');
          const t = await readToolchainIdentity();
          const builtAt = await readBuildTime(from, epoch !== undefined ? Number(epoch) : undefined);
          result = await generateReport({
            from,
            out,
            ...(raw ? { raw } : {}),
            ...(flags.triage ? { triage: flags.triage.map((t) => path.resolve(ctx.cwd, t)) } : {}),
            ...(flags.trajectories ? { trajectories: path.resolve(ctx.cwd, flags.trajectories) } : {}),
            ...(leaderboard ? { leaderboard } : {}),
            provenance: {
              toolchain: { version: t.version, commit: t.commit, dirty: t.dirty },
              ...(builtAt ? { builtAt } : {}),
            },
            onProgress: progress,
          });
        }
      } finally {
        progress.done();
      }
      for (const p of result.problems) ctx.err(`warning: ${p.instance}: ${printable(p.problem)}`);
      const kb = (n: number) => `${(n / 1024).toFixed(0)} KB`;
      const largest = result.largestInstancePage
        ? `; largest instance page ${kb(result.largestInstancePage.bytes)} (${result.largestInstancePage.path})`
        : '';
      ctx.out(
        `wrote ${show(ctx, out)}/: ${result.pages} pages for ${result.instances} instances, ${kb(result.bytes)}${largest}`,
      );
      ctx.out(`open ${pathToFileURL(path.join(out, 'index.html')).href}`);
      if (result.problems.length > 0) ctx.exitCode = 1;
    });
}

async function isDir(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isDirectory();
  } catch {
    return false;
  }
}

function show(ctx: CliContext, p: string): string {
  const rel = path.relative(ctx.cwd, p);
  return rel === '' || rel.startsWith('..') || path.isAbsolute(rel) ? p : rel;
}
