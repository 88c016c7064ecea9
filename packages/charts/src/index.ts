// @junobench/charts: Vega-Lite specifications rendered to SVG, headless and byte-reproducible (the statistics'
// charts, the tool comparisons').

export { renderChartSvg, normalizeSvgIds, CHART_FONT } from './render-chart-svg.js';
export type { TopLevelSpec } from 'vega-lite';
