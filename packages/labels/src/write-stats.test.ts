import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSchema, sha256 } from '@junobench/core';
import { computeStats, type StatsRow } from './compute-stats.js';
import { planCharts } from './plan-charts.js';
import { writeStats } from './write-stats.js';

const rows: StatsRow[] = [
  {
    id: 'pandas_1',
    library: 'pandas',
    crashType: 'key error',
    rootCause: 'API misuse',
    pipelineStage: 'data preparation',
  },
  {
    id: 'pandas_2',
    library: 'pandas',
    crashType: 'value error',
    rootCause: 'data confusion',
    pipelineStage: 'data preparation',
  },
  {
    id: 'torch_1',
    library: 'torch',
    crashType: 'tensor shape mismatch',
    rootCause: 'implementation error',
    pipelineStage: 'training',
  },
  {
    id: 'tensorflow_1',
    library: 'tensorflow/keras',
    crashType: 'invalid argument',
    rootCause: 'API misuse',
    pipelineStage: 'model construction',
  },
  {
    id: 'NBspecific_1',
    library: 'None',
    crashType: 'variable not found',
    rootCause: 'NB specific',
    pipelineStage: 'evaluation/prediction',
  },
];
const stats = computeStats(rows);

describe('planCharts', () => {
  it('plans a bar chart per dimension and a heat map per cross-table', () => {
    expect(planCharts(stats).map((c) => c.name)).toEqual([
      'library',
      'crash-type',
      'root-cause',
      'pipeline-stage',
      'library-by-root-cause',
      'pipeline-stage-by-crash-type',
    ]);
  });
});

describe('writeStats (renders real SVG and PNG)', () => {
  let dir1: string;
  let dir2: string;
  let written: string[];
  beforeAll(async () => {
    dir1 = await mkdtemp(path.join(tmpdir(), 'labels-stats-'));
    dir2 = await mkdtemp(path.join(tmpdir(), 'labels-stats-'));
    written = await writeStats(dir1, stats);
    await writeStats(dir2, stats);
  }, 60_000);
  afterAll(async () => {
    await rm(dir1, { recursive: true, force: true });
    await rm(dir2, { recursive: true, force: true });
  });

  it('writes JSON, Markdown, and SVG + PNG + spec per chart', () => {
    expect(written).toHaveLength(2 + 6 * 3);
    expect(written).toContain('charts/library-by-root-cause.png');
  });

  it('stats.json is the stats, valid against its schema', async () => {
    const json = JSON.parse(await readFile(path.join(dir1, 'stats.json'), 'utf8'));
    expect(json).toEqual(stats);
    expect(checkSchema('stats', json)).toEqual([]);
  });

  it('SVGs are SVG, name the font, and carry the labels; PNGs are PNG', async () => {
    const svg = await readFile(path.join(dir1, 'charts/root-cause.svg'), 'utf8');
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('DejaVu Sans');
    expect(svg).toContain('API misuse');
    expect(svg).toContain('2 (40.0%)');
    const heat = await readFile(path.join(dir1, 'charts/pipeline-stage-by-crash-type.svg'), 'utf8');
    expect(heat).toContain('tensor shape mismatch');
    const png = await readFile(path.join(dir1, 'charts/root-cause.png'));
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect(png.length).toBeGreaterThan(2000);
  });

  it('is byte-identical for the same input, PNGs included', async () => {
    for (const rel of written) {
      const [x, y] = await Promise.all([readFile(path.join(dir1, rel)), readFile(path.join(dir2, rel))]);
      expect(sha256(x), rel).toBe(sha256(y));
    }
  });

  it('can skip charts, and uses an injected rasterizer', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'labels-stats-'));
    expect(await writeStats(dir, stats, { charts: false })).toEqual(['stats.json', 'stats.md']);
    const calls: string[] = [];
    await writeStats(dir, stats, { rasterize: async (svg) => (calls.push(svg), new Uint8Array([1, 2, 3])) });
    expect(calls).toHaveLength(6);
    expect([...(await readFile(path.join(dir, 'charts/library.png')))]).toEqual([1, 2, 3]);
    await rm(dir, { recursive: true, force: true });
  }, 60_000);
});
