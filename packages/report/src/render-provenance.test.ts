import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Comparison, Instance } from '@junobench/core';
import { writeReportFixture, type ReportFixture } from '../test-helpers/report-fixture.js';
import { planReport } from './plan-report.js';
import { readReportData } from './read-report-data.js';
import { FLAG_LABELS, summariseInstance, type IndexFlag, type ReportData } from './report-data.js';
import { renderIndexPage } from './render-index.js';
import { renderInstancePage } from './render-instance.js';
import { planDraftFix, type Notebook } from '@junobench/notebook';
import { renderStatsPage } from './render-stats.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

let tmp: string;
let fx: ReportFixture;
let data: ReportData;

const provenance = {
  toolchain: { version: '0.1.0', commit: '0123456789abcdef0123', dirty: true },
  builtAt: { iso: '2026-01-01T00:00:00.000Z', source: 'SOURCE_DATE_EPOCH' },
};

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'jb-report-provenance-'));
  fx = await writeReportFixture(tmp);
  data = await readReportData({
    from: fx.curated,
    raw: fx.raw,
    out: path.join(fx.curated, 'report'),
    provenance,
    deprecated: [{ id: 'torch_1', deprecatedIn: '0.2.0', reason: 'its dataset was withdrawn' }],
    gate: {
      minKappa: 0.9,
      source: 'setting',
      passed: false,
      below: [{ dimension: 'crashType', kappa: 0.812 }],
    },
  });
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('the index says where the report comes from', () => {
  it('names the toolchain and its commit, the dataset version, and the build time', () => {
    const html = renderIndexPage(data);
    expect(html).toContain('<h2 id="provenance">Provenance</h2>');
    expect(html).toContain('junobench 0.1.0, commit 0123456789ab (with uncommitted changes)');
    expect(html).toContain('JunoBench, not released: a build of curated/');
    expect(html).toContain('2026-01-01 00:00 UTC (SOURCE_DATE_EPOCH)');
    const released = renderIndexPage({ ...data, provenance: { ...provenance, datasetVersion: '0.2.0' } });
    expect(released).toContain('<dd>JunoBench 0.2.0</dd>');
  });

  it('lists the deprecated instances with reason and version, and flags their rows', () => {
    const html = renderIndexPage(data);
    expect(html).toContain('<h2 id="deprecated">Deprecated instances (1)</h2>');
    expect(html).toContain('<tr><td>torch_1</td><td>0.2.0</td><td>its dataset was withdrawn</td></tr>');
    expect(summariseInstance(data.instances.find((i) => i.id === 'torch_1')!).flags).toContain('deprecated');
  });

  it('shows a failing gate, and that resolving does not raise kappa, on the index and the statistics page', () => {
    for (const html of [renderIndexPage(data), renderStatsPage(data)]) {
      expect(html).toContain('class="gate gate-failed"');
      expect(html).toContain('κ ≥ 0.9 in every dimension (minKappa in raw/release.json): <b>FAILED</b>');
      expect(html).toContain('crash type (κ = 0.812)');
      expect(html).toMatch(
        /resolving a disagreement \(adjudicated\.jsonl\) decides the final label and does not raise it/,
      );
    }
    expect(renderIndexPage({ ...data, gate: { ...data.gate!, passed: true, below: [] } })).toContain(
      'class="gate gate-passed"',
    );
  });

  it('has a legend that names every flag the table can show, with the same words', () => {
    const html = renderIndexPage(data);
    const legend = /<p class="muted" id="legend">([\s\S]*?)<\/p>/.exec(html)![1]!;
    for (const label of Object.values(FLAG_LABELS)) expect(legend).toContain(`<b>${label}</b> — `);
    const shown = new Set([...html.matchAll(/<span class="badge badge-([a-z-]+)">([^<]+)<\/span>/g)].map((m) => m[1]));
    for (const flag of Object.keys(FLAG_LABELS) as IndexFlag[])
      if (shown.has(flag)) expect(legend).toContain(`<b>${FLAG_LABELS[flag]}</b>`);
  });
});

describe('drafts and synthetic data', () => {
  const base = data0();
  function data0(): Instance {
    return {
      id: 'pandas_9',
      source: { platform: 'local', datasets: [] },
      crash: { ename: 'KeyError', evalue: "'x'", match: 'exact', cell: 0 },
      execution: { order: 'file' },
      requires: [],
    };
  }

  it('calls a sample of generated data synthetic, not subsampled', () => {
    const instance: Instance = {
      ...base,
      data: {
        subsample: {
          seed: 3,
          source: { kind: 'generator', generator: 'retail-sales', seed: 3 },
          steps: [{ method: 'table', path: 'sales.csv', parameters: { rows: 10 } }],
        },
      },
    } as Instance;
    const row = summariseInstance({
      id: 'pandas_9',
      inBenchmark: true,
      instance,
      disagreements: [],
      notebooks: {},
      files: [],
      problems: [],
    });
    expect(row.flags).toContain('synthetic-data');
  });

  it("calls a draft's draft fix a draft, not its fix, on its page", () => {
    const reproduced: Notebook = {
      nbformat: 4,
      nbformat_minor: 4,
      metadata: {},
      cells: [{ cell_type: 'code', source: "df['x']", execution_count: null, metadata: {}, outputs: [] }],
    };
    const page = renderInstancePage(
      {
        id: 'pandas_9',
        inBenchmark: false,
        instance: { ...base, status: 'draft' as const },
        disagreements: [],
        notebooks: { reproduced: { notebook: reproduced }, fixed: { notebook: planDraftFix(reproduced) } },
        files: [],
        problems: [],
      },
      'JunoBench',
    );
    expect(page).toContain('its fixed.ipynb is still the draft fix <code>junobench add</code> wrote');
    expect(page).not.toContain('fixed.ipynb (runs)');
  });

  it('counts drafts apart from the benchmark in the index summary', () => {
    const draft = {
      id: 'pandas_9',
      inBenchmark: false,
      instance: { ...base, status: 'draft' as const },
      disagreements: [],
      notebooks: {},
      files: [],
      problems: [],
    };
    const html = renderIndexPage({ ...data, instances: [...data.instances, draft] });
    const inBenchmark = data.instances.filter((i) => i.inBenchmark).length;
    expect(html).toContain(`${inBenchmark} instances in the benchmark · 1 draft apart (not in the benchmark)`);
  });
});

describe('the leaderboard page', () => {
  const comparison: Comparison = {
    benchmark: { source: 'raw', instances: 2, ids: ['a_1', 'b_1'], treeSha256: 'f'.repeat(64) },
    tools: [
      { name: 'heuristic', predictionsSha256: 'a'.repeat(64), context: 'static' },
      { name: 'oracle', predictionsSha256: 'b'.repeat(64), context: 'static' },
    ],
    settings: { resamples: 100, confidence: 0.95, seed: 's', cluster: 'instance' },
    tables: [
      {
        kind: 'detect',
        metric: 'crash',
        library: null,
        tasks: 4,
        instances: 2,
        scores: [
          { tool: 'heuristic', value: 0.5, ci: [0.25, 0.75] },
          { tool: 'oracle', value: 1, ci: [1, 1] },
        ],
        pairs: [{ a: 'heuristic', b: 'oracle', difference: -0.5, ci: [-0.75, -0.25], onlyA: 0, onlyB: 2, pValue: 0.5 }],
      },
    ],
  } as Comparison;

  it('ranks the tools per task kind with intervals and the leader’s paired lead, linked from the index', () => {
    const withBoard: ReportData = {
      ...data,
      leaderboard: {
        groups: [{ benchmark: 'raw tree (2 instances)', comparison }],
        scorecards: [
          {
            tool: 'oracle',
            file: 'oracle/scorecard.json',
            predictionsSha256: 'b'.repeat(64),
            junobench: '0.1.0',
            context: 'static',
            benchmark: 'raw',
          },
        ],
      },
    };
    const page = planReport(withBoard).files.find((f) => f.path === 'leaderboard.html')!.content;
    const rows = [
      ...page.matchAll(
        /<tr><td class="num">(\d)<\/td><th scope="row">([a-z]+)<\/th><td class="num"><b>([\d.]+%)<\/b>/g,
      ),
    ].map((m) => `${m[1]} ${m[2]} ${m[3]}`);
    expect(rows).toEqual(['1 oracle 100.0%', '2 heuristic 50.0%']);
    expect(page).toContain('<td class="num">50.0 [25.0, 75.0]</td><td class="num">0.500</td>');
    expect(renderIndexPage(withBoard)).toContain('<a href="leaderboard.html">Leaderboard of tools</a>');
    expect(planReport(data).files.some((f) => f.path === 'leaderboard.html')).toBe(false);
  });
});
