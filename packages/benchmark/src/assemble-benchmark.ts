import {
  isSyntheticData,
  JunoError,
  stripUrlCredentials,
  type Benchmark,
  type BenchmarkEntry,
  type Instance,
  type Labels,
  type VerificationReport,
} from '@junobench/core';

/** The statuses that make an instance part of the benchmark: verified, or skipped for lack of a library here. */
const INCLUDED = new Set(['verified', 'skipped']);

/** Pure: the benchmark entries from instances, verification results and final labels. */
export function assembleBenchmark(
  instances: readonly Instance[],
  verification: VerificationReport,
  finalLabels: Record<string, Labels>,
  meta: { name: string; version?: string },
): Benchmark {
  const byId = new Map(verification.instances.map((v) => [v.instance, v]));
  const entries: BenchmarkEntry[] = [];
  for (const inst of instances) {
    const v = byId.get(inst.id);
    const status = v?.status ?? 'not-run';
    // A draft (`junobench add`) is not labelled or fixed yet: never in the benchmark.
    if (inst.status === 'draft' || status === 'draft') continue;
    if (!INCLUDED.has(status)) continue;
    const labels = finalLabels[inst.id];
    if (!labels) {
      throw new JunoError('E_LABELS', `no final labels for instance ${inst.id}`, {
        hint: "add it to the annotators' files under raw/annotations/ (or adjudicated.jsonl) and rebuild",
      });
    }
    entries.push({
      id: inst.id,
      source: inst.source,
      crash: inst.crash,
      execution: inst.execution,
      labels,
      requires: inst.requires,
      syntheticData: isSyntheticData(inst),
      verification: {
        status,
        ...(v ? { reproduced: v.reproduced.outcome, fixed: v.fixed.outcome } : {}),
        ...(v && status === 'skipped' && v.reproduced.reason ? { reason: v.reproduced.reason } : {}),
      },
    });
  }
  return { name: meta.name, ...(meta.version ? { version: meta.version } : {}), instances: entries };
}

/**
 * Pure: the benchmark without credentials in its URLs (user-info, token
 * parameters; core stripUrlCredentials), with one warning per URL changed
 * naming the instance and the field — never the secret. Everything published
 * (benchmark.json/.csv, curated instances, and what releases build from them)
 * comes from this.
 */
export function stripBenchmarkCredentials(
  b: Benchmark,
  instanceFile: (id: string) => string,
): { benchmark: Benchmark; warnings: string[] } {
  const warnings: string[] = [];
  const strip = (id: string, field: string, url: string): string => {
    const r = stripUrlCredentials(url);
    if (r.removed.length > 0)
      warnings.push(
        `${id}: removed credentials from ${field} (${r.removed.join(', ')}) before publishing; fix ${instanceFile(id)}`,
      );
    return r.url;
  };
  const instances = b.instances.map((e) => {
    const source = { ...e.source };
    if (source.notebookUrl !== undefined) source.notebookUrl = strip(e.id, 'source.notebookUrl', source.notebookUrl);
    source.datasets = source.datasets.map((d, i) =>
      d.url === undefined ? d : { ...d, url: strip(e.id, `source.datasets[${i}].url`, d.url) },
    );
    return { ...e, source };
  });
  return { benchmark: { ...b, instances }, warnings };
}
