import { compareCodePoints } from '@junobench/core';
import { escapeHtml, formatRelativeHref } from './escape-html.js';
import {
  FLAG_DESCRIPTIONS,
  FLAG_LABELS,
  summariseInstance,
  type IndexFlag,
  type IndexRow,
  type ReportData,
} from './report-data.js';
import { renderGateLine, renderProvenance } from './render-provenance.js';
import { formatMs, renderBadge, renderPage } from './render-page.js';
import { INDEX_SCRIPT } from './index-script.js';

const STATUS_ORDER: readonly string[] = ['verified', 'flaky', 'not-verified', 'skipped', 'draft', 'not-run'];
const FLAG_ORDER: IndexFlag[] = ['draft', 'flaky', 'synthetic-data', 'skipped-env', 'deprecated', 'excluded'];

type FilterKey = 'library' | 'crashType' | 'rootCause' | 'pipelineStage' | 'status' | 'flags';

/**
 * The index: one row per instance, sortable by every column and filterable by
 * label, status and flag, with counts that follow the filter. The table and
 * the counts are complete without the script (which only adds sorting and
 * filtering), so the page reads the same with scripts off.
 */
export function renderIndexPage(data: ReportData): string {
  const rows = data.instances.map(summariseInstance);
  const title = data.version ? `${data.name} ${data.version}` : data.name;
  const inBenchmark = data.instances.filter((i) => i.inBenchmark).length;
  const distinct = (f: (r: IndexRow) => string | undefined) =>
    [...new Set(rows.map(f).filter((v): v is string => Boolean(v)))].sort(compareCodePoints);
  const statuses = STATUS_ORDER.filter((s) => rows.some((r) => r.status === s));
  const flags = FLAG_ORDER.filter((f) => rows.some((r) => r.flags.includes(f)));

  const select = (key: FilterKey, label: string, values: readonly string[], text: (v: string) => string = (v) => v) =>
    `<label for="f-${key}">${label}<select id="f-${key}" data-key="${key}"><option value="">any</option>${values
      .map((v) => `<option value="${escapeHtml(v)}">${escapeHtml(text(v))}</option>`)
      .join('')}</select></label>`;

  const filters = [
    '<form class="filters" id="filters" hidden>',
    '<label for="f-search">Search<input id="f-search" type="search" placeholder="id, label, exception…" autocomplete="off"></label>',
    select(
      'library',
      'Library',
      distinct((r) => r.labels?.library),
    ),
    select(
      'crashType',
      'Crash type',
      distinct((r) => r.labels?.crashType),
    ),
    select(
      'rootCause',
      'Root cause',
      distinct((r) => r.labels?.rootCause),
    ),
    select(
      'pipelineStage',
      'Pipeline stage',
      distinct((r) => r.labels?.pipelineStage),
    ),
    select('status', 'Verification', statuses),
    select('flags', 'Flag', flags, (f) => FLAG_LABELS[f as IndexFlag]),
    '<button type="reset" id="f-reset">Clear filters</button>',
    '</form>',
  ].join('');

  const countItem = (key: string, label: string, n: number) =>
    `<span class="count-item">${escapeHtml(label)} <b data-count="${escapeHtml(key)}">${n}</b></span>`;
  const counts = [
    `<p class="counts" id="counts" aria-live="polite"><b id="count-shown">${rows.length}</b> of ${rows.length} instances shown`,
    statuses.length > 0
      ? ` · ${statuses.map((s) => countItem(`status:${s}`, s, rows.filter((r) => r.status === s).length)).join(' · ')}`
      : '',
    flags.length > 0
      ? ` · <span>flags:</span> ${flags.map((f) => countItem(`flag:${f}`, FLAG_LABELS[f], rows.filter((r) => r.flags.includes(f)).length)).join(' · ')}`
      : '',
    '</p>',
  ].join('');

  const headers: [string, boolean][] = [
    ['Instance', false],
    ['Library', false],
    ['Crash type', false],
    ['Root cause', false],
    ['Pipeline stage', false],
    ['Verification', false],
    ['Reproduced', true],
    ['Fixed', true],
    ['Flags', false],
  ];
  const thead = `<thead><tr>${headers
    .map(
      ([h, num], i) =>
        `<th scope="col"${i === 0 ? ' aria-sort="ascending"' : ''}${num ? ' class="num"' : ''}><button type="button" data-col="${i}">${h}</button></th>`,
    )
    .join('')}</tr></thead>`;
  const tbody = `<tbody>${rows.map(renderRow).join('\n')}</tbody>`;

  const v = data.verification;
  // Drafts are counted apart from the benchmark: they are not in it, and their "fixed" is a draft fix at most.
  const drafts = data.instances.filter((i) => !i.inBenchmark && summariseInstance(i).flags.includes('draft')).length;
  const others = rows.length - inBenchmark - drafts;
  const summary = [
    `${inBenchmark} instance${inBenchmark === 1 ? '' : 's'} in the benchmark`,
    drafts > 0 ? `${drafts} draft${drafts === 1 ? '' : 's'} apart (not in the benchmark)` : '',
    others > 0 ? `${others} more left out` : '',
    v
      ? `verified in the ${v.runtime} runtime: ${v.summary.verified} verified, ${v.summary.skipped} skipped, ${v.summary.notVerified} not verified, ${v.summary.flaky} flaky${v.summary.drafts ? `; ${v.summary.drafts} draft${v.summary.drafts === 1 ? '' : 's'} checked apart` : ''}`
      : '',
  ].filter(Boolean);
  const legend = FLAG_ORDER.map(
    (f) => `<b>${escapeHtml(FLAG_LABELS[f])}</b> — ${escapeHtml(FLAG_DESCRIPTIONS[f])}`,
  ).join('; ');
  const links = [
    '<a href="stats.html">Statistics and annotator agreement</a>.',
    data.triage && data.triage.length > 0 ? '<a href="triage.html">Triage of added crashes</a>.' : '',
    data.leaderboard ? '<a href="leaderboard.html">Leaderboard of tools</a>.' : '',
  ]
    .filter(Boolean)
    .join(' ');

  const body = [
    `<h1>${escapeHtml(title)}: crashes in ML notebooks</h1>`,
    `<p class="lead">${escapeHtml(summary.join(' · '))}. Each instance has a notebook that crashes as labelled (reproduced) and one that runs (fixed); open an instance to compare them cell by cell. ${links}</p>`,
    data.gate ? renderGateLine(data.gate) : '',
    filters,
    counts,
    `<div class="table-wrap" role="region" aria-labelledby="instances-caption" tabindex="0"><table class="instances" id="instances"><caption id="instances-caption">Instances (select a column header to sort)</caption>${thead}${tbody}</table></div>`,
    `<p class="muted" id="legend">Flags: ${legend}.</p>`,
    renderProvenance(data),
  ].join('\n');
  return renderPage({
    title,
    root: '',
    section: 'index',
    body,
    script: INDEX_SCRIPT,
    benchmark: data.name,
    ...(data.leaderboard ? { leaderboard: true } : {}),
  });
}

function renderRow(r: IndexRow): string {
  const l = r.labels;
  const search = [
    r.id,
    r.ename,
    l?.library,
    l?.crashType,
    l?.rootCause,
    l?.pipelineStage,
    r.status,
    ...r.flags.map((f) => FLAG_LABELS[f]),
  ]
    .filter(Boolean)
    .join(' ')
    .toLowerCase();
  const attrs = [
    ['data-id', r.id],
    ['data-library', l?.library ?? ''],
    ['data-crash-type', l?.crashType ?? ''],
    ['data-root-cause', l?.rootCause ?? ''],
    ['data-pipeline-stage', l?.pipelineStage ?? ''],
    ['data-status', r.status],
    ['data-flags', r.flags.join(' ')],
    ['data-search', search],
  ]
    .map(([k, val]) => `${k}="${escapeHtml(val!)}"`)
    .join(' ');
  const label = (v: string | undefined) =>
    v ? `${escapeHtml(v)}${r.suggested ? ' <span class="sub">suggested</span>' : ''}` : '<span class="muted">—</span>';
  const version = (x: IndexRow['reproduced']) =>
    x
      ? `<td class="num" data-sort="${Number.isFinite(x.durationMs) ? x.durationMs.toFixed(1) : ''}">${renderBadge(x.outcome, outcomeKind(x.outcome))}<span class="sub">${x.outcome === 'skipped-env' ? '' : formatMs(x.durationMs)}</span></td>`
      : '<td class="num" data-sort=""><span class="muted">not run</span></td>';
  return [
    `<tr ${attrs}>`,
    `<td data-sort="${escapeHtml(r.id)}"><a href="${escapeHtml(formatRelativeHref('instances', `${r.id}.html`))}">${escapeHtml(r.id)}</a>${r.ename ? `<span class="sub mono">${escapeHtml(r.ename)}</span>` : ''}</td>`,
    `<td>${label(l?.library)}</td><td>${label(l?.crashType)}</td><td>${label(l?.rootCause)}</td><td>${label(l?.pipelineStage)}</td>`,
    `<td data-sort="${STATUS_ORDER.indexOf(r.status)}">${renderBadge(r.status, r.status)}</td>`,
    version(r.reproduced),
    version(r.fixed),
    `<td data-sort="${escapeHtml(r.flags.join(' '))}">${r.flags.map((f) => renderBadge(FLAG_LABELS[f], f)).join(' ')}</td>`,
    '</tr>',
  ].join('');
}

export function outcomeKind(outcome: string): string {
  if (outcome === 'crash-reproduced' || outcome === 'fixed-ok') return 'ok';
  if (outcome === 'skipped-env') return 'skipped-env';
  // A draft's fix not run (none yet, or the draft fix `add` wrote) is no failure: shown as a draft.
  if (outcome === 'absent' || outcome === 'draft-fix') return 'draft';
  return 'bad';
}
