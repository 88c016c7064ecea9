import os from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { JunoError, type QueueWorker, type RuntimeIdentity } from '@junobench/core';
import { withTimeout } from './redis-connection.js';
import { QUEUE_PROTOCOL, writeWorkerRecord } from './worker-registry.js';

/** A worker name is unique among live workers and safe in a Redis key and a message. */
export function checkWorkerName(name: string): void {
  if (!/^[A-Za-z0-9][A-Za-z0-9_.@-]{0,99}$/.test(name)) {
    throw new JunoError('E_USAGE', `"${name}" is not a valid worker name`, {
      hint: 'letters, digits, "_", ".", "@" and "-", e.g. --name gpu-box-1',
    });
  }
}

/** The worker's record in Redis: who it is, where, and its runtime identity (what coordinators group it by). */
export function planWorkerRecord(w: {
  name: string;
  kind: QueueWorker['kind'];
  fingerprint: string;
  runner: string;
  group: string;
  jobs: number;
  identity: RuntimeIdentity;
  sharedInstances?: string;
}): QueueWorker {
  const { identity } = w;
  return {
    protocol: QUEUE_PROTOCOL,
    name: w.name,
    host: os.hostname(),
    pid: process.pid,
    kind: w.kind,
    fingerprint: w.fingerprint,
    runner: w.runner,
    group: w.group,
    jobs: w.jobs,
    startedAt: new Date().toISOString(),
    ...(identity.python ? { python: identity.python } : {}),
    ...(identity.pythonVersion ? { pythonVersion: identity.pythonVersion } : {}),
    ...(identity.image ? { image: identity.image } : {}),
    ...(w.sharedInstances ? { sharedInstances: path.resolve(w.sharedInstances) } : {}),
  };
}

/** What the presence tells its worker's owner about the connection. */
export type PresenceEvent = { type: 'connection-lost'; error: string } | { type: 'connection-restored' };

/**
 * A worker's presence in Redis: its record, refreshed every `heartbeatMs`
 * (it expires after three times that), published again at once when a
 * restarted Redis comes back, and whether the connection is lost (told once
 * per outage, and not while the worker stops).
 */
export class WorkerPresence {
  private lostNow = false;
  private quiet = false;
  private lastRedisError = '';
  private readonly heartbeat: NodeJS.Timeout;

  /** Publish the record, then keep it there. */
  static async start(
    redis: Redis,
    prefix: string,
    record: QueueWorker,
    heartbeatMs: number,
    emit: (e: PresenceEvent) => void,
  ): Promise<WorkerPresence> {
    await writeWorkerRecord(redis, prefix, record, heartbeatMs * 3);
    return new WorkerPresence(redis, prefix, record, heartbeatMs, emit);
  }

  private constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly record: QueueWorker,
    private readonly heartbeatMs: number,
    private readonly emit: (e: PresenceEvent) => void,
  ) {
    redis.on('error', (e: Error) => {
      this.lastRedisError = e.message;
    });
    redis.on('close', () => this.markLost(this.lastRedisError || 'connection closed'));
    redis.on('ready', () => this.restored());
    this.heartbeat = setInterval(() => this.beat(), heartbeatMs);
  }

  /** Redis is gone, as far as the worker knows. */
  get lost(): boolean {
    return this.lostNow;
  }

  /** The worker stops: a lost connection is no longer news. */
  stopping(): void {
    this.quiet = true;
  }

  /** Stop refreshing the record. */
  stop(): void {
    clearInterval(this.heartbeat);
  }

  private publish(): Promise<void> {
    return writeWorkerRecord(this.redis, this.prefix, this.record, this.heartbeatMs * 3);
  }

  private beat(): void {
    withTimeout(this.publish(), this.heartbeatMs, () => new Error('Redis does not answer')).catch((e: Error) =>
      this.markLost(e.message),
    );
  }

  private markLost(why: string): void {
    if (!this.lostNow && !this.quiet) this.emit({ type: 'connection-lost', error: why });
    this.lostNow = true;
  }

  private restored(): void {
    if (!this.lostNow) return;
    this.lostNow = false;
    this.emit({ type: 'connection-restored' });
    // A restarted Redis may have lost every key: publish the record at once.
    void this.publish().catch(() => undefined);
  }
}
