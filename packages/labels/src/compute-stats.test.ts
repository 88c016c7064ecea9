import { describe, expect, it } from 'vitest';
import { checkSchema, JunoError } from '@junobench/core';
import { computeStats, type StatsRow } from './compute-stats.js';

function row(id: string, library: string, crashType: string, rootCause: string, pipelineStage: string): StatsRow {
  return { id, library, crashType, rootCause, pipelineStage };
}

const rows: StatsRow[] = [
  row('pandas_1', 'pandas', 'key error', 'API misuse', 'data preparation'),
  row('pandas_2', 'pandas', 'key error', 'data confusion', 'data preparation'),
  row('numpy_1', 'numpy', 'unsupported broadcast', 'API misuse', 'training'),
  row('torch_1', 'torch', 'tensor shape mismatch', 'implementation error', 'training'),
  row('NBspecific_1', 'None', 'variable not found', 'NB specific', 'training'),
];

describe('computeStats', () => {
  const stats = computeStats(rows);

  it('matches schemas/stats.schema.json', () => {
    expect(checkSchema('stats', stats)).toEqual([]);
  });

  it.each([
    {
      dimension: 'library',
      expected: [
        ['pandas', 2],
        ['torch', 1],
        ['numpy', 1],
        ['None', 1],
      ],
    },
    {
      dimension: 'crashType',
      expected: [
        ['key error', 2],
        ['tensor shape mismatch', 1],
        ['variable not found', 1],
        ['unsupported broadcast', 1],
      ],
    },
    {
      dimension: 'rootCause',
      expected: [
        ['API misuse', 2],
        ['data confusion', 1],
        ['NB specific', 1],
        ['implementation error', 1],
      ],
    },
    {
      dimension: 'pipelineStage',
      expected: [
        ['training', 3],
        ['data preparation', 2],
      ],
    },
  ] as const)('counts $dimension, most frequent first, ties in vocabulary order', ({ dimension, expected }) => {
    expect(stats.counts[dimension].map((c) => [c.value, c.count])).toEqual(expected);
    for (const c of stats.counts[dimension]) expect(c.share).toBe(c.count / 5);
  });

  it('builds library × root cause and pipeline stage × crash type', () => {
    const [lib, stage] = stats.crossTables;
    expect(lib).toMatchObject({
      rows: 'library',
      columns: 'rootCause',
      rowValues: ['pandas', 'torch', 'numpy', 'None'],
      columnValues: ['API misuse', 'data confusion', 'NB specific', 'implementation error'],
    });
    expect(lib!.counts).toEqual([
      [1, 1, 0, 0],
      [0, 0, 0, 1],
      [1, 0, 0, 0],
      [0, 0, 1, 0],
    ]);
    expect(lib!.rowTotals).toEqual([2, 1, 1, 1]);
    expect(lib!.columnTotals).toEqual([2, 1, 1, 1]);
    expect(stage!.counts).toEqual([
      [0, 1, 1, 1],
      [2, 0, 0, 0],
    ]);
  });

  it('does not depend on row order', () => {
    expect(computeStats([...rows].reverse())).toEqual(stats);
  });

  it('counts values outside the vocabulary after the known ones', () => {
    const s = computeStats([
      ...rows,
      row('x', 'pandas', 'custom', 'API misuse', 'training'),
      row('y', 'pandas', 'another', 'API misuse', 'training'),
    ]);
    expect(s.counts.crashType.slice(-2).map((c) => c.value)).toEqual(['another', 'custom']);
  });

  it('an empty input gives zero totals', () => {
    expect(computeStats([])).toMatchObject({ total: 0, counts: { library: [] } });
  });

  it('rejects an instance counted twice', () => {
    expect(() => computeStats([...rows, rows[0]!])).toThrow(JunoError);
  });
});
