import path from 'node:path';
import type { Command } from 'commander';
import type { AddInstanceResult } from '@junobench/add';
import { formatBytes } from '@junobench/core';
import type { CliContext } from '../context.js';
import { addRuntimeOptions, createRuntimeFromFlags, type RuntimeFlags } from './runtime-flags.js';
import { formatDuration, parsePositiveInt } from './format.js';
import { resolveCache } from './sources.js';

interface AddFlags extends RuntimeFlags {
  id?: string;
  crash?: number;
  notebook?: string;
  instances: string;
  verify: boolean;
  dryRun?: boolean;
  cacheDir?: string;
}

// Verb: add (docs/sources.md, "`add`"). Library packages are imported inside the action
// (`await import('@junobench/...')`) so that other commands do not pay for loading them.
export function registerAddCommand(program: Command, ctx: CliContext): void {
  const add = program
    .command('add')
    .description(
      'Scaffold a draft instance from a notebook with a saved crash: mine the crash, write original/reproduced notebooks and instance.json (status draft, suggested labels), and run the reproduced notebook.',
    )
    .argument(
      '<notebook.ipynb | source-dir>',
      'a notebook file, or a source record folder from `junobench collect` (raw/sources/<platform>/<owner>/<name>)',
    )
    .option('--id <id>', 'the instance id (default: <library>_<n>, the next free number for the suggested library)')
    .option('--crash <n>', 'which saved error output, when the notebook has several (1 = the first)', parsePositiveInt)
    .option(
      '--notebook <file.ipynb>',
      'with a source folder: the same notebook saved with its outputs (e.g. downloaded from its Kaggle page; `kaggle kernels pull` gives the source only), kept as original.ipynb',
    )
    .option('--instances <dir>', 'folder with one sub-folder per instance', 'raw/instances')
    .option('--no-verify', "don't run the reproduced notebook")
    .option('--dry-run', 'show the draft that would be written, and write nothing')
    .option('--cache-dir <dir>', 'where collected datasets are (default: $JUNOBENCH_CACHE_DIR, else .junobench-cache)');
  addRuntimeOptions(add);
  add.addHelpText(
    'after',
    '\nWrites raw/instances/<id>/ (original.ipynb as fetched, reproduced.ipynb, instance.json with "status": "draft", data/ from the\n' +
      "collected datasets) and, for a source folder, the instance's entry in raw/sources.lock.json. Nothing is written on failure.\n" +
      'A draft stays out of the benchmark until it has labels, a fixed.ipynb and "status": "ready".\n\n' +
      'Exit status: 0 draft written (crash reproduced, or --no-verify), 1 draft written but the crash did not reproduce as mined,\n' +
      '2 bad input (no error output — a Kaggle source without --notebook has none —, several without --crash, not a notebook, not a Python notebook,\n' +
      "--notebook whose code is not the collected one's, id taken or deprecated, crash already added),\n3 no usable runtime.\n" +
      'A Kaggle kernel comes from `kaggle kernels pull` without its saved outputs: give the notebook downloaded with its outputs\n' +
      "from its page with --notebook (its code must be the collected one's).\n" +
      'Examples:\n  junobench add raw/sources/kaggle/alice/house-prices-crash --notebook ~/Downloads/house-prices-crash.ipynb\n  junobench add crash.ipynb --crash 2 --id pandas_12\n  junobench add raw/sources/github/octo/nbs--eda--crash --no-verify',
  );
  add.action(async (input: string, flags: AddFlags) => {
    const { addInstance } = await import('@junobench/add');
    const { verifyInstanceDir } = await import('@junobench/verify');
    const cacheDir = resolveCache(flags.cacheDir, ctx);
    const progress = ctx.progress('add');
    const runtime = flags.verify && !flags.dryRun ? await createRuntimeFromFlags(flags, ctx) : undefined;
    let result: AddInstanceResult;
    const started = Date.now();
    try {
      result = await addInstance({
        input: path.resolve(ctx.cwd, input),
        instancesDir: path.resolve(ctx.cwd, flags.instances),
        cacheDir,
        ...(flags.id !== undefined ? { id: flags.id } : {}),
        ...(flags.crash !== undefined ? { crash: flags.crash } : {}),
        ...(flags.notebook !== undefined ? { notebook: path.resolve(ctx.cwd, flags.notebook) } : {}),
        ...(runtime ? { verify: (dir: string) => verifyInstanceDir(dir, { runtime, jobs: 1 }) } : {}),
        ...(flags.dryRun ? { dryRun: true } : {}),
        onProgress: progress,
      });
    } finally {
      progress.done();
      await runtime?.close();
    }
    ctx.out(formatAddResult(result, ctx.cwd, flags, Date.now() - started));
    const failedRun =
      result.verification && !result.reproduces && result.verification.reproduced.outcome !== 'skipped-env';
    ctx.exitCode = failedRun ? 1 : 0;
  });
}

/**
 * Where the file a FileNotFoundError names goes, so the user need not work it out: a relative path under data/ is
 * already where the draft's data belongs; any other relative path is resolved against the draft's folder.
 */
export function missingFileHint(evalue: string, where: string): string {
  const file = /No such file or directory: '([^']+)'/.exec(evalue)?.[1];
  const cwd = `(the notebooks run with ${where} as working directory)`;
  if (!file || path.isAbsolute(file) || file.split('/').includes('..'))
    return `${cwd} and point reproduced.ipynb at it`;
  const rel = path.posix.normalize(file);
  if (rel === 'data' || rel.startsWith('data/'))
    return `— reproduced.ipynb opens ${rel}: put that file at ${where}/${rel} ${cwd}`;
  return `and point reproduced.ipynb at it — it opens ${rel}, i.e. ${where}/${rel} ${cwd}`;
}

function formatAddResult(r: AddInstanceResult, cwd: string, flags: AddFlags, ms: number): string {
  const p = r.plan;
  const i = p.instance;
  const rel = (f: string) => path.relative(cwd, f) || '.';
  const where = r.dir ? rel(r.dir) : path.join(flags.instances, p.id);
  const lines = [r.dir ? `draft ${p.id} written to ${where}` : `dry run: draft ${p.id} would be written to ${where}`];
  lines.push(
    `  crash      ${i.crash.ename}: ${i.crash.evalue.split('\n')[0]} (code cell ${i.crash.cell} of reproduced.ipynb, ${i.crash.match} match)${p.crashes.length > 1 ? ` — error output ${p.chosen + 1} of ${p.crashes.length}` : ''}`,
  );
  lines.push(
    `  order      ${i.execution.order} (${p.reproduced.keptCells.length} code cell${p.reproduced.keptCells.length === 1 ? '' : 's'} kept from the original)`,
  );
  if (p.reproduced.rewrites.length > 0) lines.push(`  paths      ${p.reproduced.rewrites.join('; ')}`);
  lines.push(`  requires   ${i.requires.join(', ') || '(nothing beyond the standard library)'}`);
  lines.push(
    `  source     ${i.source.platform}${i.source.authorId ? `, author ${i.source.authorId}` : ''}${i.source.datasets.length > 0 ? `, datasets: ${i.source.datasets.map((d) => `${d.title} (${d.license})`).join('; ')}` : ''}`,
  );
  if (r.data)
    lines.push(
      `  data       ${r.data.files} file${r.data.files === 1 ? '' : 's'}, ${formatBytes(r.data.bytes, { units: 'si' })} (tree ${r.data.sha256.slice(0, 12)}…)`,
    );
  const s = i.suggestedLabels ?? {};
  const sug = [
    s.library && `library ${s.library.value} (${s.library.confidence.toFixed(2)})`,
    s.crashType && `crash type ${s.crashType.value} (${s.crashType.confidence.toFixed(2)})`,
    s.rootCause && `root cause ${s.rootCause.value} (${s.rootCause.confidence.toFixed(2)})`,
    s.pipelineStage && `pipeline stage ${s.pipelineStage.value} (${s.pipelineStage.confidence.toFixed(2)})`,
  ].filter(Boolean);
  lines.push(`  suggested  ${sug.join(', ') || '(none)'} — suggestions, not labels`);
  if (r.verification) {
    const v = r.verification.reproduced;
    const how = `${v.runtime.kind} runtime, ${formatDuration(v.durationMs)}`;
    if (r.reproduces)
      lines.push(`  verify     crash reproduced as mined (${how}); fixed.ipynb not written yet: reported as a draft`);
    else if (v.outcome === 'skipped-env')
      lines.push(`  verify     not run here: ${v.reason ?? 'a required module is missing'} (${how})`);
    else {
      lines.push(`  verify     NOT reproduced as mined: ${r.instead} (${how})`);
      // The usual first failure of a notebook added from a plain .ipynb or GitHub: its input files are not in the
      // draft.
      const seen = v.observed?.ename.split('.').pop();
      if (seen === 'FileNotFoundError' || seen === 'OSError' || seen === 'IOError') {
        lines.push(
          `  hint       the notebook reads a file the draft does not have: put its data under ${where}/data/ ${missingFileHint(v.observed?.evalue ?? '', where)}`,
        );
      }
      lines.push(
        `  check      after editing the draft: junobench verify ${p.id} --include-drafts${flags.instances !== 'raw/instances' ? ` --instances ${flags.instances}` : ''}`,
      );
    }
  } else if (r.dir) {
    lines.push('  verify     skipped (--no-verify)');
  }
  if (r.lockUpdated)
    lines.push(
      `  lock       ${p.id} recorded in ${rel(path.join(path.dirname(path.resolve(cwd, flags.instances)), 'sources.lock.json'))}`,
    );
  for (const w of p.warnings) lines.push(`  warning: ${w}`);
  // `build`'s labels stage stops (exit 2) at a ready instance no annotator labelled: say so before the user gets there.
  const annotations = path.join(path.dirname(flags.instances), 'annotations');
  if (r.dir) {
    lines.push(
      `next: write ${where}/fixed.ipynb, set "labels" in instance.json (the suggestions are only a start), then "status": "ready"; ` +
        `build also needs a line for ${p.id} in each ${annotations}/<annotator>.jsonl (${formatDuration(ms)})`,
    );
  }
  return lines.join('\n');
}
