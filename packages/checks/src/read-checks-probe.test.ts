import { describe, expect, it } from 'vitest';
import type { RunResult } from '@junobench/core';
import { judgeChecks } from './judge-checks.js';
import { planChecksProbe } from './plan-checks-probe.js';
import { readChecksProbe, RESULT_MARK } from './read-checks-probe.js';

const NONCE = 'n0nce';
const line = (o: object, nonce = NONCE) => `${RESULT_MARK}${nonce} ${JSON.stringify(o)}`;
const completed = (stdout: string, finish: Partial<NonNullable<RunResult['probe']>['finish']> = {}): RunResult => ({
  id: 'r',
  status: 'completed',
  cells: [],
  durationMs: 1,
  probe: {
    setup: { status: 'ok', stdout: '', durationMs: 1 },
    finish: { status: 'ok', stdout, durationMs: 1, ...finish },
  },
});
const CHECKS = [
  { name: 'check_a', reason: 'a holds' },
  { name: 'check_b', reason: 'b holds' },
];

describe('planChecksProbe', () => {
  it('installs the harness from a private namespace and puts the nonce only in the finish step', () => {
    const { probe, nonce } = planChecksProbe('print(1)', { ename: 'pandas.errors.IntCastingNaNError', checks: 'x' });
    expect(probe.setup).toContain('"CONFIG": c');
    expect(probe.setup).toContain('\\"ename\\":\\"IntCastingNaNError\\"');
    expect(probe.setup).not.toContain(nonce);
    expect(probe.finish).toContain(JSON.stringify(nonce));
    expect(probe.finishTimeoutSeconds).toBeGreaterThan(0);
    expect(planChecksProbe('', {}).nonce).not.toBe(nonce);
  });
});

describe('readChecksProbe and judgeChecks', () => {
  it('reads the evidence and every check; a run that hid nothing and passed is not judged', () => {
    const out = [
      'noise printed by a repr',
      line({ evidence: [], positions: 3 }),
      line({ check: 'check_a', reason: 'a holds', passed: true, ms: 1 }),
      line({ check: 'check_b', reason: 'b holds', passed: true, ms: 1 }),
      line({ done: true }),
    ].join('\n');
    const v = readChecksProbe(completed(out), NONCE, [0, 1, 2], CHECKS);
    expect(v.status).toBe('ok');
    expect(v.checks).toEqual([
      { name: 'check_a', reason: 'a holds', passed: true },
      { name: 'check_b', reason: 'b holds', passed: true },
    ]);
    expect(judgeChecks(v)).toBeUndefined();
  });

  it('ignores result lines without this run’s nonce (printed by the notebook), so a missing check fails', () => {
    const out = [
      line({ evidence: [] }),
      line({ check: 'check_a', passed: true }, 'forged'),
      line({ check: 'check_b', reason: 'b holds', passed: false, error: 'AssertionError: 3' }),
      line({ done: true }),
    ].join('\n');
    const v = readChecksProbe(completed(out), NONCE, [], CHECKS);
    expect(v.checks[0]).toEqual({
      name: 'check_a',
      reason: 'a holds',
      passed: false,
      error: 'the check did not report',
    });
    expect(judgeChecks(v)).toEqual({
      kind: 'checks',
      reason: 'check_a failed: a holds (the check did not report); 1 more check failed',
    });
  });

  it('maps evidence to the code cells of the run and puts hiding first', () => {
    const evidence = [
      { kind: 'swallowed', ename: 'ValueError', evalue: 'bad\n value', position: 1, line: 4 },
      {
        kind: 'replaced',
        what: 'pandas.core.series.Series.astype',
        how: "a function defined in the notebook's code (line 1)",
      },
    ];
    const out = [line({ evidence }), line({ check: 'check_a', passed: false }), line({ done: true })].join('\n');
    const v = readChecksProbe(completed(out), NONCE, [0, 5, 6], CHECKS.slice(0, 1));
    expect(v.evidence).toEqual([
      {
        kind: 'swallowed',
        what: 'ValueError: bad value was raised and swallowed',
        ename: 'ValueError',
        cell: 5,
        line: 4,
      },
      {
        kind: 'replaced',
        what: "library attribute pandas.core.series.Series.astype was replaced by a function defined in the notebook's code (line 1)",
      },
    ]);
    expect(judgeChecks(v, (c) => `cell ${c} of the repair`)).toEqual({
      kind: 'hiding',
      evidence: 'swallowed',
      reason: 'ValueError: bad value was raised and swallowed in cell 5 of the repair (and 1 more) (runtime evidence)',
    });
  });

  it('fails closed when the report is cut short, the finish step timed out or the harness did not install', () => {
    const cut = readChecksProbe(completed(line({ evidence: [] })), NONCE, [], CHECKS);
    expect(cut.status).toBe('broken');
    expect(judgeChecks(cut)?.kind).toBe('checks');
    const late = readChecksProbe(
      completed(line({ evidence: [] }), { status: 'timeout', reason: 'exceeded 120 s' }),
      NONCE,
      [],
      CHECKS,
    );
    expect(judgeChecks(late)?.reason).toBe('the checks did not finish in time (exceeded 120 s)');
    const noSetup = completed('');
    noSetup.probe!.setup = { status: 'error', stdout: '', durationMs: 1, ename: 'NameError', evalue: 'x' };
    expect(readChecksProbe(noSetup, NONCE, [], CHECKS)).toMatchObject({
      status: 'broken',
      problem: expect.stringMatching(/did not install/),
    });
  });

  it('says nothing about a run that did not complete (the run itself is judged)', () => {
    const v = readChecksProbe({ id: 'r', status: 'error', cells: [], durationMs: 1 }, NONCE, [], CHECKS);
    expect(v.status).toBe('absent');
    expect(judgeChecks(v)).toBeUndefined();
  });

  it('reports a checks.py that raises as the reason of every check', () => {
    const out = [line({ evidence: [] }), line({ checksError: 'SyntaxError: bad' }), line({ done: true })].join('\n');
    const v = readChecksProbe(completed(out), NONCE, [], CHECKS);
    expect(v.checks.map((c) => c.error)).toEqual([
      'checks.py raised SyntaxError: bad',
      'checks.py raised SyntaxError: bad',
    ]);
  });
});
