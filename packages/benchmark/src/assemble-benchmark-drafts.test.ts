// Drafts (`junobench add`) never enter the benchmark, even when their
// crash reproduces and they have labels: they are not reviewed yet.
import { describe, expect, it } from 'vitest';
import type { Instance, InstanceVerification, Labels, VerificationReport } from '@junobench/core';
import { assembleBenchmark } from './assemble-benchmark.js';

const labels: Labels = {
  library: 'pandas',
  crashType: 'key error',
  rootCause: 'API misuse',
  pipelineStage: 'data preparation',
};
const runtime = { kind: 'local' as const, packages: {} };
const base = (id: string): Instance => ({
  id,
  source: { platform: 'kaggle', datasets: [] },
  crash: { ename: 'KeyError', evalue: "'p'", match: 'exact', cell: 1 },
  execution: { order: 'file' },
  requires: ['pandas'],
});
const verdict = (
  id: string,
  status: InstanceVerification['status'],
  fixed: InstanceVerification['fixed']['outcome'],
): InstanceVerification => ({
  instance: id,
  status,
  verified: status === 'verified',
  flaky: false,
  reproduced: {
    version: 'reproduced',
    outcome: 'crash-reproduced',
    cells: [],
    durationMs: 1,
    runtime,
    observed: { ename: 'KeyError', evalue: "'p'", cell: 1 },
  },
  fixed: { version: 'fixed', outcome: fixed, cells: [], durationMs: 1, runtime },
  contentHash: 'h',
  cached: false,
});

describe('assembleBenchmark and drafts', () => {
  it('leaves out a draft without fixed.ipynb, and a labelled, verified draft too', () => {
    const report: VerificationReport = {
      runtime: 'local',
      summary: { total: 3, verified: 2, notVerified: 0, skipped: 0, flaky: 0, drafts: 1 },
      instances: [
        verdict('ready_1', 'verified', 'fixed-ok'),
        verdict('draft_1', 'draft', 'absent'),
        verdict('draft_2', 'verified', 'fixed-ok'),
      ],
    };
    const b = assembleBenchmark(
      [
        { ...base('ready_1'), labels },
        { ...base('draft_1'), status: 'draft' },
        { ...base('draft_2'), status: 'draft', labels },
      ],
      report,
      { ready_1: labels, draft_2: labels },
      { name: 'JunoBench' },
    );
    expect(b.instances.map((e) => e.id)).toEqual(['ready_1']);
  });
});
