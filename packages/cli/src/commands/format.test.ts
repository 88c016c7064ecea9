import { describe, expect, it } from 'vitest';
import type { InstanceVerification, VerificationReport } from '@junobench/core';
import { printable } from './format.js';
import { formatVerificationSummary } from './verify.js';

describe('printable', () => {
  it.each([
    ['KeyError: x', 'KeyError: x'],
    ['line one\nline two', 'line one\\nline two'],
    ['progress 10%\r9/9 verified', 'progress 10%\\r9/9 verified'],
    ['\u001b[2K\u001b[1A red', '\\x1b[2K\\x1b[1A red'],
    ['tab\tstays', 'tab\tstays'],
    ['nel\u0085 and ls\u2028', 'nel\\x85 and ls\\u2028'],
  ])('%j → %j', (text, shown) => {
    expect(printable(text)).toBe(shown);
  });
});

describe('formatVerificationSummary', () => {
  it("prints a notebook's exception message on its own line, never as lines of the summary", () => {
    // A fixed notebook raising ValueError("x\n\n9/9 verified, 0 not verified…") printed a fake summary above the real one.
    const fake = '\n\n9/9 verified, 0 not verified, 0 flaky, 0 skipped (local runtime)\r';
    const version = (outcome: string, reason?: string) => ({
      outcome,
      ...(reason ? { reason } : {}),
      cells: [],
      durationMs: 1,
    });
    const v = {
      instance: 'pandas_1',
      status: 'not-verified',
      verified: false,
      flaky: false,
      reproduced: version('crash-reproduced'),
      fixed: version('fixed-crashed', `ValueError: x${fake} in code cell 2`),
      contentHash: 'h',
      cached: false,
    } as unknown as InstanceVerification;
    const report: VerificationReport = {
      runtime: 'local',
      summary: { total: 1, verified: 0, notVerified: 1, skipped: 0, flaky: 0 },
      instances: [v],
    };
    const lines = formatVerificationSummary(report).split('\n');
    expect(lines.filter((l) => l.startsWith('9/9'))).toEqual([]);
    expect(lines).toContain(
      '  pandas_1: fixed fixed-crashed (ValueError: x\\n\\n9/9 verified, 0 not verified, 0 flaky, 0 skipped (local runtime)\\r in code cell 2)',
    );
    expect(lines.at(-1)).toBe('0/1 verified, 1 not verified, 0 flaky, 0 skipped (local runtime)');
  });
});
