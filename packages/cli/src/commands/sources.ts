import path from 'node:path';
import type { Command } from 'commander';
import type { FetchOutcome, SourcesFetchReport } from '@junobench/sources';
import { JunoError, formatBytes, listInstanceIds, validateInstanceId, type SourceRecord } from '@junobench/core';
import type { CliContext } from '../context.js';
import { formatTable, printable } from './format.js';

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

const CREDENTIALS_HELP =
  "\nCredentials: Kaggle uses the CLI's own (an API token in KAGGLE_API_TOKEN or ~/.kaggle/access_token; or a legacy key in\n" +
  'KAGGLE_USERNAME/KAGGLE_KEY or ~/.kaggle/kaggle.json); GitHub uses GITHUB_TOKEN when set\n' +
  '(optional for public repositories) against GITHUB_API_URL (default https://api.github.com). Secrets are never printed or written.\n';

// Verbs: collect kaggle|github, sources fetch (docs/sources.md); `add` is in add.ts. Library packages are imported
// inside each action (`await import('@junobench/...')`) so that other commands do not pay for loading them.
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
        `${collected.length} kernel${collected.length === 1 ? '' : 's'} collected, ${datasets.length} data source${datasets.length === 1 ? '' : 's'}${flags.withData ? ` (${formatBytes(bytes, { units: 'si' })} of data in ${path.relative(ctx.cwd, cacheDir) || cacheDir})` : ''}`,
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
}

/**
 * The cache folder of collected sources and datasets: --cache-dir, else $JUNOBENCH_CACHE_DIR, else .junobench-cache.
 */
export function resolveCache(flag: string | undefined, ctx: CliContext): string {
  return path.resolve(ctx.cwd, flag ?? ctx.env.JUNOBENCH_CACHE_DIR ?? '.junobench-cache');
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
    `  notebook  ${r.notebook.path} (${formatBytes(r.notebook.bytes, { units: 'si' })}, sha256 ${r.notebook.sha256.slice(0, 12)}…), ${version}`,
    `  code licence ${r.codeLicense}; author ${r.authorId}`,
  ];
  for (const d of r.datasets) {
    const files = d.files
      ? `${d.files.length} file${d.files.length === 1 ? '' : 's'}, ${formatBytes(d.bytes ?? 0, { units: 'si' })}, tree ${d.treeSha256?.slice(0, 12)}…`
      : 'not downloaded';
    lines.push(
      `  ${d.kind.padEnd(9)} ${d.ref} "${d.title}" — licence ${d.license ?? 'NONE (data must be synthetic)'} — ${files}`,
    );
  }
  for (const w of r.warnings ?? []) lines.push(`  warning: ${w}`);
  return lines.map(printable).join('\n');
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
        report.outcomes.map((o) => [o.task.instance, o.task.what, o.task.ref, statusText(o), printable(o.detail)]),
      ),
    );
  }
  for (const o of report.outcomes.filter((x) => x.status === 'drift')) {
    for (const c of o.changes ?? []) {
      const sizes =
        c.expectedBytes !== undefined || c.actualBytes !== undefined
          ? ` (${c.expectedBytes !== undefined ? formatBytes(c.expectedBytes, { units: 'si' }) : '—'} → ${c.actualBytes !== undefined ? formatBytes(c.actualBytes, { units: 'si' }) : '—'})`
          : '';
      lines.push(
        `  drift: ${o.task.instance}: ${o.task.what} ${o.task.ref}: ${c.path} ${c.change}${c.expected ? ` — locked sha256 ${c.expected.slice(0, 12)}…` : ''}${c.actual ? `, upstream ${c.actual.slice(0, 12)}…` : ''}${sizes}`,
      );
    }
  }
  for (const f of report.fullData)
    lines.push(
      `  data: ${f.instance}: ${f.status}${f.dir ? ` → ${path.relative(cwd, f.dir)}` : ''} (${printable(f.detail)})`,
    );
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
