import path from 'node:path';
import type { Command } from 'commander';
import { checkOutputPaths, formatGateOverride, JunoError, readAgreementGate } from '@junobench/core';
import type { CliContext } from '../context.js';
import { addRuntimeOptions, createRuntimeFromFlags, type RuntimeFlags } from './runtime-flags.js';
import { formatDuration, parsePositiveInt, printable } from './format.js';

interface BuildFlags extends RuntimeFlags {
  raw: string;
  out: string;
  jobs?: number;
  force?: boolean;
  only?: string;
  cacheDir?: string;
  minKappa?: string;
}

export function registerBuildCommand(program: Command, ctx: CliContext): void {
  const cmd = program
    .command('build')
    .description('The main job: the whole pipeline on raw/ into curated/ (stages that are up to date are skipped).')
    .option('--raw <dir>', 'the raw inputs: pool/, criteria/, instances/, annotations/', 'raw')
    .option('--out <dir>', 'where the curated benchmark is written', 'curated')
    .option('--jobs <n>', 'notebooks executed at once during verification (default: number of CPUs)', parsePositiveInt)
    .option('--force', 'run every stage even when up to date')
    .option('--only <stages>', 'run only these stages, comma-separated (their inputs must exist)')
    .option('--cache-dir <dir>', 'per-instance verification cache (default: .junobench-cache)')
    .option(
      '--min-kappa <k>',
      'the agreement gate for this build only (default: minKappa in <raw>/release.json, else 0.9); the build and the report say it was overridden',
    );
  addRuntimeOptions(cmd);
  cmd.addHelpText(
    'after',
    '\nStages: pool (import → filter → libcause → resample), data (subsampled data redone), [image (with --runtime docker)], verify, labels, benchmark, stats, report (curated/report/index.html).\n' +
      'One build at a time per --out folder: a second one is refused, naming the build that holds <out>/.build-in-progress.json.\n' +
      'Exit status: 0 built, 1 built but something failed (an instance not verified, agreement below the gate), 2 bad input or the folder is being built, 3 no usable runtime.\n' +
      'Examples:\n  junobench build\n  junobench build --runtime docker\n  junobench build --only verify --force',
  );
  cmd.action(async (flags: BuildFlags) => {
    // The build reads raw/ and writes curated/: a curated/ inside raw/ would be read back as raw inputs.
    await checkOutputPaths({
      inputs: [],
      trees: [{ path: path.resolve(ctx.cwd, flags.raw), what: '--raw' }],
      outputs: [{ path: path.resolve(ctx.cwd, flags.out), flag: '--out', folder: true }],
    });
    const { runBuild } = await import('@junobench/pipeline');
    const { connectDockerEngine } = await import('@junobench/runtime');
    const root = ctx.cwd;
    let minKappa: number | undefined;
    if (flags.minKappa !== undefined) {
      minKappa = Number(flags.minKappa);
      if (flags.minKappa.trim() === '' || !Number.isFinite(minKappa) || minKappa < -1 || minKappa > 1)
        throw new JunoError('E_USAGE', `--min-kappa must be a number from -1 to 1, not "${flags.minKappa}"`, {
          location: { field: '--min-kappa' },
          hint: 'e.g. --min-kappa 0.8 (for this build only; the setting is minKappa in raw/release.json)',
        });
      const override = formatGateOverride(
        await readAgreementGate(path.resolve(root, flags.raw, 'release.json'), minKappa),
        path.join(flags.raw, 'release.json'),
      );
      if (override) ctx.err(override);
    }
    const epoch = ctx.env.SOURCE_DATE_EPOCH;
    if (epoch !== undefined && !/^\d+$/.test(epoch))
      throw new JunoError('E_USAGE', `SOURCE_DATE_EPOCH must be a whole number of seconds since 1970, not "${epoch}"`, {
        hint: 'e.g. SOURCE_DATE_EPOCH=$(git log -1 --format=%ct)',
      });
    const sourceDateEpoch = epoch !== undefined ? Number(epoch) : undefined;
    const progress = ctx.progress('build');
    const t0 = Date.now();
    try {
      const report = await runBuild({
        root,
        rawDir: flags.raw,
        curatedDir: flags.out,
        createRuntime: () => createRuntimeFromFlags(flags, ctx, { imageRecord: path.join(flags.out, 'image.json') }),
        ...(flags.runtime === 'docker' && !flags.image && !flags.queue
          ? { container: { docker: () => connectDockerEngine(ctx.env) } }
          : {}),
        ...(flags.jobs ? { jobs: flags.jobs } : {}),
        ...(flags.force ? { force: true } : {}),
        ...(minKappa !== undefined ? { minKappa } : {}),
        ...(sourceDateEpoch !== undefined ? { sourceDateEpoch } : {}),
        ...(flags.only
          ? {
              only: flags.only
                .split(',')
                .map((s) => s.trim())
                .filter(Boolean),
            }
          : {}),
        cacheDir: path.resolve(root, flags.cacheDir ?? ctx.env.JUNOBENCH_CACHE_DIR ?? '.junobench-cache'),
        onProgress: progress,
        onWarning: (w) => ctx.err(`warning: ${printable(w)}`),
        onStage: (e) => {
          if (!e.result) {
            if (e.decision.action === 'run') ctx.err(`${e.stage}: ${e.description} (${e.decision.reason})`);
            return;
          }
          // The stage's last progress line (held back by throttling) belongs before its summary, not after the build's.
          progress.done();
          const mark = e.result.failed
            ? 'FAILED'
            : e.decision.action === 'skip'
              ? 'up to date'
              : `done in ${formatDuration(e.result.durationMs)}`;
          ctx.out(`${e.stage.padEnd(10)} ${mark}: ${printable(e.result.summary)}`);
          for (const w of e.result.warnings ?? []) ctx.err(`warning: ${printable(w)}`);
        },
      });
      const ran = report.stages.filter((s) => s.action === 'run').length;
      ctx.out(
        `build ${report.failed ? 'finished with failures' : 'complete'}: ${ran} stage(s) ran, ${report.stages.length - ran} up to date, ${formatDuration(Date.now() - t0)} → ${flags.out}/`,
      );
      ctx.exitCode = report.failed ? 1 : 0;
    } finally {
      progress.done();
    }
  });
}
