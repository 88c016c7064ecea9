import { describe, expect, it } from 'vitest';
import type { InstanceVerification, VerificationReport } from '@junobench/core';
import { formatRerunLine } from './release.js';
import { formatVerificationSummary } from './verify.js';

const v = (instance: string, status: InstanceVerification['status'], fixed = 'fixed-ok'): InstanceVerification =>
  ({
    instance,
    status,
    verified: status === 'verified',
    flaky: false,
    reproduced: { version: 'reproduced', outcome: 'crash-reproduced', durationMs: 1000, cells: [] },
    fixed: { version: 'fixed', outcome: fixed, durationMs: 0, cells: [] },
    cached: true,
  }) as unknown as InstanceVerification;

describe('verify counts drafts apart from the benchmark', () => {
  it('says "draft" of a draft and keeps it out of the benchmark counts', () => {
    const report = {
      runtime: 'local',
      summary: { total: 3, verified: 2, notVerified: 0, skipped: 0, flaky: 0, drafts: 1 },
      instances: [v('a_1', 'verified'), v('b_1', 'verified'), v('c_1', 'draft', 'draft-fix')],
    } as unknown as VerificationReport;
    const text = formatVerificationSummary(report, new Set(['c_1']));
    expect(text).toMatch(/c_1\s+crash-reproduced\s+draft-fix\s+cached\s+DRAFT/);
    expect(text.trim().split('\n').at(-1)).toBe(
      '2/2 verified, 0 not verified, 0 flaky, 0 skipped (local runtime); apart from them, 1 draft (not in the benchmark): 1 reproducing the crash, fix pending',
    );
  });
});

describe('release verify says what the re-run found, and nothing that did not happen', () => {
  it.each([
    [
      { differences: [], unchecked: ['tensorflow_1'], improved: [] },
      're-run (local runtime) of 16 instances: 15 as released (the outcomes of verification.json), 1 not checked here (cannot run in this runtime)',
    ],
    [
      { differences: [], unchecked: [], improved: [] },
      're-run (local runtime) of 16 instances: 16 as released (the outcomes of verification.json)',
    ],
    [
      { differences: ['x'], unchecked: [], improved: ['t'] },
      're-run (local runtime) of 16 instances: 14 as released (the outcomes of verification.json), 1 differs, 1 verified here though skipped-env in the release',
    ],
    [
      {
        differences: [],
        unchecked: ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n', 'o', 'p'],
        improved: [],
      },
      're-run (local runtime) of 16 instances: 16 not checked here (cannot run in this runtime)',
    ],
  ])('%j', (r, line) => {
    expect(formatRerunLine({ runtime: 'local', instances: 16, ...r })).toBe(line);
  });
});
