import { isSyntheticData } from '@junobench/core';
import type {
  TrajectorySession,
  AgreementGateResult,
  AgreementReport,
  Comparison,
  BenchmarkEntry,
  BenchmarkStats,
  FinalLabels,
  Instance,
  InstanceChecksResult,
  InstanceVerification,
  LabelDimensionName,
  LabelSource,
  Labels,
  Outcome,
  TriageReport,
  VerificationSummary,
} from '@junobench/core';
import type { Notebook } from '@junobench/notebook';

/**
 * instance.json as the report reads it. `status` and `suggestedLabels` are
 * written by `junobench add` for drafts (docs/sources.md, "`add`"); the report shows them when
 * present and does not need them.
 */
export type ReportInstanceRecord = Instance & {
  status?: string;
  suggestedLabels?: Partial<Record<LabelDimensionName, { value: string; confidence?: number; evidence?: string[] }>>;
};

export type NotebookSlot = { notebook: Notebook } | { error: string };

/** An annotators' disagreement on one dimension of one instance, and how it was settled. */
export interface InstanceDisagreement {
  dimension: LabelDimensionName;
  /** Annotator → label. */
  labels: Record<string, string>;
  final?: string;
  source?: LabelSource;
  /** The adjudicator's reason, from adjudicated.jsonl. */
  note?: string;
  adjudicator?: string;
}

/** Everything the report knows about one instance (curated data in; rendering is pure). */
export interface ReportInstance {
  id: string;
  inBenchmark: boolean;
  /** Why it is not in the benchmark (a draft, not verified). */
  excludedReason?: string;
  instance?: ReportInstanceRecord;
  entry?: BenchmarkEntry;
  finalLabels?: FinalLabels;
  disagreements: InstanceDisagreement[];
  verification?: InstanceVerification;
  /** Its checks (checks.py) and their recorded mutation test, from checks.json. */
  checks?: InstanceChecksResult;
  notebooks: { original?: NotebookSlot; reproduced?: NotebookSlot; fixed?: NotebookSlot };
  /** The instance folder's files (relative paths, bytes), sorted. */
  files: { rel: string; size: number }[];
  /** The instance folder relative to the report's root folder (`/`-separated); unset when it is not on disk. */
  folderHref?: string;
  /** Problems reading this instance (shown on its page, and reported by generateReport). */
  problems: string[];
  /** Things a reader should know that are not problems (shown on its page). */
  notes?: string[];
  /** raw/deprecated.json's entry, when the instance is deprecated (still in this build, left out of releases). */
  deprecation?: Deprecation;
  /** Agents' sessions on its tasks (`report --trajectories`), sorted by session id. */
  trajectories?: TrajectorySession[];
}

/** A deprecated instance (raw/deprecated.json): left out of every release from `deprecatedIn` on. */
export interface Deprecation {
  id: string;
  reason: string;
  deprecatedIn: string;
}

/**
 * Where the report comes from, shown on the index: the toolchain that made it, the dataset it shows and when it was
 * built. Given by the caller (the build, `report`, `release prepare`): the report reads no git and no clock.
 */
export interface ReportProvenance {
  toolchain: { version: string; commit: string | null; dirty: boolean | null };
  /** The dataset's version: a release's, or unset for a build not released. */
  datasetVersion?: string;
  /** When the data shown was built (ISO 8601), and where that time comes from. */
  builtAt?: { iso: string; source: string };
}

/** A release the report was built from: its files, each with its sha256 and, once published, its download URL. */
export interface ReportRelease {
  version: string;
  files: { name: string; bytes?: number; sha256: string; url?: string }[];
  /** The GitHub release page, when published there. */
  page?: string;
}

export interface ReportChart {
  /** File name without extension, e.g. `library-by-root-cause`. */
  name: string;
  title: string;
  svg: string;
}

export interface ReportData {
  name: string;
  version?: string;
  verification?: { runtime: 'local' | 'docker'; summary: VerificationSummary };
  instances: ReportInstance[];
  agreement?: AgreementReport;
  /**
   * The agreement figures were computed with instances since withdrawn (not
   * computed again without them): how many were withdrawn, and how many of
   * their disagreements and single annotations `agreement` no longer lists.
   */
  agreementWithdrawn?: { instances: number; disagreements: number; singlyAnnotated: number };
  stats?: BenchmarkStats;
  charts: ReportChart[];
  /** Links from the statistics page to the source files (relative to the report's root), when on disk. */
  statsHref?: string;
  /** Triage reports of `junobench add` batches, for the triage page. */
  triage?: TriageReport[];
  provenance?: ReportProvenance;
  /** Every deprecated instance, with its reason and version (rows or not). */
  deprecated?: Deprecation[];
  /** The agreement gate and its verdict (agreement.json's, or the release's). */
  gate?: AgreementGateResult;
  release?: ReportRelease;
  /** Scorecards of tools (`report --scores`), for the leaderboard page. */
  leaderboard?: Leaderboard;
}

/**
 * The leaderboard (`report --scores <dir>`): the scorecards found, and per benchmark (and task seed) the comparison of
 * the tools scored on it (@junobench/compare: bootstrap intervals over instances, paired differences, McNemar tests).
 */
export interface Leaderboard {
  groups: { benchmark: string; comparison: Comparison }[];
  scorecards: {
    tool: string;
    /** Relative to the scores folder. */
    file: string;
    predictionsSha256: string;
    junobench: string;
    context: string;
    benchmark: string;
  }[];
}

export type IndexFlag = 'draft' | 'flaky' | 'synthetic-data' | 'skipped-env' | 'deprecated' | 'excluded';

export const FLAG_LABELS: Record<IndexFlag, string> = {
  draft: 'draft',
  flaky: 'flaky',
  'synthetic-data': 'synthetic data',
  'skipped-env': 'skipped-env',
  deprecated: 'deprecated',
  excluded: 'not in benchmark',
};

/** What each flag means: the legend under the index is made from this and FLAG_LABELS, so the two always agree. */
export const FLAG_DESCRIPTIONS: Record<IndexFlag, string> = {
  draft:
    'added by `junobench add`, not yet labelled, fixed and reviewed: not in the benchmark (its fixed notebook, when there is one, is a draft fix)',
  flaky: 'repeated runs disagreed',
  'synthetic-data':
    "a generated stand-in replaces the notebook's data (the licence forbids sharing it, or it could not be had); a sample of generated data is synthetic too",
  'skipped-env': 'a required library is missing in the verification runtime (a skip, never a pass)',
  deprecated: 'withdrawn (raw/deprecated.json): left out of every release from its version on',
  excluded: 'verified or drafted but left out of the benchmark',
};

/** A verification status as benchmark.json or verification.json give it (drafts included when the schema has them). */
export type IndexStatus = BenchmarkEntry['verification']['status'] | InstanceVerification['status'];

/** One row of the index: the facts that are shown, sorted and filtered. */
export interface IndexRow {
  id: string;
  labels?: Labels;
  /** Labels are suggestions (a draft), not annotators' final labels. */
  suggested: boolean;
  status: IndexStatus;
  reproduced?: { outcome: Outcome; durationMs: number };
  fixed?: { outcome: Outcome; durationMs: number };
  flags: IndexFlag[];
  ename?: string;
}

/** Pure: the index row of an instance. */
export function summariseInstance(r: ReportInstance): IndexRow {
  const v = r.verification;
  const status: IndexStatus = r.entry?.verification.status ?? v?.status ?? 'not-run';
  const flags: IndexFlag[] = [];
  if (r.instance?.status === 'draft' || status === 'draft') flags.push('draft');
  if (v?.flaky || status === 'flaky') flags.push('flaky');
  if (r.entry?.syntheticData || (r.instance !== undefined && isSyntheticData(r.instance))) flags.push('synthetic-data');
  const outcomes = [
    v?.reproduced.outcome ?? r.entry?.verification.reproduced,
    v?.fixed.outcome ?? r.entry?.verification.fixed,
  ];
  if (outcomes.includes('skipped-env')) flags.push('skipped-env');
  if (r.deprecation) flags.push('deprecated');
  if (!r.inBenchmark) flags.push('excluded');
  const labels = r.entry?.labels ?? r.finalLabels?.labels ?? r.instance?.labels ?? suggestedAsLabels(r.instance);
  const suggested =
    !r.entry && !r.finalLabels && labels !== undefined && (r.instance?.status === 'draft' || !r.instance?.labels);
  const version = (x: InstanceVerification['reproduced'] | undefined, fallback: Outcome | undefined) =>
    x
      ? { outcome: x.outcome, durationMs: x.durationMs }
      : fallback
        ? { outcome: fallback, durationMs: Number.NaN }
        : undefined;
  const reproduced = version(v?.reproduced, r.entry?.verification.reproduced);
  const fixed = version(v?.fixed, r.entry?.verification.fixed);
  const ename = r.entry?.crash.ename ?? r.instance?.crash.ename;
  return {
    id: r.id,
    ...(labels ? { labels } : {}),
    suggested,
    status,
    ...(reproduced ? { reproduced } : {}),
    ...(fixed ? { fixed } : {}),
    flags,
    ...(ename ? { ename } : {}),
  };
}

function suggestedAsLabels(inst: ReportInstanceRecord | undefined): Labels | undefined {
  const s = inst?.suggestedLabels;
  if (!s?.library && !s?.crashType && !s?.rootCause && !s?.pipelineStage) return undefined;
  return {
    library: (s.library?.value ?? '') as Labels['library'],
    crashType: (s.crashType?.value ?? '') as Labels['crashType'],
    rootCause: (s.rootCause?.value ?? '') as Labels['rootCause'],
    pipelineStage: (s.pipelineStage?.value ?? '') as Labels['pipelineStage'],
  };
}
