import { describe, expect, it } from 'vitest';
import { checkSchema, type QueueWorker } from '@junobench/core';
import { describeWorkerGroup, planQueueName, planWorkerGroup, planWorkerGroups } from './worker-registry.js';

const worker = (name: string, over: Partial<QueueWorker> = {}): QueueWorker => {
  const base = {
    kind: 'local' as const,
    fingerprint: 'local:{"count": 3, "distributions": "abcdef0123456789"}',
    runner: 'r'.repeat(64),
    ...over,
  };
  return {
    protocol: 1,
    name,
    host: 'h1',
    pid: 1,
    jobs: 2,
    startedAt: '2026-01-01T00:00:00.000Z',
    python: '/usr/bin/python3',
    pythonVersion: '3.11.2',
    group: planWorkerGroup(base),
    ...base,
  };
};

describe('planWorkerGroup', () => {
  it.each([
    ['kind', { kind: 'docker' as const }],
    ['fingerprint', { fingerprint: 'local:other' }],
    ['runner', { runner: 's'.repeat(64) }],
  ])('changes with the %s', (_what, change) => {
    const a = { kind: 'local', fingerprint: 'local:x', runner: 'r' };
    expect(planWorkerGroup({ ...a, ...change })).not.toBe(planWorkerGroup(a));
  });

  it('is 16 hex digits, stable, and names a BullMQ queue without ":"', () => {
    const g = planWorkerGroup({ kind: 'local', fingerprint: 'local:x', runner: 'r' });
    expect(g).toMatch(/^[0-9a-f]{16}$/);
    expect(planWorkerGroup({ kind: 'local', fingerprint: 'local:x', runner: 'r' })).toBe(g);
    expect(planQueueName(g)).toBe(`run-${g}`);
  });
});

describe('planWorkerGroups', () => {
  it('groups by identity, largest group first, and a record is valid against its schema', () => {
    const a1 = worker('a1');
    const a2 = worker('a2', { host: 'h2' });
    const b = worker('b', { fingerprint: 'local:{"count": 4, "distributions": "999999999999"}' });
    expect(checkSchema('queue-worker', a1)).toEqual([]);
    const groups = planWorkerGroups([b, a1, a2]);
    expect(groups.map((g) => g.workers.map((w) => w.name))).toEqual([['a1', 'a2'], ['b']]);
    expect(describeWorkerGroup(groups[0]!)).toBe(
      `local runtime, Python 3.11.2 (/usr/bin/python3), 3 packages abcdef012345, runner rrrrrrrrrrrr, identity ${a1.group}: a1@h1, a2@h2`,
    );
  });

  it('names the runtime settings that follow the package hash', () => {
    const w = worker('t', { fingerprint: 'local:{"count": 9, "distributions": "0123456789abcdef"}:fork:threads=2' });
    expect(describeWorkerGroup(planWorkerGroups([w])[0]!)).toContain('9 packages 0123456789ab fork threads=2, runner');
  });

  it('describes docker groups by image', () => {
    const d = worker('d', {
      kind: 'docker',
      fingerprint: 'docker:sha256:0123456789abcdef0123',
      image: 'junobench/bench:debian-1',
    });
    expect(describeWorkerGroup(planWorkerGroups([d])[0]!)).toMatch(
      /^docker runtime, image junobench\/bench:debian-1 \(sha256:0123456789ab/,
    );
  });
});
