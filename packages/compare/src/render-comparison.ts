import { CHART_FONT, type TopLevelSpec } from '@junobench/charts';
import type { BenchmarkIdentity, Comparison, ComparisonTable } from '@junobench/core';

const METRIC_TITLES: Record<string, string> = {
  crash: 'crash',
  exception: 'exception',
  library: 'library',
  crashType: 'crash type',
  rootCause: 'root cause',
  pipelineStage: 'pipeline stage',
  resolved: 'resolved (pass@1)',
};

const pct = (v: number) => `${(v * 100).toFixed(1)}%`;
const interval = ([lo, hi]: readonly [number, number]) => `[${(lo * 100).toFixed(1)}, ${(hi * 100).toFixed(1)}]`;
const signed = (v: number) => `${v >= 0 ? '+' : '−'}${Math.abs(v * 100).toFixed(1)}`;

/** A p-value as papers print it: three decimals, `< 0.001` below. */
export function formatPValue(p: number): string {
  return p < 0.001 ? '< 0.001' : p.toFixed(3);
}

/** The benchmark a comparison (or scorecard) is on, in one line. */
export function describeBenchmark(b: BenchmarkIdentity): string {
  const n = `${b.instances} instance${b.instances === 1 ? '' : 's'}`;
  if (b.source === 'release')
    return `release ${b.version} (${b.archiveSha256 ? `archive sha256 ${b.archiveSha256}` : `manifest sha256 ${b.manifestSha256}`}, ${n})`;
  return `raw tree (tree sha256 ${b.treeSha256}, ${n}${b.drafts ? ', drafts included' : ''})`;
}

const metricTitle = (t: Pick<ComparisonTable, 'kind' | 'metric'>) =>
  `${t.kind} — ${METRIC_TITLES[t.metric] ?? t.metric}`;

/**
 * The comparison as Markdown: per metric, a table with a row for all instances and one per library, each tool's
 * score with its interval, and per pair the difference with its interval and McNemar's p.
 */
export function renderComparisonMarkdown(c: Comparison): string {
  const tools = c.tools.map((t) => t.name);
  const pairs = c.tables[0]?.pairs.map((p) => `${p.a} − ${p.b}`) ?? [];
  const out: string[] = [
    `# ${tools.join(' vs ')}`,
    '',
    `Benchmark: ${describeBenchmark(c.benchmark)}.`,
    '',
    ...c.tools.map(
      (t) => `- **${t.name}**: predictions sha256 ${t.predictionsSha256}${t.context ? `, ${t.context} context` : ''}`,
    ),
    '',
    `Scores with ${Math.round(c.settings.confidence * 100)}% percentile bootstrap intervals over instances (${c.settings.resamples} resamples, seed ${c.settings.seed}): an instance's tasks — both detect versions, every repair attempt — are drawn together. Differences are paired (the same draws for both tools); p is McNemar's exact test on the per-task outcomes (repair: resolved in most attempts).`,
  ];
  const groups = new Map<string, ComparisonTable[]>();
  for (const t of c.tables) groups.set(metricTitle(t), [...(groups.get(metricTitle(t)) ?? []), t]);
  for (const [title, tables] of groups) {
    out.push('', `## ${title}`, '');
    out.push(
      `| library | tasks | instances | ${tools.join(' | ')} | ${pairs.map((p) => `${p} | p`).join(' | ')} |`,
      `|---|---|---|${tools.map(() => '---|').join('')}${pairs.map(() => '---|---|').join('')}`,
    );
    for (const t of tables) {
      const scores = t.scores.map((s) => `${pct(s.value)} ${interval(s.ci)}`);
      const diffs = t.pairs.map((p) => `${signed(p.difference)} ${interval(p.ci)} | ${formatPValue(p.pValue)}`);
      out.push(
        `| ${t.library ?? '**all**'} | ${t.tasks} | ${t.instances} | ${scores.join(' | ')} | ${diffs.join(' | ')} |`,
      );
    }
  }
  return `${out.join('\n')}\n`;
}

/** The overall tables as terminal lines: `detect crash  oracle 100.0% [100.0, 100.0] · heuristic 50.0% […] · Δ +50.0 […] p < 0.001`. */
export function formatComparisonSummary(c: Comparison): string {
  const lines: string[] = [];
  for (const t of c.tables.filter((x) => x.library === null)) {
    const scores = t.scores.map((s) => `${s.tool} ${pct(s.value)} ${interval(s.ci)}`).join(' · ');
    const pairs = t.pairs
      .map((p) => `${p.a} − ${p.b} ${signed(p.difference)} ${interval(p.ci)}, p ${formatPValue(p.pValue)}`)
      .join(' · ');
    lines.push(`${metricTitle(t).padEnd(26)} ${t.tasks} tasks: ${scores}${pairs ? ` | ${pairs}` : ''}`);
  }
  return lines.join('\n');
}

/** A grouped bar chart of the overall scores with their intervals (Vega-Lite; rendered by @junobench/charts). */
export function planComparisonChart(c: Comparison): TopLevelSpec {
  const overall = c.tables.filter((t) => t.library === null);
  const order = overall.map((t) => `${t.kind}: ${METRIC_TITLES[t.metric] ?? t.metric}`);
  const values = overall.flatMap((t) =>
    t.scores.map((s) => ({
      metric: `${t.kind}: ${METRIC_TITLES[t.metric] ?? t.metric}`,
      tool: s.tool,
      value: s.value,
      lo: s.ci[0],
      hi: s.ci[1],
    })),
  );
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: c.tools.map((t) => t.name).join(' vs '),
      subtitle: `${Math.round(c.settings.confidence * 100)}% bootstrap intervals over instances`,
    },
    width: { step: 28 * Math.max(2, c.tools.length) },
    height: 260,
    data: { values },
    encoding: {
      x: { field: 'metric', type: 'nominal', sort: order, title: null, axis: { labelAngle: -35 } },
      xOffset: { field: 'tool', type: 'nominal', sort: c.tools.map((t) => t.name) },
      color: { field: 'tool', type: 'nominal', sort: c.tools.map((t) => t.name), title: 'tool' },
    },
    layer: [
      {
        mark: { type: 'bar' },
        encoding: {
          y: { field: 'value', type: 'quantitative', title: 'score', scale: { domain: [0, 1] }, axis: { format: '%' } },
        },
      },
      {
        mark: { type: 'rule', strokeWidth: 1.5 },
        // Black, not the tool's colour: an interval drawn in its bar's colour is invisible over the bar.
        encoding: { y: { field: 'lo', type: 'quantitative' }, y2: { field: 'hi' }, color: { value: '#222' } },
      },
    ],
    config: {
      font: CHART_FONT,
      background: 'white',
      padding: 12,
      view: { stroke: null },
      title: { fontSize: 15, anchor: 'start', subtitleFontSize: 12, subtitleColor: '#555' },
    },
  } as TopLevelSpec;
}
