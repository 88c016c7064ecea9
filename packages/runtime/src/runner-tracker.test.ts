import { describe, expect, it } from 'vitest';
import type { RunResult } from '@junobench/core';
import { RunnerTracker, type TrackerOutcome } from './runner-tracker.js';

const limits = { startupSeconds: 60, graceSeconds: 60 };
const plan = (run: number, extra: { timeoutSeconds?: number; suspicions?: number } = {}) => ({
  run,
  id: `nb${run}`,
  timeoutSeconds: extra.timeoutSeconds ?? 100,
  suspicions: extra.suspicions ?? 0,
});
const result = (run: number, status: RunResult['status'] = 'completed'): RunResult => ({
  id: String(run),
  status,
  cells: [],
  durationMs: 5,
});
const started = (run: number) => ({ type: 'started' as const, id: String(run), kernel: 'forked' as const });
const done = (run: number) => ({ type: 'result' as const, id: String(run), result: result(run) });

/** A tracker with plans 0..n-1 sent at t=0 and the given ones started. */
function tracker(
  n: number,
  executing: number[],
  extra: Record<number, { suspicions?: number; timeoutSeconds?: number }> = {},
): RunnerTracker {
  const t = new RunnerTracker(limits, 0);
  for (let i = 0; i < n; i++) t.sent(plan(i, extra[i]), 0);
  for (const i of executing) t.message(started(i), 10);
  return t;
}

const summary = (outcomes: TrackerOutcome[]) =>
  outcomes.map((o) =>
    o.kind === 'finished'
      ? `finished ${o.run} ${o.result.status}`
      : o.kind === 'requeue'
        ? `requeue ${o.run}${o.suspect ? ' suspect' : ''}`
        : 'kill',
  );

describe('RunnerTracker', () => {
  it("a result finishes its plan with the run's id; unknown ids and the started message change nothing else", () => {
    const t = tracker(2, [0]);
    expect(t.executing).toBe(1);
    expect(t.message({ type: 'result', id: '9', result: result(9) }, 20)).toEqual([]);
    const [o] = t.message(done(0), 20);
    expect(o).toEqual({ kind: 'finished', run: 0, result: { ...result(0), id: 'nb0' } });
    expect(t.inFlight).toBe(1);
  });

  it('a rejected plan or an invalid message is a failed result naming why', () => {
    const t = tracker(2, []);
    expect(summary(t.message({ type: 'rejected', id: '0', line: '{…', reason: 'no cwd' }, 5))).toEqual([
      'finished 0 failed',
    ]);
    const [o] = t.message({ invalid: 'status: must be one of…', id: '1' }, 5);
    expect(o).toMatchObject({
      kind: 'finished',
      result: { status: 'failed', reason: expect.stringContaining('invalid message') },
    });
  });

  // Who is blamed when the runner dies: only plans that were executing.
  it.each([
    [
      'one plan executing, one started ahead: the executing one is blamed, the other requeued',
      2,
      [0],
      {},
      ['finished 0 failed', 'requeue 1'],
    ],
    [
      'the plan started ahead is executing, the first only queued: blame follows started',
      2,
      [1],
      {},
      ['requeue 0', 'finished 1 failed'],
    ],
    [
      'two executing: neither can be told apart, both run again alone',
      4,
      [0, 2],
      {},
      ['requeue 0 suspect', 'requeue 1', 'requeue 2 suspect', 'requeue 3'],
    ],
    [
      'a suspect run alone that kills the runner again is blamed',
      2,
      [0],
      { 0: { suspicions: 1 } },
      ['finished 0 failed', 'requeue 1'],
    ],
    [
      'two executing, one already a suspect: it is blamed, the other runs again alone',
      2,
      [0, 1],
      { 0: { suspicions: 1 } },
      ['finished 0 failed', 'requeue 1 suspect'],
    ],
    ['nothing executing: every plan goes back without blame', 3, [], {}, ['requeue 0', 'requeue 1', 'requeue 2']],
  ] as const)('%s', (_name, n, executing, extra, expected) => {
    const t = tracker(n, [...executing], extra as Record<number, { suspicions?: number }>);
    const out = t.exited({ stderrTail: 'Traceback…\nSegmentation fault', cancelled: false });
    expect(summary(out)).toEqual(expected);
    expect(t.inFlight).toBe(0);
    const blamed = out.find((o) => o.kind === 'finished');
    if (blamed?.kind === 'finished')
      expect(blamed.result.reason).toMatch(
        /^the runner process ended unexpectedly: Traceback… \| Segmentation fault \(while this notebook ran\)$/,
      );
  });

  it('cancelled: every plan in flight is finished as cancelled', () => {
    const t = tracker(2, [0]);
    expect(t.exited({ stderrTail: '', cancelled: true }).map((o) => o.kind === 'finished' && o.result.reason)).toEqual([
      'cancelled',
      'cancelled',
    ]);
  });

  it('an executing plan past its limit (plus start-up and grace) is a timeout, the runner is killed, and the others are not blamed', () => {
    const t = tracker(3, [0, 1], { 0: { timeoutSeconds: 10 } });
    expect(t.tick(10 + (10 + 120) * 1000)).toEqual([]);
    const out = t.tick(11 + (10 + 120) * 1000);
    expect(summary(out)).toEqual(['finished 0 timeout', 'kill']);
    expect(out[0]).toMatchObject({
      result: { id: 'nb0', kernel: 'forked', reason: expect.stringContaining('10 s limit') },
    });
    expect(t.tick(10 ** 9)).toEqual([]); // killed once
    expect(summary(t.exited({ stderrTail: '', cancelled: false }))).toEqual(['requeue 1', 'requeue 2']);
  });

  it('a runner silent for longer than any plan may take is killed; what was executing is a timeout', () => {
    const t = tracker(2, [0]);
    t.message({ type: 'started', id: '0', kernel: 'launched' }, 1000);
    // Plan 0 started at 1000 with a 100 s limit: the per-plan check would fire at 1000 + 220 000; silence fires first only past 100 + 240 s.
    expect(summary(t.tick(1000 + 220_001))).toEqual(['finished 0 timeout', 'kill']);
    // Messages about plans not in flight are no sign of life: the silence counts from the last real one.
    const t3 = tracker(1, []);
    for (const [at, m] of [
      [100_000, { type: 'result' as const, id: '7', result: result(7) }],
      [200_000, { type: 'rejected' as const, line: '?', reason: 'no id' }],
      [300_000, { invalid: 'status: …', id: '8' }],
    ] as const)
      expect(t3.message(m, at)).toEqual([]);
    expect(summary(t3.tick(340_001))).toEqual(['kill']);
    const t2 = tracker(1, []);
    expect(summary(t2.tick(340_001))).toEqual(['kill']);
    expect(summary(t2.exited({ stderrTail: '', cancelled: false }))).toEqual(['requeue 0']);
  });
});
