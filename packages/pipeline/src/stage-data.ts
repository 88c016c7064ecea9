import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  hashTree,
  listInstanceIds,
  readInstance,
  writeJsonAtomic,
  type SubsampleBuildReport,
  type SubsampleSource,
} from '@junobench/core';
import type { InstanceSubsampleReport } from '@junobench/subsample';
import type { Stage } from './run-build.js';

export interface DataStageOptions {
  instancesDir: string;
  output: string;
  /** Where generated full-size sources are cached between builds. */
  cacheDir: string;
}

/**
 * Redo every subsampled instance's data/ from its full data with the spec and
 * seed saved in instance.json, and check it is byte for byte the data the
 * instance ships. Writes the sizes before/after (curated/subsample.json).
 */
export function createDataStage(o: DataStageOptions): Stage {
  return {
    name: 'data',
    description: 'redo subsampled data from the full data and check it byte for byte',
    inputs: [o.instancesDir],
    outputs: [o.output],
    // Which full data `sources fetch` has put in the cache (names are tree hashes): fetching more re-runs the stage.
    environment: async () => {
      const dirs = await readdir(path.join(o.cacheDir, 'sources', 'full')).catch(() => [] as string[]);
      return `full-data:${dirs
        .filter((d) => /^[0-9a-f]{64}$/.test(d))
        .sort()
        .join(',')}`;
    },
    async run(io) {
      const { regenerateInstanceData, summarizeSubsampleReports } = await import('@junobench/subsample');
      const instancesDir = io.abs(o.instancesDir);
      const reports: InstanceSubsampleReport[] = [];
      const checks: SubsampleBuildReport['checks'] = [];
      const skipped: NonNullable<SubsampleBuildReport['skipped']> = [];
      const ids = await listInstanceIds(instancesDir);
      for (const id of ids) {
        const dir = path.join(instancesDir, id);
        const instance = await readInstance(dir);
        if (!instance.data?.subsample) continue;
        io.onProgress({ task: 'data', done: checks.length, item: id });
        // Full data from a dataset: fetched by `junobench sources fetch` (or kept by `subsample`) under its tree hash.
        const full = await findFullData(io.abs(o.cacheDir), id, instance.data.subsample.source);
        if (full === null) {
          skipped.push({ instance: id, detail: `full data not fetched: run \`junobench sources fetch ${id}\`` });
          continue;
        }
        const tmp = await mkdtemp(path.join(os.tmpdir(), `junobench-data-${id}-`));
        try {
          const t0 = Date.now();
          const r = await regenerateInstanceData(dir, {
            cacheDir: io.abs(o.cacheDir),
            outDir: path.join(tmp, 'data'),
            ...(full ? { sourceDir: full } : {}),
          });
          const same = (await hashTree(path.join(tmp, 'data'))) === (await hashTree(path.join(dir, 'data')));
          const reproduced = r.matches !== false && same;
          checks.push({
            instance: id,
            reproduced,
            detail: reproduced
              ? 'byte-identical'
              : r.matches === false
                ? 'differs from the result recorded in instance.json'
                : 'differs from the data/ the instance ships',
          });
          reports.push({ instance: id, status: 'applied', data: r.report, durationMs: Date.now() - t0 });
        } finally {
          await rm(tmp, { recursive: true, force: true });
        }
      }
      const summary = summarizeSubsampleReports(reports);
      await writeSubsampleBuildReport(io.abs(o.output), {
        summary,
        checks,
        ...(skipped.length > 0 ? { skipped } : {}),
      });
      const bad = checks.filter((c) => !c.reproduced);
      const mb = (b: number) => `${(b / 1e6).toFixed(1)} MB`;
      return {
        summary:
          (skipped.length > 0 ? `not checked (${skipped.map((k) => `${k.instance}: ${k.detail}`).join('; ')}); ` : '') +
          (checks.length === 0
            ? 'no subsampled instances'
            : `${checks.length - bad.length}/${checks.length} subsampled instance(s) reproduced byte for byte (${mb(summary.before.bytes)} → ${mb(summary.after.bytes)})` +
              (bad.length > 0 ? `; NOT reproduced: ${bad.map((b) => `${b.instance} (${b.detail})`).join(', ')}` : '')),
        failed: bad.length > 0,
      };
    },
  };
}

/**
 * Write curated/subsample.json (schemas/subsample-build-report.schema.json), checked first: a report that drifted
 * from its documented format is an internal error (exit 70) and no file, never a file a reader then misreads.
 */
export async function writeSubsampleBuildReport(file: string, report: SubsampleBuildReport): Promise<void> {
  await writeJsonAtomic(file, report, { schema: 'subsample-build-report' });
}

/**
 * The full data of a spec whose source is not a generator: the copy that
 * `junobench sources fetch` assembled (`<cache>/sources/full/<sha256>/`), else
 * the one `junobench subsample` kept (`<cache>/originals/<id>-<sha256…>`);
 * null when neither is here (nothing to check against). Generators: undefined
 * (made on demand).
 */
async function findFullData(cacheDir: string, id: string, source: SubsampleSource): Promise<string | null | undefined> {
  if (source.kind === 'generator') return undefined;
  if (!source.sha256) return null;
  const { fullDataCacheDir } = await import('@junobench/sources');
  for (const dir of [
    fullDataCacheDir(cacheDir, source.sha256),
    path.join(cacheDir, 'originals', `${id}-${source.sha256.slice(0, 16)}`),
  ]) {
    if (
      await stat(dir).then(
        (s) => s.isDirectory(),
        () => false,
      )
    )
      return dir;
  }
  return null;
}
