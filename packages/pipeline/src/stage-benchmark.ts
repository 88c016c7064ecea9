import { randomUUID } from 'node:crypto';
import { mkdir, rename, rm, readFile } from 'node:fs/promises';
import path from 'node:path';
import { stringify } from 'csv-stringify/sync';
import {
  JunoError,
  copyInstanceTree,
  listInstanceIds,
  neutralizeCsvFormula,
  stripUrlCredentials,
  readInstance,
  readJsonFile,
  readJsonlAll,
  validateOrThrow,
  writeFileAtomic,
  writeJsonAtomic,
  type Benchmark,
  type BenchmarkEntry,
  type FinalLabels,
  type Instance,
  type Labels,
  type VerificationReport,
} from '@junobench/core';
import type { Stage } from './run-build.js';

export interface BenchmarkStageOptions {
  instancesDir: string;
  verification: string;
  /** final-labels.jsonl from the labels stage (one FinalLabels line per instance). */
  finalLabels: string;
  outDir: string;
  name?: string;
  version?: string;
}

/** The statuses that make an instance part of the benchmark: verified, or skipped for lack of a library here. */
const INCLUDED = new Set(['verified', 'skipped']);

/**
 * Assemble the curated benchmark: benchmark.json/.csv (one row per included
 * instance: source, datasets and licences, crash, final labels, diagnosis,
 * verification status) and a copy of each included instance with its final
 * labels under instances/.
 */
export function createBenchmarkStage(o: BenchmarkStageOptions): Stage {
  const files = {
    json: path.join(o.outDir, 'benchmark.json'),
    csv: path.join(o.outDir, 'benchmark.csv'),
    instances: path.join(o.outDir, 'instances'),
  };
  return {
    name: 'benchmark',
    description: 'assemble benchmark.json/.csv and the curated instances',
    inputs: [o.instancesDir, o.verification, o.finalLabels],
    outputs: [files.json, files.csv, files.instances],
    params: { name: o.name ?? 'JunoBench', version: o.version ?? null },
    async run(io) {
      const verification = await readJsonFile<VerificationReport>(io.abs(o.verification), { schema: 'verification' });
      const finalLabels: Record<string, Labels> = {};
      for (const f of await readJsonlAll<FinalLabels>(io.abs(o.finalLabels), { schema: 'final-labels' }))
        finalLabels[f.instance] = f.labels;
      const ids = await listInstanceIds(io.abs(o.instancesDir));
      const instances: Instance[] = [];
      for (const id of ids) instances.push(await readInstance(path.join(io.abs(o.instancesDir), id)));
      const assembled = assembleBenchmark(instances, verification, finalLabels, {
        name: o.name ?? 'JunoBench',
        ...(o.version ? { version: o.version } : {}),
      });
      const { benchmark, warnings } = stripBenchmarkCredentials(assembled, (id) =>
        path.join(o.instancesDir, id, 'instance.json'),
      );
      validateOrThrow<Benchmark>('benchmark', benchmark, { file: files.json });
      await writeCuratedInstances(io.abs(o.instancesDir), io.abs(files.instances), benchmark.instances);
      await writeJsonAtomic(io.abs(files.json), benchmark);
      await writeFileAtomic(io.abs(files.csv), formatBenchmarkCsv(benchmark));
      const drafts = instances.filter((i) => i.status === 'draft').map((i) => i.id);
      const excluded = ids.length - benchmark.instances.length - drafts.length;
      const left = [
        ...(excluded > 0 ? [`${excluded} not verified`] : []),
        ...(drafts.length > 0 ? [`${drafts.length} draft${drafts.length > 1 ? 's' : ''}: ${drafts.join(', ')}`] : []),
      ];
      return {
        summary: `${benchmark.instances.length} instances in the benchmark${left.length > 0 ? ` (left out: ${left.join('; ')})` : ''} → ${files.json}, ${files.csv}`,
        ...(warnings.length > 0 ? { warnings } : {}),
      };
    },
  };
}

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
      syntheticData: Boolean(inst.data?.synthetic),
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

export const BENCHMARK_CSV_COLUMNS = [
  'id',
  'platform',
  'notebook_url',
  'datasets',
  'dataset_licenses',
  'dataset_urls',
  'synthetic_data',
  'crash_ename',
  'crash_evalue',
  'crash_match',
  'crash_cell',
  'execution_order',
  'requires',
  'library',
  'crash_type',
  'root_cause',
  'pipeline_stage',
  'diagnosis',
  'verification_status',
  'reproduced_outcome',
  'fixed_outcome',
  'verification_note',
] as const;

export function formatBenchmarkCsv(b: Benchmark): string {
  const rows = b.instances.map((e) => [
    e.id,
    e.source.platform,
    e.source.notebookUrl ?? '',
    e.source.datasets.map((d) => d.title).join('; '),
    e.source.datasets.map((d) => d.license).join('; '),
    e.source.datasets.map((d) => d.url ?? '').join('; '),
    e.syntheticData ? 'yes' : 'no',
    e.crash.ename,
    e.crash.evalue,
    e.crash.match,
    String(e.crash.cell),
    e.execution?.order ?? 'file',
    e.requires.join(' '),
    e.labels.library,
    e.labels.crashType,
    e.labels.rootCause,
    e.labels.pipelineStage,
    e.labels.diagnosis ?? '',
    e.verification.status,
    e.verification.reproduced ?? '',
    e.verification.fixed ?? '',
    e.verification.reason ?? '',
  ]);
  // A spreadsheet must never run a cell as a formula (OWASP); benchmark.json keeps the exact text.
  return stringify([[...BENCHMARK_CSV_COLUMNS], ...rows.map((r) => r.map(neutralizeCsvFormula))], {
    record_delimiter: 'unix',
  });
}

// Copy included instances (notebooks, data, instance.json with the final labels)
// into a temporary folder and swap it in whole, so curated/instances is never half-written.
async function writeCuratedInstances(
  srcDir: string,
  destDir: string,
  entries: readonly BenchmarkEntry[],
): Promise<void> {
  await mkdir(path.dirname(destDir), { recursive: true });
  // mkdir, not mkdtemp: mkdtemp makes the folder private (0700), and it is renamed into the published place.
  const tmp = path.join(path.dirname(destDir), `.instances-${process.pid}-${randomUUID()}`);
  await mkdir(tmp);
  try {
    for (const e of entries) {
      const dest = path.join(tmp, e.id);
      await copyInstanceTree(path.join(srcDir, e.id), dest);
      const instance = JSON.parse(await readFile(path.join(dest, 'instance.json'), 'utf8')) as Instance;
      instance.labels = e.labels;
      instance.source = e.source;
      await writeJsonAtomic(path.join(dest, 'instance.json'), instance, { schema: 'instance' });
    }
    const old = `${destDir}.old-${process.pid}`;
    await rename(destDir, old).catch(() => undefined);
    await rename(tmp, destDir);
    await rm(old, { recursive: true, force: true });
  } catch (e) {
    await rm(tmp, { recursive: true, force: true });
    throw e;
  }
}
