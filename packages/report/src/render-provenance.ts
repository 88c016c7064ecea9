import type { AgreementGateResult } from '@junobench/core';
import { escapeHtml, parseExternalUrl } from './escape-html.js';
import type { ReportData } from './report-data.js';

const DIMENSION_NAMES: Record<string, string> = {
  library: 'library cause',
  crashType: 'crash type',
  rootCause: 'root cause',
  pipelineStage: 'pipeline stage',
};

/** Where the gate came from, in words. */
export function describeGateSource(g: AgreementGateResult): string {
  if (g.source === 'flag') return `--min-kappa, for that run only; the setting is ${g.setting ?? 'the default 0.9'}`;
  if (g.source === 'setting') return 'minKappa in raw/release.json';
  return 'the default; minKappa in raw/release.json sets another';
}

/** The agreement gate and its verdict, one line (index and statistics page). */
export function renderGateLine(g: AgreementGateResult): string {
  const head = `Agreement gate: Cohen's κ ≥ ${g.minKappa} in every dimension (${describeGateSource(g)})`;
  if (g.passed) return `<p class="gate gate-passed" id="gate">${escapeHtml(head)}: <b>passed</b>.</p>`;
  const below = g.below
    .map(
      (b) =>
        `${DIMENSION_NAMES[b.dimension] ?? b.dimension} (κ = ${b.kappa === null ? 'undefined' : b.kappa.toFixed(3)})`,
    )
    .join(', ');
  return (
    `<p class="gate gate-failed" id="gate">${escapeHtml(head)}: <b>FAILED</b> — below it: ${escapeHtml(below || 'no dimension compared')}. ` +
    `Kappa compares the annotators' own labels, so it rises only when they revise them; resolving a disagreement (adjudicated.jsonl) decides the final label and does not raise it. ` +
    `A release is refused until the gate passes. <a href="stats.html#agreement">The agreement</a>.</p>`
  );
}

/**
 * What the index says about where it comes from: the dataset's version, the
 * toolchain (version and commit), when the data was built, the release's files
 * with checksums and download links, and the deprecated instances with their
 * reason and version.
 */
export function renderProvenance(data: ReportData): string {
  const out: string[] = [];
  const p = data.provenance;
  if (p) {
    const t = p.toolchain;
    const facts: [string, string][] = [
      [
        'dataset',
        p.datasetVersion
          ? `${data.name} ${p.datasetVersion}`
          : `${data.name}, not released: a build of curated/ (a release names its version)`,
      ],
      [
        'toolchain',
        `junobench ${t.version}${t.commit ? `, commit ${t.commit.slice(0, 12)}${t.dirty ? ' (with uncommitted changes)' : ''}` : ', outside a git checkout (no commit)'}`,
      ],
      ['built', p.builtAt ? `${formatUtc(p.builtAt.iso)} (${p.builtAt.source})` : 'not recorded'],
    ];
    out.push(
      `<section aria-labelledby="provenance"><h2 id="provenance">Provenance</h2><dl class="facts">${facts
        .map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`)
        .join('')}</dl>`,
    );
    out.push('</section>');
  }
  const r = data.release;
  if (r) {
    const rows = r.files.map((f) => {
      const url = f.url ? parseExternalUrl(f.url) : undefined;
      const name = url
        ? `<a href="${escapeHtml(url)}" rel="noopener noreferrer external">${escapeHtml(f.name)}</a>`
        : escapeHtml(f.name);
      return `<tr><td>${name}</td><td class="num">${f.bytes ?? ''}</td><td class="mono">${escapeHtml(f.sha256)}</td></tr>`;
    });
    const page = r.page ? parseExternalUrl(r.page) : undefined;
    out.push(
      `<section aria-labelledby="downloads"><h2 id="downloads">Release ${escapeHtml(r.version)}: downloads and checksums</h2>` +
        `<p>${page ? `Published at <a href="${escapeHtml(page)}" rel="noopener noreferrer external">${escapeHtml(r.page!)}</a>. ` : 'Not published yet: the files are beside the report. '}Check a download with <span class="mono">sha256sum -c SHA256SUMS</span> in its folder.</p>` +
        `<table><caption>Files</caption><thead><tr><th scope="col">file</th><th scope="col" class="num">bytes</th><th scope="col">sha256</th></tr></thead><tbody>${rows.join('')}</tbody></table></section>`,
    );
  }
  const dep = data.deprecated ?? [];
  if (dep.length > 0) {
    out.push(
      `<section aria-labelledby="deprecated"><h2 id="deprecated">Deprecated instances (${dep.length})</h2>` +
        '<p>Withdrawn from the benchmark: left out of every release from the version named (their ids are never reused).</p>' +
        `<table><thead><tr><th scope="col">instance</th><th scope="col">deprecated in</th><th scope="col">reason</th></tr></thead><tbody>${dep
          .map(
            (d) =>
              `<tr><td>${escapeHtml(d.id)}</td><td>${escapeHtml(d.deprecatedIn)}</td><td>${escapeHtml(d.reason)}</td></tr>`,
          )
          .join('')}</tbody></table></section>`,
    );
  }
  return out.join('\n');
}

function formatUtc(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}
