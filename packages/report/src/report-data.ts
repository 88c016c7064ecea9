import type {
  AgreementReport,
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
}

export type IndexFlag = 'draft' | 'flaky' | 'synthetic-data' | 'skipped-env' | 'excluded';

export const FLAG_LABELS: Record<IndexFlag, string> = {
  draft: 'draft',
  flaky: 'flaky',
  'synthetic-data': 'synthetic data',
  'skipped-env': 'skipped-env',
  excluded: 'not in benchmark',
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
  if (r.entry?.syntheticData ?? Boolean(r.instance?.data?.synthetic)) flags.push('synthetic-data');
  const outcomes = [
    v?.reproduced.outcome ?? r.entry?.verification.reproduced,
    v?.fixed.outcome ?? r.entry?.verification.fixed,
  ];
  if (outcomes.includes('skipped-env')) flags.push('skipped-env');
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
