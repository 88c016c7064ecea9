import { mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  compareCodePoints,
  formatJson,
  readJsonFile,
  writeFileAtomic,
  type AgreementGate,
  type AgreementReport,
  type Benchmark,
  type DeprecatedInstance,
  type VerificationReport,
} from '@junobench/core';
import { formatBenchmarkCsv } from '@junobench/benchmark';
import type { ReportProvenance } from '@junobench/report';

export interface ReleaseView {
  /** Archive paths (relative to the release's top folder) → the files or folders that replace curated/'s. */
  overlay: Record<string, string>;
  agreementRecomputed: boolean;
  close: () => Promise<void>;
}

export interface ReleaseViewOptions {
  curatedDir: string;
  deprecated: readonly DeprecatedInstance[];
  annotationsDir?: string;
  rawInstancesDir?: string;
  /** The gate the release is judged by: its verdict goes into labels/agreement.json and the report. */
  gate: AgreementGate;
  /** What the release's report says of where it comes from. */
  provenance: ReportProvenance;
}

const exists = (p: string) =>
  stat(p).then(
    () => true,
    () => false,
  );

/**
 * curated/ as the release ships it, as overlay files in a temporary folder:
 *
 * - without the deprecated instances, when a deprecated one is still in the
 *   curated benchmark (built before the deprecation) or in the annotations:
 *   benchmark.json/.csv, verification.json, final-labels.jsonl and stats/ are
 *   redone without it, and the agreement recomputed from the other instances'
 *   annotations (when raw/annotations is at hand; else the build's figures are
 *   carried, and the card says they include it);
 * - labels/agreement.json/.md with the verdict of the release's gate;
 * - report/, when the build made one, rendered again over exactly what the
 *   release ships, with the release's provenance: its version, the toolchain,
 *   its date (SOURCE_DATE_EPOCH), the gate's result and the deprecated
 *   instances with their reason and version.
 *
 * The folder is laid out as a project is (curated/, raw/ beside it, the report
 * in curated/report), so the report's relative links are the ones the build
 * writes and the same inputs give the same bytes wherever the temporary folder
 * is. It holds no instance folder: the report reads them where they are.
 */
export async function writeReleaseView(o: ReleaseViewOptions): Promise<ReleaseView> {
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'junobench-release-view-'));
  const close = () => rm(tmp, { recursive: true, force: true });
  try {
    const view = path.join(tmp, 'curated');
    const ids = new Set(o.deprecated.map((d) => d.id));
    const labels = await import('@junobench/labels');
    const annotations =
      o.annotationsDir &&
      (await stat(o.annotationsDir).then(
        (s) => s.isDirectory(),
        () => false,
      ))
        ? await labels.readAnnotationFolder(o.annotationsDir)
        : undefined;
    const overlay: Record<string, string> = {};
    const annotated = annotations?.sets.some((s) => s.annotations.some((a) => ids.has(a.instance))) ?? false;
    const withdrawn = await writeWithoutDeprecated(o.curatedDir, view, ids, annotated, overlay);
    // The agreement the release ships, judged by its gate: recomputed without the deprecated instances when they
    // were annotated (same seed and resamples as the labels stage), else the build's.
    const curated = await readJsonFile<AgreementReport>(path.join(o.curatedDir, 'labels', 'agreement.json'), {
      schema: 'agreement-report',
    }).catch(() => undefined);
    let agreementRecomputed = false;
    if (curated) {
      let report: AgreementReport = { ...curated };
      delete report.gate;
      if (annotations && withdrawn) {
        report = labels.computeAgreement(
          annotations.sets.map((s) => ({ ...s, annotations: s.annotations.filter((a) => !ids.has(a.instance)) })),
        );
        agreementRecomputed = true;
      }
      await labels.writeAgreementReport(path.join(view, 'labels'), report, { gate: o.gate });
      overlay['labels/agreement.json'] = path.join(view, 'labels', 'agreement.json');
      overlay['labels/agreement.md'] = path.join(view, 'labels', 'agreement.md');
    }
    if (await exists(path.join(o.curatedDir, 'report'))) {
      await writeReportView({ ...o, view, tmp, ids, withdrawn, agreementRecomputed });
      overlay.report = path.join(view, 'report');
    }
    return { overlay, agreementRecomputed, close };
  } catch (e) {
    await close();
    throw e;
  }
}

/**
 * benchmark.json/.csv, verification.json, stats/ and final-labels.jsonl without the deprecated instances, when one
 * of them is in the curated files or annotated. Returns whether any was.
 */
async function writeWithoutDeprecated(
  curatedDir: string,
  view: string,
  deprecated: ReadonlySet<string>,
  annotated: boolean,
  overlay: Record<string, string>,
): Promise<boolean> {
  if (deprecated.size === 0) return false;
  const benchmark = await readJsonFile<Benchmark>(path.join(curatedDir, 'benchmark.json'), {
    schema: 'benchmark',
  }).catch(() => undefined);
  const verification = await readJsonFile<VerificationReport>(path.join(curatedDir, 'verification.json'), {
    schema: 'verification',
  }).catch(() => undefined);
  if (!benchmark || !verification) return false;
  const hit =
    annotated ||
    benchmark.instances.some((e) => deprecated.has(e.id)) ||
    verification.instances.some((v) => deprecated.has(v.instance)) ||
    // A deprecated draft the build's report lists from raw/instances (in no other curated file).
    (await someAsync([...deprecated], (id) => exists(path.join(curatedDir, 'report', 'instances', `${id}.html`))));
  if (!hit) return false;
  const labels = await import('@junobench/labels');
  const kept: Benchmark = { ...benchmark, instances: benchmark.instances.filter((e) => !deprecated.has(e.id)) };
  const instances = verification.instances.filter((v) => !deprecated.has(v.instance));
  const keptVerification: VerificationReport = {
    ...verification,
    instances,
    summary: {
      total: instances.length,
      verified: instances.filter((v) => v.status === 'verified').length,
      notVerified: instances.filter((v) => v.status === 'not-verified').length,
      skipped: instances.filter((v) => v.status === 'skipped').length,
      flaky: instances.filter((v) => v.status === 'flaky').length,
    },
  };
  overlay['benchmark.json'] = path.join(view, 'benchmark.json');
  overlay['benchmark.csv'] = path.join(view, 'benchmark.csv');
  overlay['verification.json'] = path.join(view, 'verification.json');
  overlay.stats = path.join(view, 'stats');
  await writeFileAtomic(overlay['benchmark.json'], formatJson(kept));
  await writeFileAtomic(overlay['benchmark.csv'], formatBenchmarkCsv(kept));
  await writeFileAtomic(overlay['verification.json'], formatJson(keptVerification));
  await labels.writeStats(overlay.stats, labels.computeStats(labels.statsRowsFromBenchmark(kept)));
  const finalLabels = await readFile(path.join(curatedDir, 'labels', 'final-labels.jsonl'), 'utf8').catch(
    () => undefined,
  );
  if (finalLabels !== undefined) {
    const lines = finalLabels
      .split('\n')
      .filter((l) => l.trim() && !deprecated.has((JSON.parse(l) as { instance: string }).instance));
    overlay['labels/final-labels.jsonl'] = path.join(view, 'labels', 'final-labels.jsonl');
    await writeFileAtomic(overlay['labels/final-labels.jsonl'], lines.map((l) => `${l}\n`).join(''));
  }
  return true;
}

/** report/ over the view: the files the release ships (curated's where the view redoes none), with its provenance. */
async function writeReportView(
  o: ReleaseViewOptions & {
    view: string;
    tmp: string;
    ids: ReadonlySet<string>;
    withdrawn: boolean;
    agreementRecomputed: boolean;
  },
): Promise<void> {
  const { view, tmp, ids } = o;
  const rawView = path.join(tmp, 'raw');
  // What the view does not redo is read from curated/ as it is.
  for (const name of ['benchmark.json', 'verification.json']) {
    if (await exists(path.join(view, name))) continue;
    const text = await readFile(path.join(o.curatedDir, name), 'utf8').catch(() => undefined);
    if (text !== undefined) await writeFileAtomic(path.join(view, name), text);
  }
  for (const name of ['labels/final-labels.jsonl', 'labels/agreement.json', 'labels/agreement.md']) {
    if (await exists(path.join(view, name))) continue;
    const text = await readFile(path.join(o.curatedDir, name), 'utf8').catch(() => undefined);
    if (text !== undefined) await writeFileAtomic(path.join(view, name), text);
  }
  const statsDir = (await exists(path.join(view, 'stats'))) ? undefined : path.join(o.curatedDir, 'stats');
  await mkdir(rawView, { recursive: true });
  const labels = await import('@junobench/labels');
  const adjudicated = o.annotationsDir
    ? await readFile(path.join(o.annotationsDir, labels.ADJUDICATION_FILE), 'utf8').catch(() => undefined)
    : undefined;
  if (adjudicated !== undefined) {
    // Already read and checked: the adjudicators' notes, line for line, without the deprecated instances'.
    const notes = adjudicated
      .split('\n')
      .filter((l) => l.trim() && !ids.has((JSON.parse(l) as { instance: string }).instance));
    await writeFileAtomic(
      path.join(rawView, 'annotations', labels.ADJUDICATION_FILE),
      notes.map((l) => `${l}\n`).join(''),
    );
  }
  if (statsDir) {
    const { cp } = await import('node:fs/promises');
    await cp(statsDir, path.join(view, 'stats'), { recursive: true });
  }
  const { generateReport } = await import('@junobench/report');
  // The instance folders are read where they are (curated/instances for the benchmark's, raw/instances for those the
  // build's report lists from raw/: drafts, not verified), never copied; the pages link to them as laid out in the
  // view, which is where the release ships them. The deprecated instances are withdrawn from the report, and listed
  // with their reason and version.
  await generateReport({
    from: view,
    raw: rawView,
    out: path.join(view, 'report'),
    instanceFolders: {
      curated: path.join(o.curatedDir, 'instances'),
      ...(o.rawInstancesDir ? { raw: o.rawInstancesDir } : {}),
    },
    ...(o.withdrawn
      ? { withdrawn: { instances: [...ids].sort(compareCodePoints), agreementRecomputed: o.agreementRecomputed } }
      : {}),
    deprecated: o.deprecated,
    provenance: o.provenance,
  });
}

async function someAsync<T>(items: readonly T[], test: (item: T) => Promise<boolean>): Promise<boolean> {
  for (const item of items) if (await test(item)) return true;
  return false;
}
