import path from 'node:path';
import {
  JunoError,
  checkSchema,
  formatIssue,
  hashInstanceTree,
  type QueueFiles,
  type QueueJob,
  type QueueRunJob,
  type RunResult,
} from '@junobench/core';
import type { NotebookRun } from '@junobench/runtime';
import { writeBlobs, type BlobUploadStats } from './blob-store.js';
import { checkBlobLimit, readInstanceManifest, type InstanceManifest } from './instance-manifest.js';
import type { QueueJobAnswer } from './run-worker.js';
import { QUEUE_PROTOCOL } from './worker-registry.js';
import type { Redis } from 'ioredis';

/** How a run's instance reaches the workers; `manifest` when its files go through Redis. */
export interface PlannedFiles {
  files: QueueFiles;
  manifest?: InstanceManifest;
}

/** A job to submit: its id, what it carries, and the files its worker fetches (sent again if Redis loses them). */
export interface JobItem {
  jobId: string;
  data: QueueJob;
  manifest?: InstanceManifest;
}

/**
 * How each instance folder of `runs` reaches the workers: read in place under
 * `sharedRoot` (after checking its tree hash), or its files written to Redis
 * as content-addressed blobs (counted in `stats`).
 */
export async function planQueueFiles(
  runs: readonly NotebookRun[],
  to: {
    sharedRoot?: string;
    blobLimit: number;
    redis: Redis;
    prefix: string;
    waitMs: number;
    stats: BlobUploadStats;
  },
): Promise<Map<string, PlannedFiles>> {
  const dirs = [...new Set(runs.map((r) => path.resolve(r.instanceDir)))];
  if (to.sharedRoot) return planSharedFiles(dirs, to.sharedRoot);
  const out = new Map<string, PlannedFiles>();
  const manifests: InstanceManifest[] = [];
  for (const dir of dirs) {
    const m = await readInstanceManifest(dir);
    checkBlobLimit(m, to.blobLimit);
    manifests.push(m);
    out.set(dir, { files: { treeHash: m.treeHash, blobs: m.blobs }, manifest: m });
  }
  const s = await writeBlobs(to.redis, to.prefix, manifests, { timeoutMs: to.waitMs });
  to.stats.blobs += s.blobs;
  to.stats.uploaded += s.uploaded;
  to.stats.uploadedBytes += s.uploadedBytes;
  to.stats.reused += s.reused;
  return out;
}

async function planSharedFiles(dirs: readonly string[], sharedRoot: string): Promise<Map<string, PlannedFiles>> {
  const out = new Map<string, PlannedFiles>();
  for (const dir of dirs) {
    const rel = path.relative(sharedRoot, dir);
    if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) {
      throw new JunoError('E_USAGE', `${dir} is not inside the shared folder ${sharedRoot}`, {
        hint: 'with --shared-instances <dir>, the instances must be read from that folder (e.g. --instances <dir>/raw/instances)',
      });
    }
    out.set(dir, {
      files: {
        treeHash: await hashInstanceTree(dir),
        shared: { root: sharedRoot, path: rel.split(path.sep).join('/') },
      },
    });
  }
  return out;
}

/** One job per run, ids `<batch>-<index>`, checked against the queue-job schema. */
export function planRunJobs(
  runs: readonly NotebookRun[],
  files: ReadonlyMap<string, PlannedFiles>,
  batch: string,
): JobItem[] {
  const items = runs.map((r, i) => {
    const f = files.get(path.resolve(r.instanceDir))!;
    const data: QueueRunJob = {
      protocol: QUEUE_PROTOCOL,
      type: 'run',
      run: {
        id: r.id,
        notebook: r.notebook.split(path.sep).join('/'),
        cells: r.cells,
        cellTimeoutSeconds: r.cellTimeoutSeconds,
        timeoutSeconds: r.timeoutSeconds,
        ...(r.prewarm ? { prewarm: r.prewarm } : {}),
        ...(r.probe ? { probe: r.probe } : {}),
      },
      files: f.files,
    };
    return { jobId: `${batch}-${i}`, data, ...(f.manifest ? { manifest: f.manifest } : {}) };
  });
  const issues = items.flatMap((it) => checkSchema('queue-job', it.data));
  if (issues.length > 0)
    throw new JunoError('E_QUEUE', `cannot make a queue job: ${issues.map(formatIssue).join('; ')}`);
  return items;
}

/**
 * The run's result from a worker's answer: the worker's own, under the run's
 * id, or a failed one when it does not match the run-result schema.
 */
export function readAnswerResult(answer: QueueJobAnswer, run: NotebookRun): RunResult {
  const issues = checkSchema('run-result', answer.result);
  if (issues.length === 0) return { ...answer.result!, id: run.id };
  return {
    id: run.id,
    status: 'failed',
    reason: `worker ${answer.worker} returned an invalid result: ${issues.map(formatIssue).join('; ')}`,
    cells: [],
    durationMs: 0,
  };
}

/** The worker answered for the run's identity group, or the run refuses its answer (results of two environments). */
export function checkAnswerGroup(answer: QueueJobAnswer, group: string): void {
  if (answer.group === group) return;
  throw new JunoError(
    'E_QUEUE_IDENTITY',
    `worker ${answer.worker} answered with runtime identity ${answer.group}, not ${group}: results of two environments are never mixed`,
    {
      exitCode: 3,
    },
  );
}
