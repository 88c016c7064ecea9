import { describe, expect, it } from 'vitest';
import type { QueueJob } from '@junobench/core';
import { JobTracker, planGiveUp, planSuccessorId, readJobState } from './job-tracker.js';
import type { QueueJobAnswer } from './run-worker.js';

const runJob = (id: string, timeoutSeconds = 100): QueueJob =>
  ({
    protocol: 1,
    type: 'run',
    run: { id, notebook: 'nb.ipynb', cells: [0], cellTimeoutSeconds: 10, timeoutSeconds },
    files: { treeHash: 'h', blobs: [] },
  }) as unknown as QueueJob;
const probeJob = { protocol: 1, type: 'describe', modules: [] } as unknown as QueueJob;
const answer = (worker: string): QueueJobAnswer => ({ worker, group: 'g' });

describe('readJobState', () => {
  it('reads what the fields of a job hash say', () => {
    expect(readJobState(null, 0)).toEqual({ kind: 'missing' });
    expect(readJobState(['1', '2', '{"worker":"w","group":"g"}', null, '1', 'w'], 0)).toEqual({
      kind: 'completed',
      answer: { worker: 'w', group: 'g' },
    });
    expect(readJobState(['1', '2', null, 'boom', '1', 'w'], 0)).toEqual({ kind: 'failed', reason: 'boom' });
    expect(readJobState(['1', null, null, null, '1000', 'w1'], 1)).toEqual({
      kind: 'held',
      processedOn: 1000,
      worker: 'w1',
    });
    // processedOn stays set on a job a stalled try sent back: without the lock it is waiting, not held.
    expect(readJobState(['1', null, null, null, '1000', 'w1'], 0)).toEqual({ kind: 'waiting' });
    expect(readJobState(['1', null, null, null, null, null], 0)).toEqual({ kind: 'waiting' });
  });
});

describe('planGiveUp', () => {
  it('gives up on a run held past its own limit plus the grace, naming the worker and the limit', () => {
    const job = runJob('a/b', 100);
    expect(planGiveUp(job, { processedOn: 0, worker: 'w1' }, 160_000, 60_000)).toBeUndefined();
    expect(planGiveUp(job, { processedOn: 0, worker: 'w1' }, 161_000, 60_000)).toEqual({
      heldMs: 161_000,
      why: 'worker w1 took it 161 s ago and has not answered (its limit is 100 s, plus 60 s of grace)',
    });
  });

  it('gives a probe the grace alone, and never gives up on an unreadable start time', () => {
    expect(planGiveUp(probeJob, { processedOn: 0 }, 61_000, 60_000)?.why).toBe(
      'a worker took it 61 s ago and has not answered (its limit plus 60 s of grace)',
    );
    expect(planGiveUp(probeJob, { processedOn: Number.NaN }, 1e12, 60_000)).toBeUndefined();
  });
});

describe('planSuccessorId', () => {
  it('keeps the original id and replaces an earlier suffix', () => {
    expect(planSuccessorId('abc-1', 'x1')).toBe('abc-1~x1');
    expect(planSuccessorId('abc-1~x1', 'y2')).toBe('abc-1~y2');
    expect(planSuccessorId('abc-1')).toMatch(/^abc-1~[0-9a-f]{6}$/);
  });
});

describe('JobTracker', () => {
  it('settles each job once, with its answer or error', async () => {
    const t = new JobTracker();
    const a = t.track('j1', runJob('a'));
    const b = t.track('j2', probeJob);
    expect(t.size).toBe(2);
    expect(t.describe('j1')).toBe('run a');
    expect(t.describe('j2')).toBe('the runtime probe');
    t.resolve('j1', answer('w1'));
    t.resolve('j1', answer('w2'));
    t.reject('j2', new Error('boom'));
    await expect(a).resolves.toEqual(answer('w1'));
    await expect(b).rejects.toThrow('boom');
    expect(t.size).toBe(0);
  });

  it('knows which jobs Redis has taken', () => {
    const t = new JobTracker();
    t.track('j1', runJob('a'));
    t.track('j2', runJob('b'));
    t.markSubmitted(['j2', 'gone']);
    expect(t.submittedIds()).toEqual(['j2']);
    t.forget(['j1', 'j2']);
    expect(t.size).toBe(0);
  });

  it('renews a lost job under a new id, and releases every id it had', async () => {
    const t = new JobTracker();
    const a = t.track('j1', runJob('a'));
    t.markSubmitted(['j1']);
    let n = 0;
    const next = (id: string) => planSuccessorId(id, String(++n));
    expect(t.renew(['j1', 'unknown'], next).map(([id, job]) => [id, job.submitted])).toEqual([['j1~1', false]]);
    t.renew(['j1~1'], next);
    expect(t.ids()).toEqual(['j1~2']);
    t.resolve('j1~2', answer('w'));
    await expect(a).resolves.toEqual(answer('w'));
    expect(t.release(['j1'])).toEqual(['j1', 'j1~1', 'j1~2']);
    expect(t.release(['j1'])).toEqual(['j1']);
  });

  it('fails every job at once', async () => {
    const t = new JobTracker();
    const all = [t.track('j1', runJob('a')), t.track('j2', runJob('b'))];
    t.rejectAll(new Error('no Redis'));
    for (const p of all) await expect(p).rejects.toThrow('no Redis');
  });
});
