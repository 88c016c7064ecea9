import type { Redis } from 'ioredis';
import { checkSchema, hashValue, type QueueWorker } from '@junobench/core';

export const QUEUE_PROTOCOL = 1 as const;

export function workerKey(prefix: string, name: string): string {
  return `${prefix}:worker:${name}`;
}

/** The BullMQ queue a group of identical workers takes jobs from. */
export function planQueueName(group: string): string {
  return `run-${group}`;
}

/**
 * Workers whose environment (runtime kind and fingerprint) and toolchain
 * runner are equal form one group and share one queue: a run is executed by
 * one group only, so its results can never mix two environments.
 */
export function planWorkerGroup(identity: { kind: string; fingerprint: string; runner: string }): string {
  return hashValue({
    protocol: QUEUE_PROTOCOL,
    kind: identity.kind,
    fingerprint: identity.fingerprint,
    runner: identity.runner,
  }).slice(0, 16);
}

export async function writeWorkerRecord(
  redis: Redis,
  prefix: string,
  record: QueueWorker,
  ttlMs: number,
): Promise<void> {
  await redis.set(workerKey(prefix, record.name), JSON.stringify(record), 'PX', ttlMs);
}

export async function readWorkerRecord(redis: Redis, prefix: string, name: string): Promise<QueueWorker | undefined> {
  return parseRecord(await redis.get(workerKey(prefix, name)));
}

export async function deleteWorkerRecord(redis: Redis, prefix: string, name: string): Promise<void> {
  await redis.del(workerKey(prefix, name));
}

/** Every worker whose record has not expired, sorted by name. Records that are not ours are ignored. */
export async function readLiveWorkers(redis: Redis, prefix: string): Promise<QueueWorker[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', `${prefix}:worker:*`, 'COUNT', 1000);
    keys.push(...found);
    cursor = next;
  } while (cursor !== '0');
  if (keys.length === 0) return [];
  const values = await redis.mget(...keys);
  return values
    .map(parseRecord)
    .filter((r): r is QueueWorker => r !== undefined)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function parseRecord(text: string | null): QueueWorker | undefined {
  if (!text) return undefined;
  try {
    const value = JSON.parse(text) as unknown;
    return checkSchema('queue-worker', value).length === 0 ? (value as QueueWorker) : undefined;
  } catch {
    return undefined;
  }
}

export interface WorkerGroup {
  group: string;
  kind: QueueWorker['kind'];
  fingerprint: string;
  workers: QueueWorker[];
}

/** Live workers by identity group, largest group first (ties by group id, so the order is stable). */
export function planWorkerGroups(workers: readonly QueueWorker[]): WorkerGroup[] {
  const groups = new Map<string, WorkerGroup>();
  for (const w of workers) {
    const g = groups.get(w.group) ?? { group: w.group, kind: w.kind, fingerprint: w.fingerprint, workers: [] };
    g.workers.push(w);
    groups.set(w.group, g);
  }
  return [...groups.values()].sort((a, b) => b.workers.length - a.workers.length || (a.group < b.group ? -1 : 1));
}

/** One line per group, for messages: "local runtime, Python 3.11.2 (/usr/bin/python3), identity 1f2e…: w1@host-a, w2@host-b". */
export function describeWorkerGroup(g: WorkerGroup): string {
  const w0 = g.workers[0]!;
  const env =
    g.kind === 'docker'
      ? `docker runtime, image ${w0.image ?? '?'} (${g.fingerprint.replace(/^docker:/, '').slice(0, 19)})`
      : `local runtime, Python ${w0.pythonVersion ?? '?'} (${w0.python ?? '?'}), ${describePackages(g.fingerprint)}`;
  return `${env}, runner ${w0.runner.slice(0, 12)}, identity ${g.group}: ${g.workers.map((w) => `${w.name}@${w.host}`).join(', ')}`;
}

// The local fingerprint is the runner's JSON: name the package set by its hash and size.
function describePackages(fingerprint: string): string {
  const m = /^local:(\{.*\})(.*)$/.exec(fingerprint);
  try {
    const f = JSON.parse(m?.[1] ?? '') as { distributions?: string; count?: number };
    // What follows the JSON is the runtime's own settings (e.g. ":fork:threads=1").
    if (f.distributions)
      return `${f.count ?? '?'} packages ${f.distributions.slice(0, 12)}${m![2]!.replace(/:/g, ' ')}`;
  } catch {
    // not JSON: show it as it is
  }
  return `environment ${fingerprint.slice(0, 40)}`;
}
