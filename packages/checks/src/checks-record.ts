import path from 'node:path';
import { stat } from 'node:fs/promises';
import {
  compareCodePoints,
  hashTree,
  readJsonFile,
  writeJsonAtomic,
  type ChecksReport,
  type InstanceChecksResult,
} from '@junobench/core';
import { hashHarness } from './plan-checks-probe.js';
import { hashChecksContent } from './prepare-checks-instance.js';
import { readInstanceChecks } from './read-checks.js';
import { planChecksReport } from './mutation-runs.js';

/** The recorded mutation tests of an instances folder: `<instances>/../checks-report.json` (raw/checks-report.json). */
export function defaultChecksRecord(instancesDir: string): string {
  return path.join(path.dirname(path.resolve(instancesDir)), 'checks-report.json');
}

/** The record, or undefined when there is none yet. */
export async function readChecksRecord(file: string): Promise<ChecksReport | undefined> {
  const exists = await stat(file).then(
    (s) => s.isFile(),
    () => false,
  );
  return exists ? readJsonFile<ChecksReport>(file, { schema: 'checks-report' }) : undefined;
}

/** The record with fresh results in place of the same instances' (others kept), sorted by instance. */
export function mergeChecksRecord(record: ChecksReport | undefined, fresh: ChecksReport): ChecksReport {
  const byId = new Map((record?.instances ?? []).map((r) => [r.instance, r]));
  for (const r of fresh.instances) byId.set(r.instance, { ...r, cached: false });
  const instances = [...byId.values()].sort((a, b) => compareCodePoints(a.instance, b.instance));
  return planChecksReport(fresh.runtime, instances);
}

/** Merge fresh results into the record file (written atomically, checked against its schema). */
export async function writeChecksRecord(file: string, fresh: ChecksReport): Promise<ChecksReport> {
  const merged = mergeChecksRecord(await readChecksRecord(file), fresh);
  await writeJsonAtomic(file, merged, { schema: 'checks-report' });
  return merged;
}

/** An instance as the build sees it: its id, the content hash of its files now, and its checks. */
export interface CurrentInstance {
  id: string;
  contentHash: string;
  checks: { name: string; reason: string }[];
}

/** Read what the build needs of each instance folder: no kernel runs. */
export async function readCurrentInstances(dirs: readonly string[]): Promise<CurrentInstance[]> {
  const harness = await hashHarness();
  const out: CurrentInstance[] = [];
  for (const dir of dirs) {
    const checks = await readInstanceChecks(dir);
    out.push({
      id: path.basename(dir),
      contentHash: hashChecksContent(await hashTree(dir), harness),
      checks: checks?.checks ?? [],
    });
  }
  return out;
}

/**
 * What the build records of each instance's checks (curated/checks.json): the recorded result when it is about the
 * instance's current files, else `untested`, saying what to run. Pure.
 */
export function planRecordedChecks(
  current: readonly CurrentInstance[],
  record: ChecksReport | undefined,
  recordFile: string,
): ChecksReport {
  const byId = new Map((record?.instances ?? []).map((r) => [r.instance, r]));
  const instances = current.map((c): InstanceChecksResult => {
    const r = byId.get(c.id);
    if (r && r.contentHash === c.contentHash) return { ...r, cached: false };
    const why = r
      ? 'its files (or the checks harness) changed since its mutation test was recorded'
      : `no mutation test of it is recorded in ${recordFile}`;
    return {
      instance: c.id,
      status: 'untested',
      reason: `${why}: run \`junobench checks test ${c.id} --record\``,
      checks: c.checks,
      fixed: { runs: 0, passed: 0 },
      mutants: [],
      score: { generated: 0, rejected: 0, value: null },
      survivors: [],
      waived: [],
      contentHash: c.contentHash,
      cached: false,
    };
  });
  return planChecksReport(record?.runtime ?? 'local', instances);
}
