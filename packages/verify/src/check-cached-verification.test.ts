import { describe, expect, it } from 'vitest';
import type { ExpectedCrash, InstanceVerification, RuntimeIdentity, VersionResult } from '@junobench/core';
import { checkCachedVerification, deriveStatus } from './check-cached-verification.js';
import { summarize } from './verify-instances.js';

const runtime: RuntimeIdentity = { kind: 'local', python: '/usr/bin/python3', packages: {} };
const crash: ExpectedCrash = { ename: 'ValueError', evalue: 'bad value', match: 'exact', cell: 1 };
const hash = 'a'.repeat(64);
const observed = { ename: 'ValueError', evalue: 'bad value', cell: 1 };

function version(
  v: 'reproduced' | 'fixed',
  outcome: VersionResult['outcome'],
  extra: Partial<VersionResult> = {},
): VersionResult {
  return { version: v, outcome, cells: [], durationMs: 5, runtime, ...extra };
}
const good = summarize(
  { id: 'ok', contentHash: hash },
  [version('reproduced', 'crash-reproduced', { observed })],
  [version('fixed', 'fixed-ok')],
);
const expectation = { id: 'ok', contentHash: hash, crash, repeat: 1 };
const tamper = (f: (v: InstanceVerification) => void): unknown => {
  const v = structuredClone(good) as InstanceVerification;
  f(v);
  return v;
};

describe('checkCachedVerification', () => {
  it('accepts an entry exactly as verification wrote it', () => {
    expect(good.status).toBe('verified');
    expect(checkCachedVerification(structuredClone(good), expectation)).toEqual({ ok: true, value: good });
  });

  it.each<[string, unknown, RegExp]>([
    // The case: fixed crashed, yet the entry says verified.
    [
      'status verified with fixed-crashed',
      tamper((v) => {
        v.fixed = version('fixed', 'fixed-crashed', {
          observed: { ename: 'KeyError', evalue: 'x', cell: 0 },
          reason: 'KeyError',
        });
      }),
      /says verified .* outcomes give not-verified/,
    ],
    ['verified flag without the status', tamper((v) => void (v.verified = false)), /outcomes give verified/],
    ['flaky flag on a single run', tamper((v) => void (v.flaky = true)), /flaky true/],
    ['not-verified over good outcomes', tamper((v) => void (v.status = 'not-verified')), /outcomes give verified/],
    [
      'not valid against the schema',
      tamper((v) => void ((v as unknown as Record<string, unknown>).status = 'great')),
      /not a valid verification entry/,
    ],
    [
      'a missing field',
      tamper((v) => void delete (v as Partial<InstanceVerification>).fixed),
      /not a valid verification entry/,
    ],
    ['not an object', 'verified', /not a valid verification entry/],
    // Earlier versions cached a run the runtime could not carry out as the notebook's verdict.
    [
      'a runtime failure cached as kernel-died',
      tamper((v) => {
        v.fixed = version('fixed', 'kernel-died', {
          reason: 'no kernel ran the notebook: the local runtime could not go on: ENOSPC',
        });
        Object.assign(v, deriveStatus(['crash-reproduced'], ['kernel-died']));
      }),
      /fixed: the runtime could not run it \(the local runtime could not go on: ENOSPC\)/,
    ],
    ['another content hash', tamper((v) => void (v.contentHash = 'b'.repeat(64))), /content hash/],
    ['another instance', tamper((v) => void (v.instance = 'other')), /instance "other"/],
    ['versions swapped', tamper((v) => void ([v.reproduced, v.fixed] = [v.fixed, v.reproduced])), /swapped/],
    [
      'a fixed outcome on reproduced',
      tamper((v) => void (v.reproduced.outcome = 'fixed-ok')),
      /not an outcome of reproduced/,
    ],
    [
      'a reproduced outcome on fixed',
      tamper((v) => void (v.fixed.outcome = 'crash-reproduced')),
      /not an outcome of fixed/,
    ],
    [
      'crash-reproduced without the crash',
      tamper((v) => void delete v.reproduced.observed),
      /without the crash it observed/,
    ],
    [
      'crash-reproduced with a crash that does not match the instance',
      tamper((v) => void (v.reproduced.observed = { ename: 'TypeError', evalue: 'bad value', cell: 1 })),
      /does not match/,
    ],
    [
      'repeats when one run was asked for',
      tamper((v) => void (v.repeats = { reproduced: ['crash-reproduced'], fixed: ['fixed-ok'] })),
      /repeats/,
    ],
  ])('refuses %s', (_name, entry, reason) => {
    const r = checkCachedVerification(entry, expectation);
    expect(r.ok).toBe(false);
    expect(r.ok ? '' : r.reason).toMatch(reason);
  });

  it('checks repeats: the count asked for, the representative outcome and flakiness', () => {
    const runs = {
      reproduced: [version('reproduced', 'crash-reproduced', { observed }), version('reproduced', 'no-crash')],
      fixed: [version('fixed', 'fixed-ok'), version('fixed', 'fixed-ok')],
    };
    const flaky = summarize({ id: 'ok', contentHash: hash }, runs.reproduced, runs.fixed);
    expect(flaky.status).toBe('flaky');
    expect(checkCachedVerification(structuredClone(flaky), { ...expectation, repeat: 2 }).ok).toBe(true);
    expect(checkCachedVerification(structuredClone(flaky), { ...expectation, repeat: 3 }).ok).toBe(false);
    const hidden = structuredClone(flaky);
    hidden.repeats!.reproduced = ['crash-reproduced', 'crash-reproduced'];
    expect(checkCachedVerification(hidden, { ...expectation, repeat: 2 })).toMatchObject({
      ok: false,
      reason: /outcomes shown/,
    });
  });
});

describe('deriveStatus', () => {
  it.each<[string[], string[], string]>([
    [['crash-reproduced'], ['fixed-ok'], 'verified'],
    [['crash-reproduced'], ['fixed-crashed'], 'not-verified'],
    [['no-crash'], ['fixed-ok'], 'not-verified'],
    [['skipped-env'], ['skipped-env'], 'skipped'],
    [['crash-reproduced', 'no-crash'], ['fixed-ok', 'fixed-ok'], 'flaky'],
    [['crash-reproduced', 'crash-reproduced'], ['fixed-ok', 'timeout'], 'flaky'],
    // A draft without fixed.ipynb: a draft when its crash reproduces; else judged as any instance.
    [['crash-reproduced'], ['absent'], 'draft'],
    [['crash-reproduced', 'crash-reproduced'], ['absent', 'absent'], 'draft'],
    [['no-crash'], ['absent'], 'not-verified'],
    [['crash-mismatch'], ['absent'], 'not-verified'],
    [['timeout'], ['absent'], 'not-verified'],
    [['crash-reproduced', 'no-crash'], ['absent', 'absent'], 'flaky'],
    [['skipped-env'], ['absent'], 'skipped'],
    // A draft whose fixed.ipynb is still the draft fix `add` wrote: a draft too, its fix not run.
    [['crash-reproduced'], ['draft-fix'], 'draft'],
    [['no-crash'], ['draft-fix'], 'not-verified'],
  ])('%j / %j → %s', (r, f, status) => {
    expect(deriveStatus(r as never, f as never).status).toBe(status);
  });
});

describe('a cached draft', () => {
  it('is accepted as it was decided (fixed absent, status draft)', () => {
    const draft = summarize(
      { id: 'ok', contentHash: hash },
      [version('reproduced', 'crash-reproduced', { observed })],
      [version('fixed', 'absent', { durationMs: 0 })],
    );
    expect(draft.status).toBe('draft');
    expect(checkCachedVerification(draft, expectation)).toEqual({ ok: true, value: draft });
  });
});
