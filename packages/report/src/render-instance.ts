import {
  LABEL_DIMENSIONS,
  formatBytes,
  isSyntheticData,
  type InstanceVerification,
  type Labels,
  type RuntimeIdentity,
  type VersionResult,
} from '@junobench/core';
import { isDraftFix, planExecution, type Notebook } from '@junobench/notebook';
import { convertAnsiToHtml } from './ansi-to-html.js';
import { escapeHtml, formatRelativeHref, parseExternalUrl } from './escape-html.js';
import { FLAG_LABELS, summariseInstance, type ReportInstance } from './report-data.js';
import { outcomeKind } from './render-index.js';
import { renderNotebookAlone, renderNotebookDiff, truncate, type NotebookMarks } from './render-notebook.js';
import { formatMs, renderBadge, renderPage } from './render-page.js';
import { MAX_LISTED_FILES } from './read-report-data.js';
import { renderTrajectories } from './render-trajectories.js';

const DIMENSION_NAMES: Record<string, string> = {
  library: 'library cause',
  crashType: 'crash type',
  rootCause: 'root cause',
  pipelineStage: 'pipeline stage',
};

const SOURCE_TEXT: Record<string, string> = {
  agreed: 'both annotators agreed',
  'single-annotator': 'one annotator',
  adjudicated: 'adjudicated',
  instance: "the instance's own label",
};

/**
 * One instance: what crashed and why (labels, diagnosis, the annotators'
 * disagreements and their resolution), how verification went, where it came
 * from, and the reproduced and fixed notebooks side by side. Depends on this
 * instance alone, so its weight does not grow with the benchmark.
 */
export function renderInstancePage(r: ReportInstance, benchmark: string): string {
  const row = summariseInstance(r);
  const crash = r.entry?.crash ?? r.instance?.crash;
  const notebooks = renderNotebooks(r);
  const badges = [renderBadge(row.status, row.status), ...row.flags.map((f) => renderBadge(FLAG_LABELS[f], f))].join(
    ' ',
  );
  const body = [
    `<p class="muted"><a href="../index.html">All instances</a> › ${escapeHtml(r.id)}</p>`,
    `<h1>${escapeHtml(r.id)} ${badges}</h1>`,
    crash
      ? `<p class="crashline">${escapeHtml(crash.ename)}: ${escapeHtml(crash.evalue)}</p><p class="muted">Expected in code cell ${crash.cell} of reproduced.ipynb (message match: ${escapeHtml(crash.match)}).${notebooks.includes(' id="crash-cell"') ? ' <a href="#crash-cell">Go to the crash cell</a>.' : ''}</p>`
      : '',
    r.excludedReason ? `<p class="problem">Not in the benchmark: ${escapeHtml(r.excludedReason)}</p>` : '',
    ...r.problems.map((p) => `<p class="problem">${escapeHtml(p)}</p>`),
    ...(r.notes ?? []).map((n) => `<p class="muted">${escapeHtml(n)}</p>`),
    renderLabels(r, row.suggested),
    renderVerification(r.verification),
    renderChecks(r),
    renderSource(r),
    renderTrajectories(r.trajectories),
    notebooks,
    renderOriginalCrash(r.notebooks.original),
  ].join('\n');
  return renderPage({ title: `${r.id} · ${benchmark}`, root: '../', section: 'instance', body, benchmark });
}

function renderLabels(r: ReportInstance, suggested: boolean): string {
  const labels: Labels | undefined = r.entry?.labels ?? r.finalLabels?.labels ?? r.instance?.labels;
  const out: string[] = ['<section aria-labelledby="labels"><h2 id="labels">Labels and diagnosis</h2>'];
  if (labels) {
    const rows = LABEL_DIMENSIONS.map((d) => {
      const source = r.finalLabels?.sources[d];
      const dis = r.disagreements.find((x) => x.dimension === d);
      const how = source ? (SOURCE_TEXT[source] ?? source) : suggested ? 'suggested, not yet annotated' : '';
      return `<tr><th scope="row">${DIMENSION_NAMES[d]}</th><td>${escapeHtml(labels[d])}</td><td>${escapeHtml(how)}${dis ? ' ' + renderBadge('disagreement', 'warn') : ''}</td></tr>`;
    });
    out.push(
      `<table><thead><tr><th scope="col">dimension</th><th scope="col">label</th><th scope="col">decided by</th></tr></thead><tbody>${rows.join('')}</tbody></table>`,
    );
    if (labels.diagnosis) out.push(`<h3>Diagnosis</h3><div class="diagnosis">${escapeHtml(labels.diagnosis)}</div>`);
  } else out.push('<p class="muted">No labels.</p>');

  out.push('<h3>Annotators</h3>');
  if (r.disagreements.length > 0) {
    const rows = r.disagreements.map((d) => {
      const said = Object.keys(d.labels)
        .sort()
        .map((a) => `${escapeHtml(a)}: <b>${escapeHtml(d.labels[a]!)}</b>`)
        .join('<br>');
      const resolved =
        d.final !== undefined
          ? `<b>${escapeHtml(d.final)}</b> (${escapeHtml(d.source ? (SOURCE_TEXT[d.source] ?? d.source) : 'final label')}${d.adjudicator && d.source === 'adjudicated' && d.adjudicator !== 'adjudicated' ? ` by ${escapeHtml(d.adjudicator)}` : ''})`
          : '<span class="muted">unresolved</span>';
      return `<tr><th scope="row">${DIMENSION_NAMES[d.dimension]}</th><td>${said}</td><td>${resolved}${d.note ? `<br><span class="muted">${escapeHtml(d.note)}</span>` : ''}</td></tr>`;
    });
    out.push(
      `<table><thead><tr><th scope="col">dimension</th><th scope="col">annotators said</th><th scope="col">resolved as</th></tr></thead><tbody>${rows.join('')}</tbody></table>`,
    );
  } else if (r.finalLabels) {
    out.push('<p>The annotators agreed on every dimension.</p>');
  } else out.push('<p class="muted">No annotations for this instance yet.</p>');

  const s = r.instance?.suggestedLabels;
  if (s && Object.keys(s).length > 0) {
    const rows = LABEL_DIMENSIONS.filter((d) => s[d]).map((d) => {
      const x = s[d]!;
      return `<tr><th scope="row">${DIMENSION_NAMES[d]}</th><td>${escapeHtml(x.value)}</td><td class="num">${x.confidence !== undefined ? x.confidence.toFixed(2) : ''}</td><td>${escapeHtml((x.evidence ?? []).join('; '))}</td></tr>`;
    });
    out.push(
      `<h3>Suggested labels</h3><table><thead><tr><th scope="col">dimension</th><th scope="col">suggestion</th><th scope="col" class="num">confidence</th><th scope="col">evidence</th></tr></thead><tbody>${rows.join('')}</tbody></table>`,
    );
  }
  out.push('</section>');
  return out.join('\n');
}

function renderVerification(v: InstanceVerification | undefined): string {
  const out: string[] = ['<section aria-labelledby="verification"><h2 id="verification">Verification</h2>'];
  if (!v) {
    out.push('<p class="muted">Not verified by this build.</p></section>');
    return out.join('\n');
  }
  const row = (x: VersionResult) => {
    const ran = x.cells.filter((c) => c.status !== 'not-run').length;
    // A version skipped for its environment never started a kernel: "0 of 0", "0 ms" would read as a run that did
    // nothing.
    const timing =
      x.outcome === 'skipped-env'
        ? '<td class="num muted">not run</td><td class="num muted">—</td><td class="num muted">—</td>'
        : `<td class="num">${ran} of ${x.cells.length}</td><td class="num">${formatMs(x.durationMs)}</td><td class="num">${formatMs(x.kernelStartMs)}</td>`;
    const observed = x.observed
      ? `${escapeHtml(x.observed.ename)}: ${escapeHtml(x.observed.evalue)} <span class="muted">(code cell ${x.observed.cell}${x.observed.line !== undefined ? `, line ${x.observed.line}` : ''})</span>`
      : '<span class="muted">—</span>';
    return `<tr><th scope="row">${x.version}</th><td>${renderBadge(x.outcome, outcomeKind(x.outcome))}${x.reason ? `<br><span class="muted">${escapeHtml(x.reason)}</span>` : ''}</td><td>${observed}</td>${timing}</tr>`;
  };
  out.push(
    `<p>Status: ${renderBadge(v.status, v.status)}${v.flaky ? ' ' + renderBadge('flaky', 'flaky') : ''}${v.cached ? ' <span class="muted">(result from the verification cache)</span>' : ''}</p>`,
    `<table><thead><tr><th scope="col">version</th><th scope="col">outcome</th><th scope="col">observed crash</th><th scope="col" class="num">cells run</th><th scope="col" class="num">duration</th><th scope="col" class="num">kernel start</th></tr></thead><tbody>${row(v.reproduced)}${row(v.fixed)}</tbody></table>`,
  );
  if (v.repeats && (v.repeats.reproduced || v.repeats.fixed)) {
    const list = (o?: readonly string[]) => (o ? o.map((x) => escapeHtml(x)).join(', ') : '—');
    out.push(`<p>Repeated runs: reproduced ${list(v.repeats.reproduced)}; fixed ${list(v.repeats.fixed)}.</p>`);
  }
  const same = JSON.stringify(v.reproduced.runtime) === JSON.stringify(v.fixed.runtime);
  out.push('<h3>Runtime identity</h3>');
  if (same) out.push(renderRuntime(v.reproduced.runtime));
  else
    out.push(
      `<h4>reproduced</h4>${renderRuntime(v.reproduced.runtime)}<h4>fixed</h4>${renderRuntime(v.fixed.runtime)}`,
    );
  out.push(`<p class="muted">Content hash (the verification cache key): <code>${escapeHtml(v.contentHash)}</code></p>`);
  out.push('</section>');
  return out.join('\n');
}

/**
 * What a repair must achieve: the instance's checks with their reasons, how the fixed notebook fared on them in this
 * verification, and their recorded mutation test (docs/checks.md).
 */
function renderChecks(r: ReportInstance): string {
  const c = r.checks;
  const ran = r.verification?.fixed.checks ?? [];
  if (!c && ran.length === 0) return '';
  const out: string[] = ['<section aria-labelledby="checks"><h2 id="checks">What a repair must achieve</h2>'];
  out.push(
    '<p class="muted">checks.py: assertions run in the notebook\'s kernel after its last cell. A repair is resolved only when it runs to the end, hides nothing and passes every one.</p>',
  );
  const list = c?.checks ?? ran.map((x) => ({ name: x.name, reason: x.reason ?? '' }));
  const result = (name: string) => ran.find((x) => x.name === name);
  out.push(
    '<table><thead><tr><th scope="col">check</th><th scope="col">what the fix must achieve</th><th scope="col">fixed notebook</th></tr></thead><tbody>',
    ...list.map((x) => {
      const got = result(x.name);
      const cell = got
        ? got.passed
          ? renderBadge('passed', 'ok')
          : `${renderBadge('failed', 'bad')}${got.error ? `<br><span class="muted">${escapeHtml(got.error)}</span>` : ''}`
        : '<span class="muted">not run</span>';
      return `<tr><td><code>${escapeHtml(x.name)}</code></td><td>${escapeHtml(x.reason)}</td><td>${cell}</td></tr>`;
    }),
    '</tbody></table>',
  );
  if (c) {
    const score =
      c.score.generated > 0 ? `${c.score.rejected} of ${c.score.generated} non-fixes rejected` : 'no non-fix was run';
    out.push(
      `<p>Mutation test: ${renderBadge(c.status, c.status === 'complete' || c.status === 'waived' ? 'ok' : c.status === 'skipped-env' ? 'warn' : 'bad')} ${escapeHtml(score)}${c.reason ? ` <span class="muted">(${escapeHtml(c.reason)})</span>` : ''}</p>`,
    );
    if (c.mutants.length > 0) {
      out.push(
        '<details><summary>Non-fixes generated from the crashing notebook</summary><table><thead><tr><th scope="col">mutant</th><th scope="col">what it does</th><th scope="col">rejected by</th></tr></thead><tbody>',
        ...c.mutants.map(
          (m) =>
            `<tr><td><code>${escapeHtml(m.id)}</code></td><td>${escapeHtml(m.description)}</td><td>${escapeHtml(m.outcome)}${m.failed ? `: ${escapeHtml(m.failed.join(', '))}` : ''}</td></tr>`,
        ),
        '</tbody></table></details>',
      );
    }
    for (const w of c.waived)
      out.push(`<p class="muted">Waived: <code>${escapeHtml(w.mutant)}</code> — ${escapeHtml(w.reason)}</p>`);
  }
  out.push('</section>');
  return out.join('\n');
}

function renderRuntime(rt: RuntimeIdentity): string {
  const facts: [string, string][] = [['runtime', rt.kind]];
  if (rt.pythonVersion) facts.push(['Python', `${rt.pythonVersion}${rt.python ? ` (${rt.python})` : ''}`]);
  if (rt.image) facts.push(['image', rt.image]);
  if (rt.imageId) facts.push(['image id', rt.imageId]);
  // Fields added to the identity later (kernel start mode, threads…) are shown as they are.
  const known = new Set(['kind', 'python', 'pythonVersion', 'image', 'imageId', 'packages']);
  for (const [k, val] of Object.entries(rt).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (!known.has(k) && (typeof val === 'string' || typeof val === 'number' || typeof val === 'boolean'))
      facts.push([k, String(val)]);
  }
  const pkgs = Object.keys(rt.packages).sort();
  const pkgText = pkgs.map((p) => `${p} ${rt.packages[p] ?? '(not importable)'}`).join(', ');
  if (pkgs.length > 0) facts.push(['packages', pkgText]);
  return `<dl class="facts">${facts.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`).join('')}</dl>`;
}

function renderSource(r: ReportInstance): string {
  const src = r.entry?.source ?? r.instance?.source;
  const out: string[] = ['<section aria-labelledby="source"><h2 id="source">Source, datasets and licences</h2>'];
  if (src) {
    const url = parseExternalUrl(src.notebookUrl);
    const facts: string[] = [`<dt>platform</dt><dd>${escapeHtml(src.platform)}</dd>`];
    if (src.notebookUrl)
      facts.push(`<dt>notebook</dt><dd>${url ? externalLink(url, src.notebookUrl) : escapeHtml(src.notebookUrl)}</dd>`);
    const requires = r.entry?.requires ?? r.instance?.requires;
    if (requires && requires.length > 0)
      facts.push(`<dt>requires</dt><dd class="mono">${escapeHtml(requires.join(', '))}</dd>`);
    const exec = r.entry?.execution ?? r.instance?.execution;
    if (exec) {
      const order = exec.cells
        ? `explicit replay of code cells ${exec.cells.join(', ')}`
        : exec.order === 'execution-count'
          ? 'replayed in saved execution-count order'
          : 'top to bottom (file order)';
      facts.push(`<dt>execution</dt><dd>${escapeHtml(order)}</dd>`);
    }
    out.push(`<dl class="facts">${facts.join('')}</dl>`);
    if (src.datasets.length > 0) {
      const rows = src.datasets.map((d) => {
        const du = parseExternalUrl(d.url);
        return `<tr><td>${escapeHtml(d.title)}</td><td>${escapeHtml(d.license)}</td><td>${du ? externalLink(du, d.url!) : d.url ? escapeHtml(d.url) : '<span class="muted">—</span>'}</td></tr>`;
      });
      out.push(
        `<table><caption>Datasets</caption><thead><tr><th scope="col">dataset</th><th scope="col">licence</th><th scope="col">link</th></tr></thead><tbody>${rows.join('')}</tbody></table>`,
      );
    } else out.push('<p class="muted">No input datasets.</p>');
  }
  const syn = r.instance?.data?.synthetic;
  if (syn) {
    out.push(
      `<p>${renderBadge('synthetic data', 'synthetic-data')} ${escapeHtml(syn.reason)}${syn.license ? ` (licence of the stand-in: ${escapeHtml(syn.license)})` : ''}${syn.files?.length ? ` — files: <span class="mono">${escapeHtml(syn.files.join(', '))}</span>` : ''}</p>`,
    );
  }
  const sub = r.instance?.data?.subsample;
  if (sub) {
    const steps = sub.steps.map((s) => `${s.method} ${s.path}`).join('; ');
    // A sample of generated rows is generated data: called synthetic, as in the index and the dataset card.
    const generated = !syn && r.instance && isSyntheticData(r.instance);
    out.push(
      generated
        ? `<p>${renderBadge('synthetic data', 'synthetic-data')} A generated stand-in, not the notebook's own data: ${escapeHtml(sub.source.title ?? sub.source.kind)}${sub.source.generator ? ` (generator ${escapeHtml(sub.source.generator)})` : ''}, sampled with seed ${escapeHtml(String(sub.seed))}: <span class="mono">${escapeHtml(steps)}</span>.</p>`
        : `<p>Data subsampled from ${escapeHtml(sub.source.title ?? sub.source.kind)} (seed ${escapeHtml(String(sub.seed))}): <span class="mono">${escapeHtml(steps)}</span>.</p>`,
    );
  }
  if (r.files.length > 0 && r.folderHref !== undefined) {
    const shown = r.files.slice(0, MAX_LISTED_FILES);
    const items = shown.map(
      (f) =>
        `<li><a href="${escapeHtml(formatRelativeHref('..', r.folderHref!, f.rel))}">${escapeHtml(f.rel)}</a> <span class="muted">${formatBytes(f.size, { units: 'jedec' })}</span></li>`,
    );
    const more =
      r.files.length > shown.length ? `<li class="muted">… and ${r.files.length - shown.length} more files</li>` : '';
    out.push(`<h3>Files</h3><ul class="files">${items.join('')}${more}</ul>`);
  }
  out.push('</section>');
  return out.join('\n');
}

function externalLink(href: string, text: string): string {
  return `<a href="${escapeHtml(href)}" rel="noopener noreferrer external">${escapeHtml(text)}</a>`;
}

function renderNotebooks(r: ReportInstance): string {
  const out: string[] = [
    '<section aria-labelledby="notebooks"><h2 id="notebooks">Reproduced and fixed, cell by cell</h2>',
  ];
  const rep = r.notebooks.reproduced;
  const fix = r.notebooks.fixed;
  for (const [name, slot] of [
    ['reproduced.ipynb', rep],
    ['fixed.ipynb', fix],
  ] as const) {
    if (slot && 'error' in slot)
      out.push(
        `<p class="problem">${escapeHtml(slot.error.startsWith(`${name}:`) ? slot.error : `${name}: ${slot.error}`)}</p>`,
      );
  }
  const v = r.verification;
  const crash = r.entry?.crash ?? r.instance?.crash;
  const observed = (x: VersionResult | undefined) => {
    if (!x?.observed) return undefined;
    const cell = x.cells.filter((c) => c.index === x.observed!.cell && c.status === 'error').at(-1);
    return {
      cell: x.observed.cell,
      ename: x.observed.ename,
      evalue: x.observed.evalue,
      ...(cell?.traceback ? { traceback: cell.traceback } : {}),
    };
  };
  const left: NotebookMarks = {
    ...(v ? { cells: v.reproduced.cells } : {}),
    ...(crash ? { expectedCrashCell: crash.cell } : {}),
    anchor: 'crash-cell',
  };
  const lo = observed(v?.reproduced);
  if (lo) left.observed = lo;
  const right: NotebookMarks = { ...(v ? { cells: v.fixed.cells } : {}), anchor: 'fixed-crash-cell' };
  const ro = observed(v?.fixed);
  if (ro) right.observed = ro;

  const repNb: Notebook | undefined = rep && 'notebook' in rep ? rep.notebook : undefined;
  const fixNb: Notebook | undefined = fix && 'notebook' in fix ? fix.notebook : undefined;
  // The run order verification uses for both versions: out-of-order crashes live there, not in the sources.
  const exec = r.entry?.execution ?? r.instance?.execution;
  const showRunOrder = Boolean(exec && (exec.order === 'execution-count' || exec.cells));
  const runOrderText: string[] = [];
  for (const [nb, marks, name] of [
    [repNb, left, 'reproduced.ipynb'],
    [fixNb, right, 'fixed.ipynb'],
  ] as const) {
    if (!nb || !exec) continue;
    try {
      marks.runOrder = planExecution(nb, exec.order, exec.cells);
      marks.showRunOrder = showRunOrder;
      if (showRunOrder) runOrderText.push(`${name} runs code cells ${marks.runOrder.join(', ') || 'none'}`);
    } catch (e) {
      out.push(`<p class="problem">${escapeHtml(name)}: ${escapeHtml(e instanceof Error ? e.message : String(e))}</p>`);
    }
  }
  if (repNb && fixNb && isDraftFix(fixNb)) {
    // The starter `add` wrote: the reproduced notebook, marked. It is no fix yet, so it is not shown as one.
    out.push(
      '<p class="muted">A draft: its fixed.ipynb is still the draft fix <code>junobench add</code> wrote (the reproduced notebook with a DRAFT FIX cell), not a fix yet. The reproduced notebook alone:</p>',
      `<div class="nb">${renderNotebookAlone(repNb, left)}</div>`,
    );
  } else if (repNb && fixNb) {
    const { html, summary } = renderNotebookDiff(repNb, fixNb, { left, right });
    const how = exec?.cells
      ? 'in the explicit replay order of instance.json'
      : 'in the order of their saved execution counts (cells never run are not replayed)';
    out.push(
      `<p>${summary.changed} changed, ${summary.added} added and ${summary.removed} removed cell${summary.changed + summary.added + summary.removed === 1 ? '' : 's'}; ${summary.same} the same${summary.reordered > 0 ? ` in source; ${summary.reordered} run in a different order` : ''}. Removed lines are struck on the left, added lines marked on the right.</p>`,
      showRunOrder ? `<p>Cells run ${how}: ${escapeHtml(runOrderText.join('; '))}.</p>` : '',
      '<input type="checkbox" id="only-changed"><label class="toggle" for="only-changed"> Show only the cells that differ</label>',
      `<div class="nb"><div class="nb-head" aria-hidden="true"><h3>reproduced.ipynb (crashes)</h3><h3>fixed.ipynb (runs)</h3></div>${html}</div>`,
    );
  } else if (repNb) {
    out.push(
      '<p class="muted">No fixed notebook (a draft): the reproduced notebook alone.</p>',
      `<div class="nb">${renderNotebookAlone(repNb, left)}</div>`,
    );
  } else out.push('<p class="muted">No notebooks to show.</p>');
  out.push('</section>');
  return out.join('\n');
}

function renderOriginalCrash(slot: ReportInstance['notebooks']['original']): string {
  if (!slot || !('notebook' in slot)) return '';
  const errors: string[] = [];
  let code = 0;
  for (const cell of slot.notebook.cells) {
    if (cell.cell_type !== 'code') continue;
    const index = code++;
    for (const o of cell.outputs) {
      if (o.output_type !== 'error') continue;
      errors.push(
        `<h3>Code cell ${index}${cell.execution_count !== null ? ` [${cell.execution_count}]` : ''}: ${escapeHtml(o.ename)}</h3><pre class="ansi traceback-block">${convertAnsiToHtml(truncate(o.traceback.join('\n')))}</pre>`,
      );
    }
  }
  if (errors.length === 0) return '';
  return `<section aria-labelledby="original"><h2 id="original">The crash as collected</h2><p class="muted">The error saved in original.ipynb, with its terminal colours.</p>${errors.join('\n')}</section>`;
}
