import { compareCodePoints, type ComparisonTable } from '@junobench/core';
import { escapeHtml } from './escape-html.js';
import type { Leaderboard } from './report-data.js';
import { renderPage } from './render-page.js';

const METRIC_TITLES: Record<string, string> = {
  crash: 'crash (will the cell crash?)',
  exception: 'exception (on the crashing tasks)',
  library: 'library cause',
  crashType: 'crash type',
  rootCause: 'root cause',
  pipelineStage: 'pipeline stage',
  resolved: 'resolved (pass@1)',
};

const pct = (v: number) => `${(v * 100).toFixed(1)}%`;
const interval = (ci: readonly [number, number] | null | undefined) =>
  ci ? `[${(ci[0] * 100).toFixed(1)}, ${(ci[1] * 100).toFixed(1)}]` : 'n/a';
const pValue = (p: number | null | undefined) =>
  p === null || p === undefined ? 'n/a' : p < 0.001 ? '< 0.001' : p.toFixed(3);

/**
 * The leaderboard: per benchmark the tools scored on it, ranked per task kind
 * and metric (all instances) with the bootstrap intervals of the comparison,
 * the best one's lead over each other tool with its paired interval and
 * McNemar's p, and which scorecard each row comes from.
 */
export function renderLeaderboardPage(lb: Leaderboard, benchmark: string): string {
  const body: string[] = [
    '<h1>Leaderboard</h1>',
    `<p class="lead">${lb.scorecards.length} scorecard${lb.scorecards.length === 1 ? '' : 's'}, ranked per task kind and metric over every instance. ` +
      'Intervals are 95% bootstrap intervals that resample instances (the tasks of one instance move together); a lead is the paired difference with its interval and McNemar’s exact p. ' +
      'Tools are compared only on the same benchmark and tasks.</p>',
  ];
  for (const g of lb.groups) {
    body.push(`<section><h2>${escapeHtml(g.benchmark)}</h2>`);
    for (const t of g.comparison.tables.filter((x) => x.library === null)) body.push(renderTable(t));
    body.push('</section>');
  }
  body.push(
    `<section aria-labelledby="scorecards"><h2 id="scorecards">Scorecards</h2><table><thead><tr><th scope="col">tool</th><th scope="col">file</th><th scope="col">context</th><th scope="col">predictions sha256</th><th scope="col">junobench</th><th scope="col">benchmark</th></tr></thead><tbody>${lb.scorecards
      .map(
        (s) =>
          `<tr><td>${escapeHtml(s.tool)}</td><td class="mono">${escapeHtml(s.file)}</td><td>${escapeHtml(s.context)}</td><td class="mono">${escapeHtml(s.predictionsSha256.slice(0, 16))}…</td><td>${escapeHtml(s.junobench)}</td><td>${escapeHtml(s.benchmark)}</td></tr>`,
      )
      .join('')}</tbody></table></section>`,
  );
  return renderPage({
    title: `Leaderboard · ${benchmark}`,
    root: '',
    section: 'leaderboard',
    body: body.join('\n'),
    benchmark,
    leaderboard: true,
  });
}

function renderTable(t: ComparisonTable): string {
  const ranked = [...t.scores].sort((a, b) => b.value - a.value || compareCodePoints(a.tool, b.tool));
  const best = ranked[0]!;
  const lead = (tool: string) => {
    if (tool === best.tool) return '<td>—</td><td class="num">—</td>';
    const pair = t.pairs.find((p) => (p.a === best.tool && p.b === tool) || (p.b === best.tool && p.a === tool));
    if (!pair) return '<td>n/a</td><td class="num">n/a</td>';
    const sign = pair.a === best.tool ? 1 : -1;
    const ci = pair.ci ? ([pair.ci[0] * sign, pair.ci[1] * sign].sort((a, b) => a - b) as [number, number]) : null;
    return `<td class="num">${(pair.difference * sign * 100).toFixed(1)} ${interval(ci)}</td><td class="num">${pValue(pair.pValue)}</td>`;
  };
  const rows = ranked.map(
    (s, i) =>
      `<tr><td class="num">${i + 1}</td><th scope="row">${escapeHtml(s.tool)}</th><td class="num"><b>${pct(s.value)}</b></td><td class="num">${interval(s.ci)}</td>${lead(s.tool)}</tr>`,
  );
  return (
    `<table class="leaderboard"><caption>${escapeHtml(t.kind)} — ${escapeHtml(METRIC_TITLES[t.metric] ?? t.metric)} (${t.tasks} tasks, ${t.instances} instances)</caption>` +
    `<thead><tr><th scope="col" class="num">rank</th><th scope="col">tool</th><th scope="col" class="num">score</th><th scope="col" class="num">95% CI</th><th scope="col" class="num">best's lead (points, CI)</th><th scope="col" class="num">p</th></tr></thead><tbody>${rows.join('')}</tbody></table>`
  );
}
