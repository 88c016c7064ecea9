import { describe, expect, it } from 'vitest';
import { checkSchema, type Scorecard } from '@junobench/core';
import { compareScorecards } from './compare-scorecards.js';
import { bootstrapClusters, mcnemarExact, quantile } from './paired-statistics.js';
import { renderComparisonMarkdown } from './render-comparison.js';

describe('mcnemarExact', () => {
  it.each([
    [0, 0, 1],
    [3, 3, 1],
    [0, 10, 2 / 1024],
    [1, 4, (2 * (1 + 5)) / 32],
    [10, 0, 2 / 1024],
  ])('b=%i c=%i → p=%f', (b, c, p) => {
    expect(mcnemarExact(b, c)).toBeCloseTo(p, 12);
  });

  it('stays finite for many pairs', () => {
    expect(mcnemarExact(400, 600)).toBeGreaterThan(0);
    expect(mcnemarExact(400, 600)).toBeLessThan(1e-9);
  });
});

describe('bootstrapClusters', () => {
  it('resamples clusters: an instance whose two tasks always split 1/1 gives no spread at all', () => {
    // Each instance: one right, one wrong (a tool that always says "crashes" on buggy + fixed pairs).
    const clusters = Array.from({ length: 20 }, () => ({ sums: [1, 2], count: 2 }));
    const b = bootstrapClusters(clusters, { resamples: 500, confidence: 0.95, seed: 's' });
    expect(b.scores).toEqual([
      [0.5, 0.5],
      [1, 1],
    ]);
    expect(b.differences).toEqual([[-0.5, -0.5]]);
  });

  it('is seeded: the same clusters and seed give the same interval, another seed may not', () => {
    const clusters = Array.from({ length: 30 }, (_, i) => ({ sums: [i % 3 === 0 ? 1 : 0], count: 1 }));
    const a = bootstrapClusters(clusters, { resamples: 300, confidence: 0.95, seed: 'x' });
    expect(bootstrapClusters(clusters, { resamples: 300, confidence: 0.95, seed: 'x' })).toEqual(a);
    expect(a.scores[0]![0]).toBeLessThan(1 / 3);
    expect(a.scores[0]![1]).toBeGreaterThan(1 / 3);
  });

  it('quantile interpolates as type 7', () => {
    expect(quantile([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(quantile([1, 2, 3, 4], 0)).toBe(1);
  });
});

function card(name: string, correct: (instance: number, version: 'reproduced' | 'fixed') => boolean): Scorecard {
  const results = Array.from({ length: 6 }, (_, i) =>
    (['reproduced', 'fixed'] as const).map((version) => ({
      task: `detect-${i}-${version}`,
      instance: `inst_${i}`,
      version,
      crashes: version === 'reproduced',
      ...(version === 'reproduced' ? { exception: 'KeyError' } : {}),
      predicted: { crashes: correct(i, version) === (version === 'reproduced'), cell: null, exception: 'KeyError' },
      correct: correct(i, version),
    })),
  ).flat();
  return {
    tasks: { detect: 12, diagnose: 0, repair: 0, instances: 6 },
    predictions: { lines: 12, scored: 12, problems: [] },
    libraries: Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`inst_${i}`, i < 3 ? 'pandas' : 'numpy'])),
    provenance: {
      tool: name,
      junobench: '0.1.0',
      benchmark: { source: 'raw', treeSha256: 'a'.repeat(64), drafts: false, instances: 6, ids: [] },
      tasks: { seed: 'junobench-tasks-1', context: 'static' },
      predictions: { sha256: name.padEnd(64, '0').slice(0, 64) },
    },
    detect: {
      tasks: 12,
      attempts: 1,
      single: {} as never,
      majority: {} as never,
      confusion: {} as never,
      results,
    },
  } as Scorecard;
}

describe('compareScorecards', () => {
  const perfect = card('perfect', () => true);
  const half = card('half', (_i, v) => v === 'reproduced');
  const c = compareScorecards(
    [
      { name: 'perfect', scorecard: perfect },
      { name: 'half', scorecard: half },
    ],
    { resamples: 200 },
  );

  it('has a table per metric, overall and per library, valid against its schema', () => {
    expect(checkSchema('comparison', c)).toEqual([]);
    expect(c.tables.map((t) => `${t.kind}/${t.metric}/${t.library}`)).toEqual([
      'detect/crash/null',
      'detect/crash/numpy',
      'detect/crash/pandas',
      'detect/exception/null',
      'detect/exception/numpy',
      'detect/exception/pandas',
    ]);
  });

  it('pairs the tools: difference, its interval, McNemar on the discordant tasks', () => {
    const t = c.tables[0]!;
    expect(t.scores.map((s) => s.value)).toEqual([1, 0.5]);
    expect(t.pairs[0]).toMatchObject({ a: 'perfect', b: 'half', difference: 0.5, onlyA: 6, onlyB: 0 });
    expect(t.pairs[0]!.ci).toEqual([0.5, 0.5]);
    expect(t.pairs[0]!.pValue).toBeCloseTo(2 / 64, 12);
  });

  it('is reproducible and renders as Markdown', () => {
    const again = compareScorecards(
      [
        { name: 'perfect', scorecard: perfect },
        { name: 'half', scorecard: half },
      ],
      { resamples: 200 },
    );
    expect(again).toEqual(c);
    expect(renderComparisonMarkdown(c)).toContain(
      '| **all** | 12 | 6 | 100.0% [100.0, 100.0] | 50.0% [50.0, 50.0] | +50.0 [50.0, 50.0] | 0.031 |',
    );
  });

  it('refuses scorecards of different benchmarks or seeds', () => {
    const other = structuredClone(half);
    other.provenance!.benchmark.treeSha256 = 'b'.repeat(64);
    expect(() =>
      compareScorecards([
        { name: 'perfect', scorecard: perfect },
        { name: 'other', scorecard: other },
      ]),
    ).toThrow(/different benchmarks/);
    other.provenance!.benchmark = perfect.provenance!.benchmark;
    other.provenance!.tasks.seed = 'mine';
    expect(() =>
      compareScorecards([
        { name: 'perfect', scorecard: perfect },
        { name: 'other', scorecard: other },
      ]),
    ).toThrow(/different tasks/);
  });
});
