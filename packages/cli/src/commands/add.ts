import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import type { AddInstanceOptions, AddInstanceResult, ReproduceOptions } from '@junobench/add';
import type { Runtime } from '@junobench/runtime';
import {
  JunoError,
  checkOutputPaths,
  formatBytes,
  readJsonl,
  sha256,
  type CrashRecord,
  type TriageEntry,
  type TriageReport,
} from '@junobench/core';
import type { CliContext } from '../context.js';
import { addRuntimeOptions, createRuntimeFromFlags, type RuntimeFlags } from './runtime-flags.js';
import { formatDuration, parsePositiveInt, printable } from './format.js';
import { resolveCache } from './sources.js';

interface AddFlags extends RuntimeFlags {
  id?: string;
  crash?: number;
  notebook?: string;
  instances: string;
  verify: boolean;
  dryRun?: boolean;
  cacheDir?: string;
  pool?: string;
  withData?: boolean;
  limit?: number;
  kaggle?: string;
  data?: string[];
  report?: string;
  offline?: boolean;
  reproduce: boolean;
}

// The toolchain's own image profiles, for a checkout run from elsewhere (module → Debian/pip package names).
const TOOLCHAIN_DOCKER_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../docker');
const MAX_DOWNLOAD_BYTES = 2e9;

// `add`: one notebook (or source folder) as before; several, a folder of notebooks, or `--pool` as a batch with a
// triage report. Packages are loaded inside the action.
export function registerAddCommand(program: Command, ctx: CliContext): void {
  const add = program
    .command('add')
    .description(
      'Scaffold draft instances from notebooks with a saved crash: mine the crash, write original/reproduced notebooks, instance.json (status draft, suggested labels) and draft checks (checks.py), put the inputs into data/ (downloaded, or derived from the code), run the reproduced notebook and name the cause when it does not reproduce.',
    )
    .argument(
      '[inputs...]',
      'notebook files, folders of notebooks, or source record folders from `junobench collect` (raw/sources/<platform>/<owner>/<name>)',
    )
    .option('--id <id>', 'the instance id (default: <library>_<n>, the next free number for the suggested library)')
    .option('--crash <n>', 'which saved error output, when the notebook has several (1 = the first)', parsePositiveInt)
    .option(
      '--notebook <file.ipynb>',
      'with a source folder: the same notebook saved with its outputs (e.g. downloaded from its Kaggle page; `kaggle kernels pull` gives the source only), kept as original.ipynb',
    )
    .option(
      '--pool <sample.jsonl>',
      "a pool sample (`pool resample`): each record's notebook collected by its URL, its recorded crash drafted",
    )
    .option('--with-data', '--pool: also download the Kaggle datasets of each kernel')
    .option('--limit <n>', '--pool: only the first n records', parsePositiveInt)
    .option('--kaggle <path>', '--pool: the kaggle binary (default: $JUNOBENCH_KAGGLE, else `kaggle` on PATH)')
    .option('--data <file|dir...>', "input files or folders the notebook reads, copied into each draft's data/")
    .option(
      '--report <triage.json>',
      'write the triage report here (a batch always writes one; it is also what a rerun resumes from)',
    )
    .option(
      '--offline',
      'download nothing: inputs that only a URL gives are derived from the code, or reported as needs-network',
    )
    .option('--no-reproduce', 'only mine and replay, as before: no order check, no data, no package check, no triage')
    .option('--instances <dir>', 'folder with one sub-folder per instance', 'raw/instances')
    .option('--no-verify', "don't run the reproduced notebook")
    .option('--dry-run', 'show the draft that would be written, and write nothing')
    .option('--cache-dir <dir>', 'where collected datasets are (default: $JUNOBENCH_CACHE_DIR, else .junobench-cache)');
  addRuntimeOptions(add);
  add.addHelpText(
    'after',
    '\nWrites raw/instances/<id>/ (original.ipynb as fetched, reproduced.ipynb, fixed.ipynb — a draft fix: the reproduced notebook\n' +
      'marked DRAFT FIX, to repair —, instance.json with "status": "draft", data/ from the\n' +
      "collected datasets, --data, downloads or derived synthetic files) and, for a source folder or a download, the instance's entry in\n" +
      'raw/sources.lock.json. Nothing is written on failure. A draft that does not reproduce gets one cause in instance.json "triage":\n' +
      'needs-network, needs-data, needs-package, needs-gpu, order-dependent, different-crash, no-crash or timeout, with the next step.\n' +
      'A draft stays out of the benchmark until its fixed.ipynb is repaired (its DRAFT FIX cell deleted), each annotator labelled it\n' +
      '(junobench labels sheet / labels import, or labels record) and its instance.json says "status": "ready".\n\n' +
      'Exit status: 0 draft written (crash reproduced, or --no-verify), 1 draft written but the crash did not reproduce as mined\n' +
      '(a batch: any item not reproduced, refused or failed; unavailable records are reported, not failures),\n' +
      '2 bad input (no error output — a Kaggle source without --notebook has none —, several without --crash, not a notebook, not a Python notebook,\n' +
      "--notebook whose code is not the collected one's, id taken or deprecated, crash already added),\n3 no usable runtime.\n" +
      'A Kaggle kernel comes from `kaggle kernels pull` without its saved outputs: give the notebook downloaded with its outputs\n' +
      "from its page with --notebook (its code must be the collected one's), or add it through --pool, which takes the record's crash.\n" +
      'Examples:\n  junobench add raw/sources/kaggle/alice/house-prices-crash --notebook ~/Downloads/house-prices-crash.ipynb\n  junobench add crash.ipynb --crash 2 --id pandas_12\n  junobench add notebooks/ --data train.csv --report triage.json\n  junobench add --pool curated/pool/sample.jsonl --with-data --limit 20 --report triage.json',
  );
  add.action(async (inputs: string[], flags: AddFlags) => {
    // The triage report is read back on a rerun (it is what a rerun resumes from), so only its place is checked:
    // never among the notebooks given, nor in the instances tree the drafts go to.
    if (flags.report)
      await checkOutputPaths({
        inputs: [...inputs, ...(flags.pool ? [flags.pool] : [])].map((i) => path.resolve(ctx.cwd, i)),
        trees: [{ path: path.resolve(ctx.cwd, flags.instances), what: '--instances' }],
        outputs: [{ path: path.resolve(ctx.cwd, flags.report), flag: '--report' }],
      });
    if (!flags.pool && inputs.length === 0) {
      throw new JunoError(
        'E_USAGE',
        'add needs a notebook, a folder of notebooks, a source folder, or --pool <sample.jsonl>',
        {
          hint: 'e.g. junobench add crash.ipynb, or junobench add --pool curated/pool/sample.jsonl',
        },
      );
    }
    const { planBatchItems } = await import('@junobench/add');
    const { SOURCE_RECORD_FILE } = await import('@junobench/sources');
    const isSourceFolder = (dir: string) => Promise.resolve(existsSync(path.join(dir, SOURCE_RECORD_FILE)));
    const items = flags.pool
      ? []
      : await planBatchItems(
          inputs.map((i) => path.resolve(ctx.cwd, i)),
          isSourceFolder,
        );
    const single =
      !flags.pool &&
      inputs.length === 1 &&
      items.length === 1 &&
      items[0]!.input === path.resolve(ctx.cwd, inputs[0]!) &&
      !flags.report;
    if (!single && (flags.id !== undefined || flags.notebook !== undefined || flags.crash !== undefined)) {
      throw new JunoError('E_USAGE', '--id, --crash and --notebook name one notebook: give one notebook with them', {
        hint: 'add the notebooks one by one when they need these',
      });
    }
    const runtime = flags.verify && !flags.dryRun ? await createRuntimeFromFlags(flags, ctx) : undefined;
    try {
      if (single) await addSingle(items[0]!.input!, flags, ctx, runtime);
      else await addBatch(inputs, flags, ctx, runtime);
    } finally {
      await runtime?.close();
    }
  });
}

async function reproduceOptions(
  flags: AddFlags,
  ctx: CliContext,
  runtime: Runtime | undefined,
): Promise<ReproduceOptions | undefined> {
  if (!flags.reproduce) return undefined;
  const { execaRunner } = await import('@junobench/runtime');
  const { readModuleProfiles } = await import('@junobench/add');
  const local = path.resolve(ctx.cwd, 'docker');
  const profiles = await readModuleProfiles(existsSync(path.join(local, 'profiles')) ? local : TOOLCHAIN_DOCKER_DIR);
  return {
    // The analyser only parses the cells (ast, pyflakes): Debian's python3 has both, and IPython for the magics.
    python:
      flags.python ?? ctx.env.JUNOBENCH_PYTHON ?? (existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3'),
    run: execaRunner,
    profiles,
    ...(runtime
      ? {
          importable: async (modules: readonly string[]) => {
            const id = await runtime.describe(modules);
            return Object.fromEntries(
              modules.map((m) => [m, (id.packages ?? {})[m] !== null && (id.packages ?? {})[m] !== undefined]),
            );
          },
          // The types of what the crashing line works on, for the library suggestion (a second, shorter run).
          captureState: async (target) => {
            const { captureRuntimeStates } = await import('@junobench/runtime-context');
            const states = await captureRuntimeStates([{ key: 'crash', ...target }], runtime);
            const state = states.get('crash');
            return state?.captured ? state.names.map((n) => ({ name: n.name, type: n.type })) : undefined;
          },
        }
      : {}),
    ...(flags.offline ? {} : { fetchUrl: fetchUrl }),
    ...(flags.data ? { data: flags.data.map((d) => path.resolve(ctx.cwd, d)) } : {}),
  };
}

async function fetchUrl(url: string): Promise<Buffer> {
  const r = await fetch(url, { signal: AbortSignal.timeout(120_000), redirect: 'follow' });
  if (!r.ok) throw new Error(`HTTP ${r.status} ${r.statusText}`.trim());
  const size = Number(r.headers.get('content-length') ?? '0');
  if (size > MAX_DOWNLOAD_BYTES)
    throw new Error(`${formatBytes(size)} is more than ${formatBytes(MAX_DOWNLOAD_BYTES)}`);
  const bytes = Buffer.from(await r.arrayBuffer());
  if (bytes.length > MAX_DOWNLOAD_BYTES) throw new Error(`more than ${formatBytes(MAX_DOWNLOAD_BYTES)}`);
  return bytes;
}

async function baseAddOptions(
  input: string,
  flags: AddFlags,
  ctx: CliContext,
  runtime: Runtime | undefined,
): Promise<AddInstanceOptions> {
  const { verifyInstanceDir } = await import('@junobench/verify');
  const reproduce = await reproduceOptions(flags, ctx, runtime);
  return {
    input,
    instancesDir: path.resolve(ctx.cwd, flags.instances),
    cacheDir: resolveCache(flags.cacheDir, ctx),
    ...(runtime ? { verify: (dir: string) => verifyInstanceDir(dir, { runtime, jobs: 1 }) } : {}),
    ...(flags.dryRun ? { dryRun: true } : {}),
    ...(reproduce ? { reproduce } : {}),
  };
}

async function addSingle(input: string, flags: AddFlags, ctx: CliContext, runtime: Runtime | undefined): Promise<void> {
  const { addInstance } = await import('@junobench/add');
  const progress = ctx.progress('add');
  let result: AddInstanceResult;
  const started = Date.now();
  try {
    result = await addInstance({
      ...(await baseAddOptions(input, flags, ctx, runtime)),
      ...(flags.id !== undefined ? { id: flags.id } : {}),
      ...(flags.crash !== undefined ? { crash: flags.crash } : {}),
      ...(flags.notebook !== undefined ? { notebook: path.resolve(ctx.cwd, flags.notebook) } : {}),
      onProgress: progress,
    });
  } finally {
    progress.done();
  }
  ctx.out(formatAddResult(result, ctx.cwd, flags, Date.now() - started));
  const failedRun =
    result.verification && !result.reproduces && result.verification.reproduced.outcome !== 'skipped-env';
  ctx.exitCode = failedRun ? 1 : 0;
}

async function addBatch(
  inputs: string[],
  flags: AddFlags,
  ctx: CliContext,
  runtime: Runtime | undefined,
): Promise<void> {
  const pipeline = await import('@junobench/add');
  const cacheDir = resolveCache(flags.cacheDir, ctx);
  const given = flags.pool ? [path.resolve(ctx.cwd, flags.pool)] : inputs.map((i) => path.resolve(ctx.cwd, i));
  const reportFile = flags.report
    ? path.resolve(ctx.cwd, flags.report)
    : path.join(cacheDir, 'add', `${sha256(JSON.stringify([...given].sort())).slice(0, 16)}.json`);
  const progress = ctx.progress('add');
  const addOne = async (input: string, recorded?: { ename: string; evalue: string; traceback: string[] }) =>
    pipeline.addInstance({ ...(await baseAddOptions(input, flags, ctx, runtime)), ...(recorded ? { recorded } : {}) });
  let items: import('@junobench/add').BatchItem[];
  let collect: ((platform: 'kaggle' | 'github', ref: string) => Promise<string>) | undefined;
  if (flags.pool) {
    const records: CrashRecord[] = [];
    for await (const { value } of readJsonl<CrashRecord>(path.resolve(ctx.cwd, flags.pool), { schema: 'crash-record' }))
      records.push(value);
    items = pipeline.planPoolItems(records, flags.limit);
    collect = await poolCollector(flags, ctx, cacheDir);
  } else {
    const { SOURCE_RECORD_FILE } = await import('@junobench/sources');
    items = await pipeline.planBatchItems(given, (dir) =>
      Promise.resolve(existsSync(path.join(dir, SOURCE_RECORD_FILE))),
    );
  }
  let report: TriageReport;
  try {
    report = await pipeline.runAddBatch(items, {
      inputs: given.map((g) => path.relative(ctx.cwd, g) || '.'),
      reportFile,
      onProgress: progress,
      addOne: (item) =>
        item.record
          ? pipeline.addPoolRecord(item, { collect: collect!, add: (dir, recorded) => addOne(dir, recorded) })
          : addOne(item.input!).then((r) => pipeline.entryOfResult(item, r)),
      onEntry: (e, resumed) => ctx.out(formatEntry(e, resumed)),
    });
  } finally {
    progress.done();
  }
  ctx.out(formatFunnel(report, path.relative(ctx.cwd, reportFile) || reportFile));
  ctx.exitCode = report.entries.some(
    (e) => e.status === 'refused' || e.status === 'failed' || (e.status === 'drafted' && e.reproduced === false),
  )
    ? 1
    : 0;
}

async function poolCollector(
  flags: AddFlags,
  ctx: CliContext,
  cacheDir: string,
): Promise<(platform: 'kaggle' | 'github', ref: string) => Promise<string>> {
  const sources = await import('@junobench/sources');
  const outDir = path.join(path.dirname(path.resolve(ctx.cwd, flags.instances)), 'sources');
  const salt = await sources.readAuthorSalt({ env: ctx.env, cacheDir });
  let cli: InstanceType<typeof sources.KaggleCli> | undefined;
  let github: ReturnType<typeof sources.createGithubClient> | undefined;
  return async (platform, ref) => {
    if (platform === 'kaggle') {
      cli ??= new sources.KaggleCli({
        binary: await sources.findKaggleBinary({
          ...(flags.kaggle ? { explicit: path.resolve(ctx.cwd, flags.kaggle) } : {}),
          env: ctx.env,
        }),
        env: ctx.env,
      });
      const [c] = await sources.collectKaggleKernels([ref], {
        cli,
        outDir,
        cacheDir,
        withData: Boolean(flags.withData),
        salt,
      });
      return c!.dir;
    }
    github ??= sources.createGithubClient({ env: ctx.env });
    const [c] = await sources.collectGithubNotebooks([ref], { client: github, env: ctx.env, outDir, salt });
    return c!.dir;
  };
}

function formatEntry(e: TriageEntry, resumed: boolean): string {
  const was = resumed ? ' (done before)' : '';
  if (e.status === 'drafted') {
    const what =
      e.reproduced === true
        ? 'reproduced'
        : e.reproduced === false
          ? `NOT reproduced: ${e.cause ?? '?'} — ${printable(e.detail ?? '')}`
          : 'not run';
    return `${e.label}: draft ${e.id}, ${what}${e.synthetic ? ' (synthetic data)' : ''}${was}`;
  }
  return `${e.label}: ${e.status} — ${printable(e.reason ?? '')}${was}`;
}

function formatFunnel(r: TriageReport, file: string): string {
  const f = r.funnel;
  const causes = Object.entries(f.byCause)
    .map(([c, n]): [string, number] => [c, n ?? 0])
    .sort((a, b) => b[1] - a[1])
    .map(([c, n]) => `${c} ${n}`)
    .join(', ');
  return [
    '',
    `${f.records} record${f.records === 1 ? '' : 's'} → ${f.notebooks} notebook${f.notebooks === 1 ? '' : 's'} → ${f.drafts} draft${f.drafts === 1 ? '' : 's'} → ${f.reproduced} reproduced`,
    causes ? `  not reproduced, by cause: ${causes}` : undefined,
    f.unavailable + f.refused + f.failed > 0
      ? `  unavailable ${f.unavailable}, refused ${f.refused}, failed ${f.failed}`
      : undefined,
    `  triage report: ${file} (a rerun resumes from it; junobench report --triage ${file} renders it)`,
  ]
    .filter((l) => l !== undefined)
    .join('\n');
}

function formatReproduction(r: AddInstanceResult): string[] {
  const i = r.plan.instance;
  const lines: string[] = [];
  const rep = i.reproduction;
  if (rep?.order && rep.order.checked !== 'not-checked')
    lines.push(`  order-check ${rep.order.checked}: ${rep.order.why}`);
  for (const e of rep?.edits ?? []) {
    lines.push(
      `  edit       ${e.kind}${e.cell !== undefined ? ` (code cell ${e.cell})` : ''}: ${[e.from, e.to].filter(Boolean).join(' → ')} — ${e.why}`,
    );
  }
  for (const d of r.materialized?.downloads ?? [])
    lines.push(`  download   ${d.url} → ${d.file} (${formatBytes(d.bytes)}, sha256 ${d.sha256.slice(0, 12)}…)`);
  for (const m of r.materialized?.resolved ?? []) {
    if (m.status === 'synthetic') lines.push(`  synthetic  ${m.need.file}: ${(m.derived ?? []).join('; ')}`);
    if (m.status === 'missing') lines.push(`  missing    ${m.need.file} (read as ${m.need.read}): ${m.reason ?? ''}`);
  }
  return lines;
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
  lines.push(...formatReproduction(r));
  lines.push(`  requires   ${i.requires.join(', ') || '(nothing beyond the standard library)'}`);
  lines.push(
    `  source     ${i.source.platform}${i.source.authorId ? `, author ${i.source.authorId}` : ''}${i.source.datasets.length > 0 ? `, datasets: ${i.source.datasets.map((d) => `${d.title} (${d.license})`).join('; ')}` : ''}`,
  );
  if (r.data)
    lines.push(
      `  data       ${r.data.files} file${r.data.files === 1 ? '' : 's'}, ${formatBytes(r.data.bytes)} (tree ${r.data.sha256.slice(0, 12)}…)`,
    );
  const s = i.suggestedLabels ?? {};
  const sug = [
    s.library && `library ${s.library.value} (${s.library.confidence.toFixed(2)})`,
    s.crashType && `crash type ${s.crashType.value} (${s.crashType.confidence.toFixed(2)})`,
    s.rootCause && `root cause ${s.rootCause.value} (${s.rootCause.confidence.toFixed(2)})`,
    s.pipelineStage && `pipeline stage ${s.pipelineStage.value} (${s.pipelineStage.confidence.toFixed(2)})`,
  ].filter(Boolean);
  lines.push(`  suggested  ${sug.join(', ') || '(none)'} — suggestions, not labels`);
  if (p.checks) {
    const n = (p.checks.match(/^def check_/gm) ?? []).length;
    lines.push(
      `  checks     checks.py: ${n} draft check${n === 1 ? '' : 's'} from the crash cell — once fixed.ipynb exists: junobench checks suggest ${p.id} --write --force`,
    );
  }
  if (r.verification) {
    const v = r.verification.reproduced;
    const how = `${v.runtime.kind} runtime, ${formatDuration(v.durationMs)}`;
    if (r.reproduces)
      lines.push(
        `  verify     crash reproduced as mined (${how}); fixed.ipynb is a draft fix (the reproduced notebook, marked DRAFT FIX), not run: reported as a draft`,
      );
    else if (v.outcome === 'skipped-env') {
      lines.push(`  verify     not run here: ${v.reason ?? 'a required module is missing'} (${how})`);
      if (r.triage) lines.push(`  cause      ${r.triage.cause} — ${r.triage.detail}`, `  next       ${r.triage.next}`);
    } else {
      lines.push(`  verify     NOT reproduced as mined: ${r.instead} (${how})`);
      if (r.triage) lines.push(`  cause      ${r.triage.cause} — ${r.triage.detail}`, `  next       ${r.triage.next}`);
      // The usual first failure of a notebook added from a plain .ipynb or GitHub: its input files are not in the draft.
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
      `next: repair ${where}/fixed.ipynb (a draft fix: the reproduced notebook) and delete its DRAFT FIX cell; review checks.py (junobench checks suggest ${p.id}); have each annotator label ${p.id} ` +
        `(junobench labels sheet --annotator <name> -o <name>.xlsx, then labels import; or labels record), their files in ${annotations}/; ` +
        `then set "status": "ready" in instance.json and build (${formatDuration(ms)})`,
    );
  }
  return lines.map(printable).join('\n');
}
