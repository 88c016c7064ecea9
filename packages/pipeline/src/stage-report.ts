import path from 'node:path';
import { readToolchainIdentity } from '@junobench/build-lock';
import type { Stage } from './run-build.js';

export interface ReportStageOptions {
  /** The curated folder the report shows (benchmark.json, verification.json, labels/, stats/, instances/). */
  curatedDir: string;
  /** raw/: adjudicators' notes and instances left out of the benchmark (drafts, not verified). */
  rawDir: string;
  outDir: string;
  /** SOURCE_DATE_EPOCH: the build time the report shows (else when benchmark.json was written). */
  sourceDateEpoch?: number;
}

/**
 * The browsable HTML report of curated/ (opens from disk: <out>/index.html),
 * with its provenance: the toolchain's version and commit (so a new commit
 * renders it again), the build time, the deprecated instances and the gate.
 */
export function createReportStage(o: ReportStageOptions): Stage {
  const c = (rel: string) => path.join(o.curatedDir, rel);
  return {
    name: 'report',
    description: 'browsable HTML report: instances, notebooks side by side, statistics',
    inputs: [
      c('benchmark.json'),
      c('verification.json'),
      c('checks.json'),
      c('labels'),
      c('stats'),
      c('instances'),
      path.join(o.rawDir, 'annotations'),
      path.join(o.rawDir, 'instances'),
      path.join(o.rawDir, 'deprecated.json'),
    ],
    outputs: [o.outDir],
    params: { sourceDateEpoch: o.sourceDateEpoch ?? null },
    environment: async () => {
      const t = await readToolchainIdentity();
      return JSON.stringify({ version: t.version, commit: t.commit, dirty: t.dirty });
    },
    async run(io) {
      const { generateReport, readBuildTime } = await import('@junobench/report');
      const t = await readToolchainIdentity();
      const builtAt = await readBuildTime(io.abs(o.curatedDir), o.sourceDateEpoch);
      const r = await generateReport({
        from: io.abs(o.curatedDir),
        raw: io.abs(o.rawDir),
        out: io.abs(o.outDir),
        onProgress: io.onProgress,
        provenance: {
          toolchain: { version: t.version, commit: t.commit, dirty: t.dirty },
          ...(builtAt ? { builtAt } : {}),
        },
      });
      const kb = (n: number) => `${Math.round(n / 1024)} KB`;
      const problems =
        r.problems.length > 0
          ? `; ${r.problems.length} problem(s): ${r.problems.map((p) => `${p.instance}: ${p.problem}`).join('; ')}`
          : '';
      return {
        summary: `${r.pages} pages, ${kb(r.bytes)}${r.largestInstancePage ? ` (largest instance page ${kb(r.largestInstancePage.bytes)})` : ''}${problems} → ${path.join(o.outDir, 'index.html')}`,
        failed: r.problems.length > 0,
      };
    },
  };
}
