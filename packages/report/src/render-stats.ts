import { Buffer } from 'node:buffer';
import type { AgreementReport, BenchmarkStats, CrossTable, LabelDimensionName } from '@junobench/core';
import { escapeHtml, formatRelativeHref } from './escape-html.js';
import { summariseInstance, type ReportData } from './report-data.js';
import { renderBadge, renderPage } from './render-page.js';
import { renderGateLine } from './render-provenance.js';

const DIMENSION_NAMES: Record<LabelDimensionName, string> = {
  library: 'library cause',
  crashType: 'crash type',
  rootCause: 'root cause',
  pipelineStage: 'pipeline stage',
};

/** How many of the weakest categories (one-vs-rest kappa) the agreement section lists. */
const WEAKEST_SHOWN = 8;

/**
 * The statistics page: verification summary, the stats stage's charts (as
 * images: an SVG inside <img> cannot run script) with their tables, the
 * cross-tables, and the annotators' agreement with every disagreement and how
 * it was resolved.
 */
export function renderStatsPage(data: ReportData): string {
  const rows = data.instances.map(summariseInstance);
  const statuses = new Map<string, number>();
  for (const r of rows) statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
  const body: string[] = [
    `<h1>Statistics</h1>`,
    `<p class="lead">${rows.length} instances in this report${data.stats ? `, ${data.stats.total} in the benchmark's statistics` : ''}.${data.statsHref !== undefined ? ` Source files: <a href="${escapeHtml(formatRelativeHref(data.statsHref, 'stats.md'))}">stats.md</a>, <a href="${escapeHtml(formatRelativeHref(data.statsHref, 'stats.json'))}">stats.json</a>.` : ''}</p>`,
    '<section aria-labelledby="verification"><h2 id="verification">Verification</h2>',
    data.verification ? `<p>Runtime: ${escapeHtml(data.verification.runtime)}.</p>` : '',
    `<table><thead><tr><th scope="col">status</th><th scope="col" class="num">instances</th></tr></thead><tbody>${[
      ...statuses,
    ]
      .map(([s, n]) => `<tr><td>${renderBadge(s, s)}</td><td class="num">${n}</td></tr>`)
      .join('')}</tbody></table></section>`,
  ];
  if (data.charts.length > 0) {
    body.push('<section aria-labelledby="charts"><h2 id="charts">Charts</h2><div class="charts">');
    for (const c of data.charts) {
      const uri = `data:image/svg+xml;base64,${Buffer.from(c.svg, 'utf8').toString('base64')}`;
      // The chart draws its own title; the alternative text names it and points at the tables.
      body.push(
        `<figure><img alt="${escapeHtml(c.title)} (the same counts are in the tables below)" src="${uri}"></figure>`,
      );
    }
    body.push('</div></section>');
  }
  if (data.stats) body.push(renderCounts(data.stats));
  if (data.agreement) body.push(renderAgreement(data.agreement, data));
  return renderPage({
    title: `Statistics · ${data.name}`,
    root: '',
    section: 'stats',
    body: body.join('\n'),
    benchmark: data.name,
    ...(data.leaderboard ? { leaderboard: true } : {}),
  });
}

function renderCounts(stats: BenchmarkStats): string {
  const out = ['<section aria-labelledby="counts"><h2 id="counts">Counts by label</h2>'];
  for (const d of ['library', 'crashType', 'rootCause', 'pipelineStage'] as const) {
    const rows = stats.counts[d].map(
      (c) =>
        `<tr><td>${escapeHtml(c.value)}</td><td class="num">${c.count}</td><td class="num">${(c.share * 100).toFixed(1)}%</td></tr>`,
    );
    out.push(
      `<table><caption>${DIMENSION_NAMES[d]}</caption><thead><tr><th scope="col">${DIMENSION_NAMES[d]}</th><th scope="col" class="num">count</th><th scope="col" class="num">share</th></tr></thead><tbody>${rows.join('')}<tr><th scope="row">total</th><td class="num">${stats.total}</td><td class="num">100.0%</td></tr></tbody></table>`,
    );
  }
  for (const t of stats.crossTables) out.push(renderCrossTable(t));
  out.push('</section>');
  return out.join('\n');
}

function renderCrossTable(t: CrossTable): string {
  const head = `<tr><th scope="col">${DIMENSION_NAMES[t.rows]} \\ ${DIMENSION_NAMES[t.columns]}</th>${t.columnValues.map((c) => `<th scope="col" class="num">${escapeHtml(c)}</th>`).join('')}<th scope="col" class="num">total</th></tr>`;
  const rows = t.rowValues.map(
    (rv, i) =>
      `<tr><th scope="row">${escapeHtml(rv)}</th>${(t.counts[i] ?? []).map((n) => `<td class="num">${n === 0 ? '<span class="muted">·</span>' : n}</td>`).join('')}<td class="num">${t.rowTotals[i] ?? ''}</td></tr>`,
  );
  const totals = `<tr><th scope="row">total</th>${t.columnTotals.map((n) => `<td class="num">${n}</td>`).join('')}<td class="num">${t.columnTotals.reduce((a, b) => a + b, 0)}</td></tr>`;
  return `<table><caption>${DIMENSION_NAMES[t.rows]} × ${DIMENSION_NAMES[t.columns]}</caption><thead>${head}</thead><tbody>${rows.join('')}${totals}</tbody></table>`;
}

function fmt(x: number | null | undefined, digits = 3): string {
  return x === null || x === undefined ? 'n/a' : x.toFixed(digits);
}

function interval(ci: [number, number] | null | undefined): string {
  return ci ? `[${fmt(ci[0])}, ${fmt(ci[1])}]` : 'n/a';
}

/** The figures below count withdrawn instances: say so, and what of theirs the page leaves out. */
function renderWithdrawnNote(w: NonNullable<ReportData['agreementWithdrawn']>): string {
  const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  const left = [
    w.disagreements > 0 ? plural(w.disagreements, 'disagreement', 'disagreements') : '',
    w.singlyAnnotated > 0 ? plural(w.singlyAnnotated, 'single annotation', 'single annotations') : '',
  ].filter(Boolean);
  return (
    `<p><b>Carried from the annotation study, not recomputed:</b> these figures were computed with the annotations of every instance studied, ` +
    `and not again after ${plural(w.instances, 'instance was', 'instances were')} withdrawn from the benchmark. ` +
    `This page lists only the instances in this report: ${left.length > 0 ? `${left.join(' and ')} of the withdrawn ${w.instances === 1 ? 'instance is' : 'instances are'} left out` : `nothing of the withdrawn ${w.instances === 1 ? 'instance' : 'instances'} is listed`}.</p>`
  );
}

function renderAgreement(a: AgreementReport, data: ReportData): string {
  const out = ['<section aria-labelledby="agreement"><h2 id="agreement">Annotator agreement</h2>'];
  out.push(
    `<p>Annotators: ${escapeHtml(a.annotators.join(', '))}. ${a.instances} instances labelled. Cohen's κ per pair; bootstrap ${a.settings.bootstrap} resamples (seed ${escapeHtml(a.settings.seed)}), ${Math.round(a.settings.confidence * 100)}% intervals; Krippendorff's α (nominal) over all annotators.</p>`,
  );
  if (data.gate) out.push(renderGateLine(data.gate));
  if (data.agreementWithdrawn) out.push(renderWithdrawnNote(data.agreementWithdrawn));
  const rows = a.dimensions.flatMap((d) =>
    d.pairs.map(
      (p) =>
        `<tr><th scope="row">${DIMENSION_NAMES[d.dimension]}</th><td>${escapeHtml(p.annotators.join(' / '))}</td><td class="num">${p.n}</td><td class="num">${fmt(p.observed)}</td><td class="num">${fmt(p.chance)}</td><td class="num"><b>${fmt(p.kappa)}</b></td><td class="num">${interval(p.bootstrap?.ci)}</td><td class="num">${interval(p.ciAsymptotic)}</td><td class="num">${fmt(d.alpha.alpha)}</td></tr>`,
    ),
  );
  out.push(
    `<table><caption>Agreement per dimension</caption><thead><tr><th scope="col">dimension</th><th scope="col">pair</th><th scope="col" class="num">n</th><th scope="col" class="num">observed</th><th scope="col" class="num">chance</th><th scope="col" class="num">κ</th><th scope="col" class="num">CI (bootstrap)</th><th scope="col" class="num">CI (asymptotic)</th><th scope="col" class="num">α</th></tr></thead><tbody>${rows.join('')}</tbody></table>`,
  );
  const weakest = a.dimensions
    .flatMap((d) => d.pairs.flatMap((p) => p.perCategory.map((c) => ({ d: d.dimension, c }))))
    .filter((x) => x.c.kappa !== null && x.c.kappa < 1)
    .sort((x, y) => x.c.kappa! - y.c.kappa!)
    .slice(0, WEAKEST_SHOWN);
  if (weakest.length > 0) {
    out.push(
      `<table><caption>Weakest categories (one-vs-rest κ)</caption><thead><tr><th scope="col">dimension</th><th scope="col">category</th><th scope="col" class="num">κ</th><th scope="col" class="num">positive agreement</th></tr></thead><tbody>${weakest
        .map(
          (x) =>
            `<tr><td>${DIMENSION_NAMES[x.d]}</td><td>${escapeHtml(x.c.category)}</td><td class="num">${fmt(x.c.kappa)}</td><td class="num">${fmt(x.c.positiveAgreement)}</td></tr>`,
        )
        .join('')}</tbody></table>`,
    );
  }
  const byId = new Map(data.instances.map((i) => [i.id, i]));
  out.push(`<h3>Disagreements (${a.disagreements.length}) and how they were resolved</h3>`);
  if (a.disagreements.length === 0) out.push('<p>None: the annotators agreed on every label.</p>');
  else {
    const drows = a.disagreements.map((d) => {
      const inst = byId.get(d.instance);
      const res = inst?.disagreements.find((x) => x.dimension === d.dimension);
      const said = Object.keys(d.labels)
        .sort()
        .map((k) => `${escapeHtml(k)}: ${escapeHtml(d.labels[k] ?? '')}`)
        .join('<br>');
      const link = inst
        ? `<a href="${escapeHtml(formatRelativeHref('instances', `${d.instance}.html`))}">${escapeHtml(d.instance)}</a>`
        : escapeHtml(d.instance);
      const resolved =
        res?.final !== undefined
          ? `<b>${escapeHtml(res.final)}</b>${res.source ? ` <span class="muted">(${escapeHtml(res.source)})</span>` : ''}${res.note ? `<br><span class="muted">${escapeHtml(res.note)}</span>` : ''}`
          : '<span class="muted">unresolved</span>';
      return `<tr><td>${link}</td><td>${DIMENSION_NAMES[d.dimension]}</td><td>${said}</td><td>${resolved}</td></tr>`;
    });
    out.push(
      `<table><thead><tr><th scope="col">instance</th><th scope="col">dimension</th><th scope="col">annotators said</th><th scope="col">resolved as</th></tr></thead><tbody>${drows.join('')}</tbody></table>`,
    );
  }
  if (a.singlyAnnotated.length > 0) {
    out.push(
      `<p>Labelled by one annotator only (not compared): ${a.singlyAnnotated.map((s) => `${escapeHtml(s.instance)} (${escapeHtml(s.annotator)})`).join(', ')}.</p>`,
    );
  }
  out.push('</section>');
  return out.join('\n');
}
