import { describe, expect, it } from 'vitest';
import { LivenessMonitor, noWorkerError, type SeenWorker } from './liveness-monitor.js';
import { parseRedisUrl } from './redis-url.js';
import type { WorkerGroup } from './worker-registry.js';

const address = parseRedisUrl('redis://127.0.0.1:6417');
const group: WorkerGroup = { group: 'g1', kind: 'local', fingerprint: 'f', workers: [] };
const settings = { address, kind: 'local' as const, group, waitMs: 60_000, pollMs: 2000 };
const mine: SeenWorker = { name: 'w1', host: 'h', kind: 'local', group: 'g1' };
const other: SeenWorker = { name: 'w2', host: 'h2', kind: 'local', group: 'g2' };

describe('LivenessMonitor', () => {
  it('reads every job when the events are quiet, after a reconnection, and every 30 s', () => {
    const m = new LivenessMonitor(settings, 0);
    m.event(1000);
    expect(m.startFullCheck(2000)).toBe(false);
    expect(m.startFullCheck(3000)).toBe(true);
    m.fullCheckDone(3000);
    m.event(3000);
    m.reconnect();
    expect(m.startFullCheck(3500)).toBe(true);
    expect(m.startFullCheck(3600)).toBe(false);
    m.event(33_000);
    expect(m.startFullCheck(33_500)).toBe(true);
  });

  it('tells once of a worker of another identity, and waits for one of its own before failing', () => {
    const m = new LivenessMonitor(settings, 0);
    expect(m.answered([mine, other], 3, 1000).notices).toEqual([
      "worker w2@h2 has another runtime identity (g2): it takes none of this run's jobs",
    ]);
    expect(m.answered([other], 3, 2000)).toEqual({
      notices: ['no live worker of identity g1 on redis://127.0.0.1:6417; waiting up to 60 s for one'],
    });
    expect(m.answered([other], 3, 62_000)).toEqual({ notices: [] });
    const v = m.answered([other], 3, 62_001);
    expect(v.failure?.code).toBe('E_ENV_QUEUE');
    expect(v.failure?.message).toBe(
      'no live local worker of identity g1 on redis://127.0.0.1:6417 for 60 s; 3 job(s) unfinished (live workers that do not qualify: w2@h2 (local, g2))',
    );
    // A worker of its own back: the wait starts again.
    expect(m.answered([mine], 3, 70_000)).toEqual({ notices: [] });
  });

  it('waits for Redis up to the limit since it last answered, and says when it answers again', () => {
    const m = new LivenessMonitor(settings, 0);
    expect(m.unanswered(new Error('connection reconnecting'), 2, 1000)).toEqual({
      notices: ['Redis at redis://127.0.0.1:6417 does not answer (connection reconnecting); waiting up to 60 s'],
    });
    expect(m.unanswered(new Error('x'), 2, 30_000)).toEqual({ notices: [] });
    expect(m.answered([mine], 2, 40_000).notices).toEqual(['Redis at redis://127.0.0.1:6417 answers again']);
    m.unanswered(new Error('x'), 2, 50_000);
    expect(m.unanswered(new Error('x'), 2, 100_000).failure).toBeUndefined();
    const v = m.unanswered(new Error('x'), 2, 100_001);
    expect(v.failure?.message).toBe('Redis at redis://127.0.0.1:6417 has not answered for 60 s; 2 job(s) unfinished');
  });

  it('counts from now while no job is unfinished', () => {
    const m = new LivenessMonitor(settings, 0);
    m.idle(500_000);
    expect(m.unanswered(new Error('x'), 1, 550_000).failure).toBeUndefined();
  });
});

describe('noWorkerError', () => {
  it('suggests the runtime of the workers that are live', () => {
    const e = noWorkerError(address, 'local', undefined, [{ ...other, kind: 'docker' }], 0, 60_000);
    expect(e.message).toBe(
      'no live local worker on redis://127.0.0.1:6417 for 60 s (live workers that do not qualify: w2@h2 (docker, g2))',
    );
    expect(e.hint).toBe(
      'start one: `junobench worker --queue redis://127.0.0.1:6417 --runtime local`, or pass --runtime docker to use the workers that are live',
    );
  });
});
