import { describe, expect, it } from 'vitest';
import { computeStats } from './compute-stats.js';
import { displayLabel, formatShare, formatStatsMarkdown } from './format-stats.js';

describe('formatShare', () => {
  it.each([
    [45 / 111, '40.5%'],
    [1, '100.0%'],
    [0, '0.0%'],
    [1 / 111, '0.9%'],
    [0.0005, '0.1%'],
  ])('%d → %s', (share, text) => expect(formatShare(share)).toBe(text));
});

describe('displayLabel', () => {
  it.each([
    ['library', 'None', 'None (no library)'],
    ['library', 'pandas', 'pandas'],
    ['rootCause', 'NB specific', 'NB specific'],
  ] as const)('%s %s → %s', (dimension, value, text) => expect(displayLabel(dimension, value)).toBe(text));
});

describe('formatStatsMarkdown', () => {
  const stats = computeStats([
    { id: 'a', library: 'pandas', crashType: 'key error', rootCause: 'API misuse', pipelineStage: 'data preparation' },
    {
      id: 'b',
      library: 'pandas',
      crashType: 'value error',
      rootCause: 'data confusion',
      pipelineStage: 'data preparation',
    },
    { id: 'c', library: 'None', crashType: 'variable not found', rootCause: 'NB specific', pipelineStage: 'training' },
  ]);
  const md = formatStatsMarkdown(stats, 'JunoBench statistics');

  it('has a count table per dimension with totals', () => {
    expect(md.startsWith('# JunoBench statistics\n\n3 instances.\n')).toBe(true);
    expect(md).toContain(
      '## Library cause\n\n| library cause | count | share |\n| --- | --: | --: |\n| pandas | 2 | 66.7% |\n| None (no library) | 1 | 33.3% |\n| **total** | **3** | **100.0%** |',
    );
    expect(md).toContain('## Pipeline stage');
  });

  it('has the cross-tables, with empty cells shown as a dot', () => {
    expect(md).toContain('## Library cause × root cause');
    expect(md).toContain('| library cause \\ root cause | API misuse | data confusion | NB specific | total |');
    expect(md).toContain('| pandas | 1 | 1 | · | 2 |');
    expect(md).toContain('| **total** | **1** | **1** | **1** | **3** |');
    expect(md).toContain('## Pipeline stage × crash type');
  });
});
