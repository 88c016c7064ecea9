import path from 'node:path';
import { listInstanceIds, readInstance, writeJsonAtomic } from '@junobench/core';
import type { Stage } from './run-build.js';

export interface ChecksStageOptions {
  instancesDir: string;
  /** The recorded mutation tests (raw/checks-report.json, written by `junobench checks test --record`). */
  record: string;
  output: string;
}

/**
 * Record each instance's mutation-tested checks into curated/checks.json: the recorded result of `junobench checks
 * test --record` when it is about the instance's current files, else `untested`. Nothing runs here: mutation testing
 * takes minutes per instance, and is measured by `checks test` (docs/checks.md, "Recorded results, the build and releases"); `release
 * prepare` refuses an instance whose recorded checks let a mutant survive, or that is untested.
 */
export function createChecksStage(o: ChecksStageOptions): Stage {
  return {
    name: 'checks',
    description: "record each instance's mutation-tested checks (raw/checks-report.json, from `checks test --record`)",
    inputs: [o.instancesDir, o.record],
    outputs: [o.output],
    async run(io) {
      const { planRecordedChecks, readChecksRecord, readCurrentInstances } = await import('@junobench/checks');
      const dir = io.abs(o.instancesDir);
      const ids: string[] = [];
      for (const id of await listInstanceIds(dir))
        if ((await readInstance(path.join(dir, id))).status !== 'draft') ids.push(id);
      const current = await readCurrentInstances(ids.map((id) => path.join(dir, id)));
      const report = planRecordedChecks(current, await readChecksRecord(io.abs(o.record)), o.record);
      await writeJsonAtomic(io.abs(o.output), report, { schema: 'checks-report' });
      const count = (s: string) => report.instances.filter((r) => r.status === s).length;
      const open = report.instances.filter((r) => ['untested', 'survivors', 'fixed-fails', 'error'].includes(r.status));
      const s = report.summary;
      return {
        summary: `${s.complete}/${s.instances} instances' checks reject every mutant (${s.rejected}/${s.mutants} rejected), ${count('waived')} waived, ${count('skipped-env')} skipped, ${count('untested')} untested → ${path.normalize(o.output)}`,
        ...(open.length > 0
          ? { warnings: open.map((r) => `checks of ${r.instance}: ${r.status}${r.reason ? ` — ${r.reason}` : ''}`) }
          : {}),
      };
    },
  };
}
