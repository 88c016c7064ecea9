import { describe, expect, it } from 'vitest';
import type { ExpectedCrash, RunResult, RuntimeIdentity } from '@junobench/core';
import { classifyFixed, classifyReproduced, skippedEnv } from './classify-outcome.js';
import { summarize } from './verify-instances.js';

const runtime: RuntimeIdentity = { kind: 'local', python: '/usr/bin/python3', packages: { pandas: '1.5.3' } };
const crash: ExpectedCrash = { ename: 'KeyError', evalue: "'price'", match: 'exact', cell: 2 };

function run(
  status: RunResult['status'],
  error?: { cell: number; ename: string; evalue: string },
  reason?: string,
): RunResult {
  const cells: RunResult['cells'] = [0, 1, 2, 3].map((index) => ({ index, status: 'ok' as const, durationMs: 1 }));
  if (error) {
    cells[error.cell] = {
      index: error.cell,
      status: 'error',
      ename: error.ename,
      evalue: error.evalue,
      traceback: [`Cell In[${error.cell + 1}], line 1\n----> 1 df['price']\n`, `${error.ename}: ${error.evalue}`],
      durationMs: 1,
    };
    for (let i = error.cell + 1; i < 4; i++) cells[i] = { index: i, status: 'not-run', durationMs: 0 };
  }
  return { id: 'x', status, cells, durationMs: 10, ...(reason ? { reason } : {}) };
}

describe('classifyReproduced', () => {
  it.each([
    ['the labelled crash', run('error', { cell: 2, ename: 'KeyError', evalue: "'price'" }), 'crash-reproduced'],
    ['another exception', run('error', { cell: 2, ename: 'TypeError', evalue: "'price'" }), 'crash-mismatch'],
    ['the crash in another cell', run('error', { cell: 1, ename: 'KeyError', evalue: "'price'" }), 'crash-mismatch'],
    ['no crash', run('completed'), 'no-crash'],
    ['a timeout', run('timeout', undefined, 'cell exceeded 5 s'), 'timeout'],
    ['a dead kernel', run('kernel-died', undefined, 'the kernel process died'), 'kernel-died'],
    ['a kernel that never started', run('failed', undefined, 'kernel would not start'), 'kernel-died'],
  ])('%s', (_name, result, outcome) => {
    expect(classifyReproduced(result, crash, runtime).outcome).toBe(outcome);
  });

  it('records what was observed, with the crashing line', () => {
    const v = classifyReproduced(run('error', { cell: 2, ename: 'KeyError', evalue: "'price'" }), crash, runtime);
    expect(v.observed).toEqual({ ename: 'KeyError', evalue: "'price'", cell: 2, line: 1 });
    expect(v.runtime).toBe(runtime);
  });

  it('explains a mismatch', () => {
    const v = classifyReproduced(run('error', { cell: 1, ename: 'TypeError', evalue: 'x' }), crash, runtime);
    expect(v.reason).toContain('exception TypeError instead of KeyError');
    expect(v.reason).toContain('raised in code cell 1 instead of 2');
  });
});

describe('classifyFixed', () => {
  it.each([
    ['runs through', run('completed'), 'fixed-ok'],
    ['still crashes', run('error', { cell: 3, ename: 'ValueError', evalue: 'bad' }), 'fixed-crashed'],
    ['times out', run('timeout'), 'timeout'],
    ['kernel dies', run('kernel-died'), 'kernel-died'],
  ])('%s', (_name, result, outcome) => {
    expect(classifyFixed(result, runtime).outcome).toBe(outcome);
  });
});

describe('summarize', () => {
  const ok = classifyReproduced(run('error', { cell: 2, ename: 'KeyError', evalue: "'price'" }), crash, runtime);
  const fixedOk = classifyFixed(run('completed'), runtime);
  const noCrash = classifyReproduced(run('completed'), crash, runtime);
  it.each([
    ['verified', [ok], [fixedOk], 'verified', true],
    ['not verified', [noCrash], [fixedOk], 'not-verified', false],
    ['flaky across repeats', [ok, noCrash], [fixedOk, fixedOk], 'flaky', false],
    ['stable across repeats', [ok, ok], [fixedOk, fixedOk], 'verified', true],
    [
      'skipped',
      [skippedEnv('reproduced', ['tensorflow'], runtime)],
      [skippedEnv('fixed', ['tensorflow'], runtime)],
      'skipped',
      false,
    ],
  ])('%s', (_name, rep, fix, status, verified) => {
    const v = summarize({ id: 'i', contentHash: 'h' }, rep, fix);
    expect(v.status).toBe(status);
    expect(v.verified).toBe(verified);
  });

  it('shows the run that went wrong when repeats disagree', () => {
    const v = summarize({ id: 'i', contentHash: 'h' }, [ok, noCrash], [fixedOk, fixedOk]);
    expect(v.reproduced.outcome).toBe('no-crash');
    expect(v.repeats).toEqual({ reproduced: ['crash-reproduced', 'no-crash'], fixed: ['fixed-ok', 'fixed-ok'] });
  });

  it('a skip names the missing module and where', () => {
    expect(skippedEnv('reproduced', ['tensorflow'], runtime).reason).toBe(
      'required module tensorflow not importable in /usr/bin/python3',
    );
  });
});
