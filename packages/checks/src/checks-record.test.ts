import { describe, expect, it } from 'vitest';
import { checkSchema, type ChecksReport, type InstanceChecksResult } from '@junobench/core';
import { mergeChecksRecord, planRecordedChecks } from './checks-record.js';
import { planChecksReport } from './mutation-runs.js';

const result = (instance: string, contentHash: string, status: InstanceChecksResult['status'] = 'complete') =>
  ({
    instance,
    status,
    checks: [{ name: 'check_x', reason: 'x holds' }],
    fixed: { runs: 2, passed: 2 },
    mutants: [{ id: 'guard-if-len@1:1', family: 'guard-if-len', description: 'guarded', outcome: 'checks-failed' }],
    score: { generated: 1, rejected: 1, value: 1 },
    survivors: [],
    waived: [],
    contentHash,
    cached: true,
  }) as InstanceChecksResult;

describe('the record of mutation tests', () => {
  it('merges fresh results over the recorded ones, by instance, sorted, summary recomputed', () => {
    const record = planChecksReport('local', [result('b', 'h-b'), result('a', 'h-a')]);
    const fresh = planChecksReport('local', [result('c', 'h-c', 'survivors'), result('a', 'h-a2')]);
    const merged = mergeChecksRecord(record, fresh);
    expect(merged.instances.map((r) => [r.instance, r.contentHash, r.cached])).toEqual([
      ['a', 'h-a2', false],
      ['b', 'h-b', true],
      ['c', 'h-c', false],
    ]);
    expect(merged.summary).toEqual({ instances: 3, mutants: 3, rejected: 3, complete: 2, skipped: 0 });
    expect(checkSchema('checks-report', merged)).toEqual([]);
  });

  it('the build records a result only for the instance files it is about; anything else is untested', () => {
    const record: ChecksReport = planChecksReport('local', [result('a', 'h-a'), result('b', 'old')]);
    const current = [
      { id: 'a', contentHash: 'h-a', checks: [{ name: 'check_x', reason: 'x holds' }] },
      { id: 'b', contentHash: 'new', checks: [{ name: 'check_y', reason: 'y holds' }] },
      { id: 'c', contentHash: 'h-c', checks: [] },
    ];
    const built = planRecordedChecks(current, record, 'raw/checks-report.json');
    expect(built.instances.map((r) => [r.instance, r.status])).toEqual([
      ['a', 'complete'],
      ['b', 'untested'],
      ['c', 'untested'],
    ]);
    expect(built.instances[1]).toMatchObject({
      checks: [{ name: 'check_y', reason: 'y holds' }],
      reason:
        'its files (or the checks harness) changed since its mutation test was recorded: run `junobench checks test b --record`',
    });
    expect(built.instances[2]!.reason).toBe(
      'no mutation test of it is recorded in raw/checks-report.json: run `junobench checks test c --record`',
    );
    expect(checkSchema('checks-report', built)).toEqual([]);
  });
});
