import path from 'node:path';
import type { Command } from 'commander';
import type { FetchOutcome, SourcesFetchReport } from '@junobench/sources';
import type { AddInstanceResult } from '@junobench/add';
import { JunoError, listInstanceIds, validateInstanceId, type SourceRecord } from '@junobench/core';
import type { CliContext } from '../context.js';
import { addRuntimeOptions, createRuntimeFromFlags, type RuntimeFlags } from './runtime-flags.js';
import { formatDuration, formatTable, parsePositiveInt } from './format.js';

interface CollectFlags {
  out: string;
  withData?: boolean;
  kaggle?: string;
  cacheDir?: string;
}

interface FetchFlags {
  instances: string;
  lock?: string;
  kaggle?: string;
  cacheDir?: string;
}

interface AddFlags extends RuntimeFlags {
  id?: string;
  crash?: number;
  notebook?: string;
  instances: string;
  verify: boolean;
  dryRun?: boolean;
  cacheDir?: string;
}

const CREDENTIALS_HELP =
  "\nCredentials: Kaggle uses the CLI's own (an API token in KAGGLE_API_TOKEN or ~/.kaggle/access_token; or a legacy key in\n" +
  'KAGGLE_USERNAME/KAGGLE_KEY or ~/.kaggle/kaggle.json); GitHub uses GITHUB_TOKEN when set\n' +
  '(optional for public repositories) against GITHUB_API_URL (default https://api.github.com). Secrets are never printed or written.\n';

// Verbs: collect kaggle|github, sources fetch, add (docs/sources.md). Library packages are imported inside each action
// (`await import('@junobench/...')`) so that other commands do not pay for loading them.
export function registerSourcesCommands(program: Command, ctx: CliContext): void {
  const collect = program
    .command('collect')
    .description('Fetch notebooks (and their datasets) from Kaggle or GitHub into source records under raw/sources.');

  const kaggle = collect
    .command('kaggle')
    .description(
      'Collect Kaggle kernels with the official `kaggle` CLI: the notebook, kernel-metadata.json, dataset metadata and licences, and with --with-data the datasets (into the cache).',
    )
    .argument('<owner/kernel...>', 'kernel refs, e.g. alice/titanic-eda (or their https://www.kaggle.com/code/… URLs)')
    .option('--out <dir>', 'where source records go', 'raw/sources')
    .option(
      '--with-data',
      "also download each dataset and competition's data (extracted safely and hashed into .junobench-cache/sources/)",
    )
    .option('--kaggle <path>', 'the kaggle binary (default: $JUNOBENCH_KAGGLE, else `kaggle` on PATH)')
    .option('--cache-dir <dir>', 'download cache (default: $JUNOBENCH_CACHE_DIR, else .junobench-cache)');
  kaggle.addHelpText(
    'after',
    `${CREDENTIALS_HELP}\nExit status: 0 collected, 1 a download failed or kept being rate-limited, 2 bad ref, unknown or private kernel, unsafe archive, 3 no kaggle CLI or no credentials.\n` +
      'Examples:\n  junobench collect kaggle alice/house-prices-crash --with-data\n  junobench collect kaggle alice/a-kernel bob/another-one --kaggle ~/.local/bin/kaggle',
  );
  kaggle.action(async (refs: string[], flags: CollectFlags) => {
    const { KaggleCli, collectKaggleKernels, findKaggleBinary, readAuthorSalt } = await import('@junobench/sources');
    const cacheDir = resolveCache(flags.cacheDir, ctx);
    const binary = await findKaggleBinary({
      ...(flags.kaggle ? { explicit: path.resolve(ctx.cwd, flags.kaggle) } : {}),
      env: ctx.env,
    });
    const progress = ctx.progress('collect kaggle');
    const cli = new KaggleCli({
      binary,
      env: ctx.env,
      onRetry: (m) => progress({ task: 'collect kaggle', done: 0, message: m }),
    });
    try {
      const collected = await collectKaggleKernels(refs, {
        cli,
        outDir: path.resolve(ctx.cwd, flags.out),
        cacheDir,
        withData: Boolean(flags.withData),
        salt: await readAuthorSalt({ env: ctx.env, cacheDir }),
        onProgress: progress,
      });
      progress.done();
      for (const c of collected) ctx.out(formatCollected(c.record, path.relative(ctx.cwd, c.dir) || '.'));
      const datasets = collected.flatMap((c) => c.record.datasets);
      const bytes = datasets.reduce((s, d) => s + (d.bytes ?? 0), 0);
      ctx.out(
        `${collected.length} kernel${collected.length === 1 ? '' : 's'} collected, ${datasets.length} data source${datasets.length === 1 ? '' : 's'}${flags.withData ? ` (${formatSize(bytes)} of data in ${path.relative(ctx.cwd, cacheDir) || cacheDir})` : ''}`,
      );
    } finally {
      progress.done();
    }
  });

  const github = collect
    .command('github')
    .description(
      "Collect notebooks from GitHub through its REST API: the ref resolved to a commit, the file at that commit, the repository's licence.",
    )
    .argument(
      '<ref...>',
      'https://github.com/<owner>/<repo>/blob/<ref>/<path>.ipynb or <owner>/<repo>:<path>.ipynb@<ref>',
    )
    .option('--out <dir>', 'where source records go', 'raw/sources')
    .option(
      '--cache-dir <dir>',
      'cache (holds the salt of pseudonymous author ids; default: $JUNOBENCH_CACHE_DIR, else .junobench-cache)',
    );
  github.addHelpText(
    'after',
    `${CREDENTIALS_HELP}\nExit status: 0 collected, 1 rate-limited or a failed download, 2 bad or unknown ref, not a notebook, 3 the token was rejected.\n` +
      'Examples:\n  junobench collect github https://github.com/octo/notebooks/blob/main/eda/crash.ipynb\n  junobench collect github octo/notebooks:eda/crash.ipynb@v1.2',
  );
  github.action(async (refs: string[], flags: CollectFlags) => {
    const { collectGithubNotebooks, createGithubClient, readAuthorSalt } = await import('@junobench/sources');
    const cacheDir = resolveCache(flags.cacheDir, ctx);
    const progress = ctx.progress('collect github');
    try {
      const client = createGithubClient({
        env: ctx.env,
        onNotice: (m) => progress({ task: 'collect github', done: 0, message: m }),
      });
      const collected = await collectGithubNotebooks(refs, {
        client,
        env: ctx.env,
        outDir: path.resolve(ctx.cwd, flags.out),
        salt: await readAuthorSalt({ env: ctx.env, cacheDir }),
        onProgress: progress,
      });
      progress.done();
      for (const c of collected) ctx.out(formatCollected(c.record, path.relative(ctx.cwd, c.dir) || '.'));
      ctx.out(`${collected.length} notebook${collected.length === 1 ? '' : 's'} collected`);
    } finally {
      progress.done();
    }
  });

  const sources = program
    .command('sources')
    .description("The sources lock (raw/sources.lock.json): what each instance's original notebook and datasets were.");
  const fetch = sources
    .command('fetch')
    .description(
      'Fetch the locked notebooks and datasets again into the cache and check every hash; a changed upstream file is drift (never replaced).',
    )
    .argument('[instance-id...]', 'instances to fetch (default: every instance in the lock)')
    .option('--instances <dir>', 'folder with one sub-folder per instance', 'raw/instances')
    .option('--lock <file>', 'the sources lock (default: sources.lock.json beside the instances folder)')
    .option('--kaggle <path>', 'the kaggle binary (default: $JUNOBENCH_KAGGLE, else `kaggle` on PATH)')
    .option('--cache-dir <dir>', 'download cache (default: $JUNOBENCH_CACHE_DIR, else .junobench-cache)');
  fetch.addHelpText(
    'after',
    `${CREDENTIALS_HELP}\nThe full data of each instance whose datasets all check out is assembled in .junobench-cache/sources/full/<hash>/,\nwhere \`junobench build\` (data stage) redoes the instance's subsampling from it.\n\n` +
      'Exit status: 0 everything as locked, 1 drift or a failed fetch, 2 unknown instance or bad lock, 3 no kaggle CLI or no credentials.\n' +
      'Examples:\n  junobench sources fetch\n  junobench sources fetch pandas_4 --kaggle ~/.local/bin/kaggle',
  );
  fetch.action(async (ids: string[], flags: FetchFlags) => {
    const { KaggleCli, createGithubClient, fetchLockedSources, findKaggleBinary, planSourcesFetch, readSourcesLock } =
      await import('@junobench/sources');
    const instancesDir = path.resolve(ctx.cwd, flags.instances);
    const lockFile = flags.lock
      ? path.resolve(ctx.cwd, flags.lock)
      : path.join(path.dirname(instancesDir), 'sources.lock.json');
    const lock = await readSourcesLock(lockFile);
    if (ids.length > 0) {
      const known = await listInstanceIds(instancesDir);
      const unknown = ids
        .map((id) => validateInstanceId(id))
        .filter((id) => !known.includes(id) && !lock.instances[id]);
      if (unknown.length > 0) {
        throw new JunoError(
          'E_INPUT_NOT_FOUND',
          `no instance named ${unknown.map((u) => `"${u}"`).join(', ')} in ${flags.instances}`,
          {
            hint: `instances with locked sources: ${Object.keys(lock.instances).join(', ') || '(none)'}`,
          },
        );
      }
    }
    const plan = planSourcesFetch(lock, ids);
    const cacheDir = resolveCache(flags.cacheDir, ctx);
    const progress = ctx.progress('sources fetch');
    let report: SourcesFetchReport;
    try {
      report = await fetchLockedSources(plan, {
        kaggle: async () =>
          new KaggleCli({
            binary: await findKaggleBinary({
              ...(flags.kaggle ? { explicit: path.resolve(ctx.cwd, flags.kaggle) } : {}),
              env: ctx.env,
            }),
            env: ctx.env,
            onRetry: (m) => progress({ task: 'sources fetch', done: 0, message: m }),
          }),
        github: () =>
          createGithubClient({
            env: ctx.env,
            onNotice: (m) => progress({ task: 'sources fetch', done: 0, message: m }),
          }),
        env: ctx.env,
        cacheDir,
        onProgress: progress,
      });
    } finally {
      progress.done();
    }
    ctx.out(formatFetchReport(report, ctx.cwd));
    ctx.exitCode =
      report.outcomes.some((o) => o.status !== 'ok') || report.fullData.some((f) => f.status === 'drift') ? 1 : 0;
  });

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

function resolveCache(flag: string | undefined, ctx: CliContext): string {
  return path.resolve(ctx.cwd, flag ?? ctx.env.JUNOBENCH_CACHE_DIR ?? '.junobench-cache');
}

export function formatSize(bytes: number): string {
  if (bytes < 1e3) return `${bytes} B`;
  if (bytes < 1e6) return `${(bytes / 1e3).toFixed(1)} kB`;
  if (bytes < 1e9) return `${(bytes / 1e6).toFixed(1)} MB`;
  return `${(bytes / 1e9).toFixed(2)} GB`;
}

function formatCollected(r: SourceRecord, dir: string): string {
  const version = r.version.commit
    ? `commit ${r.version.commit.slice(0, 12)} (${r.version.requestedRef})`
    : r.version.kernelVersion
      ? `version ${r.version.kernelVersion}`
      : r.version.kernelId
        ? `kernel id ${r.version.kernelId}`
        : 'latest';
  const lines = [
    `collected ${r.platform} ${r.ref} → ${dir}`,
    `  notebook  ${r.notebook.path} (${formatSize(r.notebook.bytes)}, sha256 ${r.notebook.sha256.slice(0, 12)}…), ${version}`,
    `  code licence ${r.codeLicense}; author ${r.authorId}`,
  ];
  for (const d of r.datasets) {
    const files = d.files
      ? `${d.files.length} file${d.files.length === 1 ? '' : 's'}, ${formatSize(d.bytes ?? 0)}, tree ${d.treeSha256?.slice(0, 12)}…`
      : 'not downloaded';
    lines.push(
      `  ${d.kind.padEnd(9)} ${d.ref} "${d.title}" — licence ${d.license ?? 'NONE (data must be synthetic)'} — ${files}`,
    );
  }
  for (const w of r.warnings ?? []) lines.push(`  warning: ${w}`);
  return lines.join('\n');
}

function statusText(o: FetchOutcome): string {
  return o.status === 'ok' ? 'ok' : o.status === 'drift' ? 'DRIFT' : 'ERROR';
}

function formatFetchReport(report: SourcesFetchReport, cwd: string): string {
  const lines: string[] = [];
  if (report.outcomes.length > 0) {
    lines.push(
      formatTable(
        ['instance', 'what', 'ref', 'status', 'detail'],
        report.outcomes.map((o) => [o.task.instance, o.task.what, o.task.ref, statusText(o), o.detail]),
      ),
    );
  }
  for (const o of report.outcomes.filter((x) => x.status === 'drift')) {
    for (const c of o.changes ?? []) {
      const sizes =
        c.expectedBytes !== undefined || c.actualBytes !== undefined
          ? ` (${c.expectedBytes !== undefined ? formatSize(c.expectedBytes) : '—'} → ${c.actualBytes !== undefined ? formatSize(c.actualBytes) : '—'})`
          : '';
      lines.push(
        `  drift: ${o.task.instance}: ${o.task.what} ${o.task.ref}: ${c.path} ${c.change}${c.expected ? ` — locked sha256 ${c.expected.slice(0, 12)}…` : ''}${c.actual ? `, upstream ${c.actual.slice(0, 12)}…` : ''}${sizes}`,
      );
    }
  }
  for (const f of report.fullData)
    lines.push(`  data: ${f.instance}: ${f.status}${f.dir ? ` → ${path.relative(cwd, f.dir)}` : ''} (${f.detail})`);
  for (const n of report.plan.notFetchable) lines.push(`  not fetched: ${n.instance}: ${n.ref} (${n.reason})`);
  for (const id of report.plan.notLocked)
    lines.push(`  ${id}: no sources in the lock (an embedded or local instance): nothing to fetch`);
  const drift = [...new Set(report.outcomes.filter((o) => o.status === 'drift').map((o) => o.task.instance))];
  const errors = report.outcomes.filter((o) => o.status === 'error').length;
  const ok = report.outcomes.filter((o) => o.status === 'ok').length;
  lines.push(
    '',
    `${ok}/${report.outcomes.length} sources as locked` +
      (drift.length > 0
        ? `; DRIFT in ${drift.length} instance${drift.length === 1 ? '' : 's'}: ${drift.join(', ')} (the lock and the instances were not changed)`
        : '') +
      (errors > 0 ? `; ${errors} failed` : ''),
  );
  return lines.join('\n').replace(/^\n/, '');
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
      `  data       ${r.data.files} file${r.data.files === 1 ? '' : 's'}, ${formatSize(r.data.bytes)} (tree ${r.data.sha256.slice(0, 12)}…)`,
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
      // The usual first failure of a notebook added from a plain .ipynb or GitHub: its input files are not in the draft.
      const seen = v.observed?.ename.split('.').pop();
      if (seen === 'FileNotFoundError' || seen === 'OSError' || seen === 'IOError') {
        lines.push(
          `  hint       the notebook reads a file the draft does not have: put its data under ${where}/data/ ${missingFileHint(v.observed?.evalue ?? '', where)}`,
        );
      }
      lines.push(
        `  check      after editing the draft: junobench verify ${p.id}${flags.instances !== 'raw/instances' ? ` --instances ${flags.instances}` : ''}`,
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
