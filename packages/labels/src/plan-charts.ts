import type { TopLevelSpec } from 'vega-lite';
import { CHART_FONT } from '@junobench/charts';
import { DIMENSION_TITLES } from './check-label.js';
import {
  LABEL_DIMENSIONS,
  type BenchmarkStats,
  type CountRow,
  type CrossTable,
  type LabelDimension,
} from '@junobench/core';
import { displayLabel, formatShare } from './format-stats.js';

/** One chart to render: its file name stem and its Vega-Lite specification. */
export interface ChartPlan {
  /** File name without extension, e.g. `root-cause` or `library-by-root-cause`. */
  name: string;
  title: string;
  spec: TopLevelSpec;
}

const CONFIG = {
  font: CHART_FONT,
  background: 'white',
  padding: 12,
  view: { stroke: null },
  title: { fontSize: 15, anchor: 'start', subtitleFontSize: 12, subtitleColor: '#555', offset: 10 },
  axis: { labelFontSize: 12, titleFontSize: 12, titleFontWeight: 'normal', labelColor: '#222', titleColor: '#222' },
  legend: { labelFontSize: 11, titleFontSize: 12, titleFontWeight: 'normal' },
} as const;

const BAR_COLOR = '#4c78a8';

/** Kebab-case file stem of a dimension: `crashType` → `crash-type`. */
export function chartStem(dimension: LabelDimension): string {
  return dimension.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** The charts of the statistics: a bar chart per dimension, a heat map per cross-table. Pure. */
export function planCharts(stats: BenchmarkStats): ChartPlan[] {
  const plans: ChartPlan[] = LABEL_DIMENSIONS.map((d) => planBarChart(d, stats.counts[d], stats.total));
  for (const t of stats.crossTables) plans.push(planHeatMap(t));
  return plans;
}

function planBarChart(dimension: LabelDimension, counts: readonly CountRow[], total: number): ChartPlan {
  const title = `Instances by ${DIMENSION_TITLES[dimension]}`;
  const values = counts.map((c) => displayLabel(dimension, c.value));
  const max = Math.max(1, ...counts.map((c) => c.count));
  const y = {
    field: 'value',
    type: 'nominal',
    sort: values,
    title: null,
    axis: { labelLimit: 260, ticks: false, labelPadding: 6 },
  } as const;
  // Leave room right of the longest bar for its "count (share)" label.
  const x = {
    field: 'count',
    type: 'quantitative',
    title: 'instances',
    scale: { domain: [0, Math.ceil(max * 1.25)] as number[], nice: false },
    axis: { tickMinStep: 1, format: 'd', grid: true, gridColor: '#e6e6e6' },
  } as const;
  const spec: TopLevelSpec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: title, subtitle: `${total} instance${total === 1 ? '' : 's'}` },
    data: {
      values: counts.map((c) => ({
        value: displayLabel(dimension, c.value),
        count: c.count,
        label: `${c.count} (${formatShare(c.share)})`,
      })),
    },
    width: 420,
    height: { step: 24 },
    layer: [
      { mark: { type: 'bar', color: BAR_COLOR, height: { band: 0.75 } }, encoding: { y, x } },
      {
        mark: { type: 'text', align: 'left', baseline: 'middle', dx: 4, fontSize: 11, color: '#222' },
        encoding: { y, x, text: { field: 'label', type: 'nominal' } },
      },
    ],
    config: CONFIG,
  };
  return { name: chartStem(dimension), title, spec };
}

function planHeatMap(t: CrossTable): ChartPlan {
  const rowName = DIMENSION_TITLES[t.rows];
  const colName = DIMENSION_TITLES[t.columns];
  const title = `Instances by ${rowName} and ${colName}`;
  const rowLabels = t.rowValues.map((v) => displayLabel(t.rows, v));
  const columnLabels = t.columnValues.map((v) => displayLabel(t.columns, v));
  const cells = rowLabels.flatMap((r, i) =>
    columnLabels.map((c, j) => ({ row: r, column: c, count: t.counts[i]![j]! })),
  );
  const max = Math.max(1, ...cells.map((c) => c.count));
  const total = t.rowTotals.reduce((s, x) => s + x, 0);
  const spec: TopLevelSpec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: title, subtitle: `${total} instance${total === 1 ? '' : 's'}; empty cells have none` },
    data: { values: cells },
    width: { step: 34 },
    height: { step: 26 },
    encoding: {
      x: {
        field: 'column',
        type: 'nominal',
        sort: columnLabels,
        title: colName,
        axis: { labelAngle: -40, labelLimit: 320, orient: 'top', ticks: false, domain: false },
      },
      y: {
        field: 'row',
        type: 'nominal',
        sort: rowLabels,
        title: rowName,
        axis: { labelLimit: 320, ticks: false, domain: false },
      },
    },
    layer: [
      {
        mark: { type: 'rect', stroke: 'white', strokeWidth: 1.5 },
        encoding: {
          color: {
            field: 'count',
            type: 'quantitative',
            title: 'instances',
            scale: { domain: [0, max], range: ['#f4f7fb', '#08306b'] },
            legend: { format: 'd', tickMinStep: 1, gradientLength: Math.max(60, 26 * t.rowValues.length - 40) },
          },
        },
      },
      {
        mark: { type: 'text', fontSize: 12 },
        transform: [{ filter: 'datum.count > 0' }],
        encoding: {
          text: { field: 'count', type: 'quantitative' },
          color: { condition: { test: `datum.count > ${max / 2}`, value: 'white' }, value: '#111' },
        },
      },
    ],
    config: CONFIG,
  };
  return { name: `${chartStem(t.rows)}-by-${chartStem(t.columns)}`, title, spec };
}
