import type { TriageEntry, TriageReport } from '@junobench/core';
import { escapeHtml } from './escape-html.js';
import { renderBadge, renderPage } from './render-page.js';

/** The causes in the order the page lists them (the vocabulary of README, "Reproducing real crashes"). */
const CAUSES = [
  'needs-network',
  'needs-data',
  'needs-package',
  'needs-gpu',
  'order-dependent',
  'different-crash',
  'no-crash',
  'timeout',
] as const;

/**
 * The triage page: for each batch `junobench add` ran (notebooks, a folder,
 * `--pool` records), the funnel records → notebooks → drafts → reproduced,
 * the drafts that did not reproduce by cause, and one row per item.
 */
export function renderTriagePage(reports: readonly TriageReport[], benchmark: string): string {
  const body: string[] = ['<h1>Triage of added crashes</h1>'];
  body.push(
    `<p class="lead">What <code>junobench add</code> did with ${reports.length} batch${reports.length === 1 ? '' : 'es'}: how many records gave a notebook, a draft and a reproduced crash, and why the others did not.</p>`,
  );
  reports.forEach((r, i) => body.push(renderBatch(r, i)));
  return renderPage({ title: `Triage — ${benchmark}`, root: '', section: 'triage', body: body.join('\n'), benchmark });
}

function renderBatch(r: TriageReport, i: number): string {
  const f = r.funnel;
  const id = `batch-${i + 1}`;
  const stages: [string, number][] = [
    ['records', f.records],
    ['notebooks', f.notebooks],
    ['drafts', f.drafts],
    ['reproduced', f.reproduced],
  ];
  const max = Math.max(1, f.records);
  const funnel = stages
    .map(
      ([name, n]) =>
        `<tr><th scope="row">${name}</th><td class="num">${n}</td><td aria-hidden="true">${'█'.repeat(Math.max(0, Math.round((n / max) * 30)))}</td></tr>`,
    )
    .join('');
  const causes = CAUSES.filter((c) => (f.byCause[c] ?? 0) > 0)
    .map((c) => `<tr><td>${renderBadge(c, 'cause')}</td><td class="num">${f.byCause[c]}</td></tr>`)
    .join('');
  const rows = r.entries.map(renderEntry).join('');
  return [
    `<section aria-labelledby="${id}"><h2 id="${id}">${escapeHtml(r.inputs.join(', ') || `batch ${i + 1}`)}</h2>`,
    `<table class="funnel"><caption>Funnel</caption><tbody>${funnel}</tbody></table>`,
    f.unavailable + f.refused + f.failed > 0
      ? `<p>Unavailable ${f.unavailable} (the notebook could not be had), refused ${f.refused}, failed ${f.failed}.</p>`
      : '',
    causes
      ? `<table><caption>Drafts not reproduced, by cause</caption><thead><tr><th scope="col">cause</th><th scope="col" class="num">drafts</th></tr></thead><tbody>${causes}</tbody></table>`
      : '',
    `<table><caption>Items</caption><thead><tr><th scope="col">item</th><th scope="col">status</th><th scope="col">draft</th><th scope="col">cause</th><th scope="col">detail</th></tr></thead><tbody>${rows}</tbody></table>`,
    '</section>',
  ].join('\n');
}

function renderEntry(e: TriageEntry): string {
  const status =
    e.status === 'drafted'
      ? e.reproduced === true
        ? 'reproduced'
        : e.reproduced === false
          ? 'not reproduced'
          : 'drafted'
      : e.status;
  const detail = e.detail ?? e.reason ?? '';
  return `<tr><td>${escapeHtml(e.label)}</td><td>${renderBadge(status, status.replace(/\s+/g, '-'))}</td><td>${escapeHtml(e.id ?? '')}${e.synthetic ? ' (synthetic data)' : ''}</td><td>${e.cause ? escapeHtml(e.cause) : ''}</td><td>${escapeHtml(detail)}</td></tr>`;
}
