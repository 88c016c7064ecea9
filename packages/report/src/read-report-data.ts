import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import {
  JunoError,
  compareCodePoints,
  isJunoError,
  listInstanceIds,
  readInstance,
  readInstanceTree,
  readJsonFile,
  type TriageReport,
  readJsonlAll,
  readTrajectories,
  validateInstanceId,
  type TrajectorySession,
  type Adjudication,
  type AgreementReport,
  type AgreementGateResult,
  type Benchmark,
  type BenchmarkStats,
  type DeprecatedInstances,
  type FinalLabels,
  type InstanceVerification,
  type VerificationReport,
  type ChecksReport,
} from '@junobench/core';
import { readNotebook } from '@junobench/notebook';
import type {
  Deprecation,
  InstanceDisagreement,
  Leaderboard,
  NotebookSlot,
  ReportChart,
  ReportData,
  ReportInstance,
  ReportInstanceRecord,
  ReportProvenance,
  ReportRelease,
} from './report-data.js';

export interface ReadReportOptions {
  /** The curated folder: benchmark.json, verification.json, labels/, stats/, instances/. */
  from: string;
  /**
   * The raw folder, when at hand: adjudicators' notes (annotations/adjudicated.jsonl)
   * and instances left out of the benchmark (drafts, not verified) come from there.
   */
  raw?: string;
  /** Where the report will be written: links to curated files are made relative to it. */
  out: string;
  /**
   * Where the curated folder will be when the report is read, when not `from` (a release's report is rendered from
   * the archive extracted in a temporary folder and links to the folder the archive extracts to beside it).
   */
  linkedFrom?: string;
  /**
   * Instances withdrawn from what the report describes (a release's deprecated
   * instances): no row, no page, and none of their disagreements or single
   * annotations listed. `agreementRecomputed` false: the agreement figures were
   * computed with them, and the statistics page says so.
   */
  withdrawn?: { instances: readonly string[]; agreementRecomputed: boolean };
  /**
   * Read the instance folders from these folders instead of `<from>/instances`
   * and `<raw>/instances`; the pages still link to them there. A release
   * renders its report over a view of curated/ (the files it redoes) and
   * ships the instance folders where the links point: it need not copy them
   * into the view to render.
   */
  instanceFolders?: { curated?: string; raw?: string };
  /** Triage reports of `junobench add` batches (schemas/triage-report.schema.json), for the triage page. */
  triage?: readonly string[];
  /** Where the report comes from (toolchain, dataset version, build time): shown on the index. */
  provenance?: ReportProvenance;
  /** The deprecated instances; default: `<raw>/deprecated.json` when there is a raw folder. */
  deprecated?: readonly Deprecation[];
  /** The agreement gate's verdict; default: the one `<from>/labels/agreement.json` records. */
  gate?: AgreementGateResult;
  /** The release the report shows: its files with checksums and download links. */
  release?: ReportRelease;
  /** Scorecards compared, for the leaderboard page. */
  leaderboard?: Leaderboard;
  /** A trajectories folder (`serve`, `baseline agent`): each session shown on its instance's page. */
  trajectories?: string;
}

/** Most files listed per instance page: the page weight stays bounded whatever data/ holds. */
export const MAX_LISTED_FILES = 200;

/** The report's inputs exist: benchmark.json (the command that makes it is named), and --raw when given. */
async function checkReportInputs(options: ReadReportOptions, benchmarkFile: string): Promise<void> {
  if (!(await exists(benchmarkFile))) {
    throw new JunoError('E_INPUT_NOT_FOUND', `no benchmark.json in ${options.from}`, {
      location: { file: benchmarkFile },
      hint: 'build the curated benchmark first: npx junobench build (or pass --from <curated folder>)',
      exitCode: 2,
    });
  }
  if (options.raw !== undefined && !(await exists(options.raw))) {
    throw new JunoError('E_INPUT_NOT_FOUND', `no such folder: ${options.raw}`, {
      location: { file: path.resolve(options.raw) },
      hint: 'pass --raw with the raw inputs folder (annotations/, instances/), or --no-raw',
    });
  }
}

/** What raw/ adds: the adjudicated labels, and the deprecations (unless the caller gives them). */
async function readRawRecords(
  options: ReadReportOptions,
): Promise<{ adjudications: Adjudication[]; deprecated: Deprecation[] }> {
  const raw = options.raw !== undefined ? path.resolve(options.raw) : undefined;
  const adjudicatedFile = raw ? path.join(raw, 'annotations', 'adjudicated.jsonl') : undefined;
  const adjudications =
    adjudicatedFile && (await exists(adjudicatedFile))
      ? await readJsonlAll<Adjudication>(adjudicatedFile, { schema: 'adjudication' })
      : [];
  const deprecatedFile = raw ? path.join(raw, 'deprecated.json') : undefined;
  const deprecated: Deprecation[] = options.deprecated
    ? [...options.deprecated]
    : deprecatedFile && (await exists(deprecatedFile))
      ? (await readJsonFile<DeprecatedInstances>(deprecatedFile, { schema: 'deprecated' })).instances
      : [];
  return { adjudications, deprecated };
}

/**
 * Read what the report shows from curated/ (and raw/ when given). Every file is
 * validated against its schema; instance folders are read through the one
 * rule for untrusted folders (readInstanceTree). A missing benchmark.json is an
 * error naming the command that makes it; other missing parts are left out.
 */
export async function readReportData(options: ReadReportOptions): Promise<ReportData> {
  const from = path.resolve(options.from);
  const out = path.resolve(options.out);
  const benchmarkFile = path.join(from, 'benchmark.json');
  await checkReportInputs(options, benchmarkFile);
  const benchmark = await readJsonFile<Benchmark>(benchmarkFile, { schema: 'benchmark' });
  const withdrawn = new Set(options.withdrawn?.instances ?? []);
  const verification = await readOptionalJson<VerificationReport>(path.join(from, 'verification.json'), 'verification');
  const checks = await readOptionalJson<ChecksReport>(path.join(from, 'checks.json'), 'checks-report');
  const checksById = new Map((checks?.instances ?? []).map((c) => [c.instance, c]));
  const studied = await readOptionalJson<AgreementReport>(
    path.join(from, 'labels', 'agreement.json'),
    'agreement-report',
  );
  const agreement = studied && withdrawn.size > 0 ? withoutWithdrawn(studied, withdrawn) : studied;
  const stats = await readOptionalJson<BenchmarkStats>(path.join(from, 'stats', 'stats.json'), 'stats');
  const finalLabelsFile = path.join(from, 'labels', 'final-labels.jsonl');
  const finalLabels = (await exists(finalLabelsFile))
    ? await readJsonlAll<FinalLabels>(finalLabelsFile, { schema: 'final-labels' })
    : [];
  const { adjudications, deprecated } = await readRawRecords(options);
  const deprecationOf = new Map(deprecated.map((d) => [d.id, d]));
  const gate = options.gate ?? studied?.gate;

  const verificationById = new Map<string, InstanceVerification>(
    (verification?.instances ?? []).map((v) => [v.instance, v]),
  );
  const finalById = new Map(finalLabels.map((f) => [f.instance, f]));
  const entries = new Map(benchmark.instances.map((e) => [e.id, e]));

  // Rows: the benchmark's instances, then those verified but left out, then
  // raw instances no build has verified yet (drafts).
  const ids = new Set<string>(entries.keys());
  for (const id of verificationById.keys()) ids.add(id);
  // Each instance folder has the place the pages link to (the report's layout) and the place it is read from.
  const linkedFrom = options.linkedFrom !== undefined ? path.resolve(options.linkedFrom) : from;
  const curatedLinked = path.join(linkedFrom, 'instances');
  const curatedRead =
    options.instanceFolders?.curated !== undefined
      ? path.resolve(options.instanceFolders.curated)
      : path.join(from, 'instances');
  const rawLinked = options.raw ? path.join(path.resolve(options.raw), 'instances') : undefined;
  const rawRead =
    rawLinked && options.instanceFolders?.raw !== undefined ? path.resolve(options.instanceFolders.raw) : rawLinked;
  if (rawRead && (await exists(rawRead))) for (const id of await listInstanceIds(rawRead)) ids.add(id);

  // Before any page: a bad trajectory line is an error naming its file and line.
  const sessionsOf = options.trajectories ? groupSessions(await readTrajectories(options.trajectories)) : undefined;
  const instances: ReportInstance[] = [];
  for (const id of [...ids].sort(compareCodePoints)) {
    if (withdrawn.has(id)) continue;
    validateInstanceId(id, { file: benchmarkFile });
    const entry = entries.get(id);
    const fromRaw =
      !entry && rawRead !== undefined && rawLinked !== undefined && (await exists(path.join(rawRead, id)));
    const dir = fromRaw
      ? { read: path.join(rawRead, id), linked: path.join(rawLinked, id) }
      : { read: path.join(curatedRead, id), linked: path.join(curatedLinked, id) };
    const v = verificationById.get(id);
    const c = checksById.get(id);
    const fl = finalById.get(id);
    const r: ReportInstance = {
      id,
      inBenchmark: Boolean(entry),
      ...(entry ? { entry } : {}),
      ...(fl ? { finalLabels: fl } : {}),
      ...(v ? { verification: v } : {}),
      ...(c ? { checks: c } : {}),
      ...(sessionsOf?.has(id) ? { trajectories: sessionsOf.get(id)! } : {}),
      disagreements: disagreementsOf(id, agreement, fl, adjudications),
      notebooks: {},
      files: [],
      problems: [],
    };
    const deprecation = deprecationOf.get(id);
    if (deprecation) r.deprecation = deprecation;
    await readInstanceFolder(r, dir, out);
    if (!entry) r.excludedReason = exclusionReason(r);
    instances.push(r);
  }

  return {
    name: benchmark.name,
    ...(benchmark.version ? { version: benchmark.version } : {}),
    ...(verification ? { verification: { runtime: verification.runtime, summary: verification.summary } } : {}),
    instances,
    ...(agreement ? { agreement } : {}),
    ...(studied && options.withdrawn && !options.withdrawn.agreementRecomputed && withdrawn.size > 0
      ? {
          agreementWithdrawn: {
            instances: withdrawn.size,
            disagreements: studied.disagreements.length - agreement!.disagreements.length,
            singlyAnnotated: studied.singlyAnnotated.length - agreement!.singlyAnnotated.length,
          },
        }
      : {}),
    ...(stats ? { stats } : {}),
    charts: await readCharts(path.join(from, 'stats', 'charts')),
    ...(stats ? { statsHref: toPosix(path.relative(out, path.join(linkedFrom, 'stats'))) } : {}),
    ...(options.triage && options.triage.length > 0
      ? {
          triage: await Promise.all(
            options.triage.map((f) => readJsonFile<TriageReport>(f, { schema: 'triage-report' })),
          ),
        }
      : {}),
    ...(options.provenance ? { provenance: options.provenance } : {}),
    ...(deprecated.length > 0 ? { deprecated: [...deprecated].sort((a, b) => compareCodePoints(a.id, b.id)) } : {}),
    ...(gate ? { gate } : {}),
    ...(options.release ? { release: options.release } : {}),
    ...(options.leaderboard ? { leaderboard: options.leaderboard } : {}),
  };
}

/** Sessions by the instance their lines name (a log without it, from before they did, cannot be placed). */
function groupSessions(sessions: readonly TrajectorySession[]): Map<string, TrajectorySession[]> {
  const by = new Map<string, TrajectorySession[]>();
  for (const s of sessions) {
    const instance = s.entries.find((e) => e.instance !== undefined)?.instance;
    if (instance === undefined) continue;
    by.set(instance, [...(by.get(instance) ?? []), s]);
  }
  return by;
}

async function readInstanceFolder(
  r: ReportInstance,
  { read: dir, linked }: { read: string; linked: string },
  out: string,
): Promise<void> {
  if (!(await exists(path.join(dir, 'instance.json')))) {
    // curated/ holds only the benchmark's instances: the others' folders are in raw/.
    if (r.inBenchmark) r.problems.push(`no instance folder at ${dir}`);
    else
      r.notes = [
        'Its folder is not in the curated benchmark: run `junobench report --raw <raw folder>` to show its notebooks.',
      ];
    return;
  }
  try {
    r.instance = (await readInstance(dir)) as ReportInstanceRecord;
  } catch (e) {
    r.problems.push(messageOf(e));
  }
  let tree;
  try {
    tree = await readInstanceTree(dir);
  } catch (e) {
    r.problems.push(messageOf(e));
    return;
  }
  r.folderHref = toPosix(path.relative(out, linked));
  r.files = tree.map((f) => ({ rel: f.rel, size: f.size }));
  for (const version of ['original', 'reproduced', 'fixed'] as const) {
    const file = tree.find((f) => f.rel === `${version}.ipynb`);
    if (!file) continue;
    let slot: NotebookSlot;
    try {
      slot = { notebook: await readNotebook(file.abs) };
    } catch (e) {
      slot = { error: messageOf(e) };
    }
    r.notebooks[version] = slot;
  }
}

/** The agreement report without what it says of withdrawn instances by name (the figures stay as computed). */
function withoutWithdrawn(a: AgreementReport, withdrawn: ReadonlySet<string>): AgreementReport {
  return {
    ...a,
    disagreements: a.disagreements.filter((d) => !withdrawn.has(d.instance)),
    singlyAnnotated: a.singlyAnnotated.filter((s) => !withdrawn.has(s.instance)),
  };
}

function exclusionReason(r: ReportInstance): string {
  if (r.instance?.status === 'draft') return 'a draft: not yet reviewed and verified, so not in the benchmark';
  const v = r.verification;
  if (!v) return 'not verified by this build';
  if (v.status === 'verified') return 'verified after the benchmark was assembled; rebuild to include it';
  const why = [v.reproduced, v.fixed].filter((x) => x.reason).map((x) => `${x.version}: ${x.reason}`);
  return `${v.status}: reproduced ${v.reproduced.outcome}, fixed ${v.fixed.outcome}${why.length > 0 ? ` (${why.join('; ')})` : ''}`;
}

function disagreementsOf(
  id: string,
  agreement: AgreementReport | undefined,
  fl: FinalLabels | undefined,
  adjudications: readonly Adjudication[],
): InstanceDisagreement[] {
  const out: InstanceDisagreement[] = [];
  for (const d of agreement?.disagreements ?? []) {
    if (d.instance !== id) continue;
    // The last adjudication line that sets this dimension wins, as in the labels stage.
    const adj = adjudications.filter((a) => a.instance === id && a[d.dimension] !== undefined).at(-1);
    const final = fl?.labels[d.dimension];
    out.push({
      dimension: d.dimension,
      labels: Object.fromEntries(Object.entries(d.labels).filter((e): e is [string, string] => e[1] !== undefined)),
      ...(final !== undefined ? { final } : {}),
      ...(fl ? { source: fl.sources[d.dimension] } : {}),
      ...(adj?.note ? { note: adj.note } : {}),
      ...(adj?.annotator ? { adjudicator: adj.annotator } : {}),
    });
  }
  return out;
}

const CHART_ORDER = ['library', 'crash-type', 'root-cause', 'pipeline-stage'];

async function readCharts(dir: string): Promise<ReportChart[]> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => n.endsWith('.svg')).sort(compareCodePoints);
  } catch {
    return [];
  }
  const charts: ReportChart[] = [];
  for (const file of names) {
    const name = file.slice(0, -'.svg'.length);
    const st = await stat(path.join(dir, file));
    if (!st.isFile()) continue;
    const svg = await readFile(path.join(dir, file), 'utf8');
    let title = name.replace(/-/g, ' ');
    try {
      const spec = JSON.parse(await readFile(path.join(dir, `${name}.vl.json`), 'utf8')) as {
        title?: string | { text?: unknown };
      };
      const t = typeof spec.title === 'string' ? spec.title : spec.title?.text;
      if (typeof t === 'string' && t.trim()) title = t;
    } catch {
      // no spec beside the chart: the file name is the title
    }
    charts.push({ name, title, svg });
  }
  // One dimension at a time in the taxonomy's order, then the cross-tables.
  const rank = (n: string) => {
    const i = CHART_ORDER.indexOf(n);
    return i >= 0 ? i : CHART_ORDER.length;
  };
  return charts.sort((a, b) => rank(a.name) - rank(b.name) || compareCodePoints(a.name, b.name));
}

async function readOptionalJson<T>(file: string, schema: string): Promise<T | undefined> {
  return (await exists(file)) ? readJsonFile<T>(file, { schema }) : undefined;
}

async function exists(p: string): Promise<boolean> {
  try {
    await stat(p);
    return true;
  } catch {
    return false;
  }
}

function messageOf(e: unknown): string {
  if (isJunoError(e)) {
    const where = e.location?.file ? `${path.basename(e.location.file)}: ` : '';
    return `${where}${e.message}`;
  }
  return e instanceof Error ? e.message : String(e);
}

function toPosix(p: string): string {
  return p.split(path.sep).join('/');
}
