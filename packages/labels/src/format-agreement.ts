import {
  describeAgreementGate,
  RAISE_KAPPA_HINT,
  type AgreementGate,
  type AgreementReport,
  type CategoryAgreement,
  type DimensionAgreement,
} from '@junobench/core';
import { findWeakDimensions } from './compute-agreement.js';
import { DIMENSION_TITLES } from './check-label.js';

export interface FormatAgreementOptions {
  /** The gate to state under the table; omitted when undefined. */
  minKappa?: number;
  /** The gate with where it came from (stated with its source and, when it fails, what raises kappa). */
  gate?: AgreementGate;
  /** At most this many weakest categories (default 10). */
  maxCategories?: number;
  /** At most this many disagreements (default: all). */
  maxDisagreements?: number;
}

/** The agreement report as Markdown: per-dimension table, weakest categories, disagreements, gate. */
export function formatAgreementReport(report: AgreementReport, options: FormatAgreementOptions = {}): string {
  const { maxCategories = 10, maxDisagreements = Infinity } = options;
  const many = report.annotators.length > 2;
  const lines: string[] = [];
  const compared = new Set(report.singlyAnnotated.map((s) => s.instance));
  lines.push('# Inter-annotator agreement', '');
  lines.push(
    `Annotators: ${report.annotators.join(', ')}. Instances: ${report.instances}, of which ${report.instances - compared.size} labelled by two or more annotators.`,
  );
  const boot =
    report.settings.bootstrap > 0
      ? `bootstrap CI: ${report.settings.bootstrap} resamples of the instances, seed "${report.settings.seed}", ${pct(report.settings.confidence)} percentile interval`
      : 'bootstrap CI: off';
  lines.push(
    `Cohen's κ per pair of annotators; SE: Fleiss, Cohen & Everitt (1969) large-sample SE; asymptotic CI: κ ± 1.96·SE; ${boot}; Krippendorff's α (nominal) over all annotators.`,
    '',
  );

  const header = [
    'dimension',
    ...(many ? ['pair'] : []),
    'n',
    'observed',
    'chance',
    'κ',
    'CI (bootstrap)',
    'SE',
    '95% CI (asymptotic)',
    'α',
  ];
  lines.push(row(header), row(header.map((_, i) => (i === 0 || (many && i === 1) ? '---' : '--:'))));
  const notes: string[] = [];
  for (const d of report.dimensions) {
    for (const [i, p] of d.pairs.entries()) {
      lines.push(
        row([
          i === 0 ? DIMENSION_TITLES[d.dimension] : '',
          ...(many ? [p.annotators.join(' – ')] : []),
          String(p.n),
          num(p.observed),
          num(p.chance),
          num(p.kappa),
          interval(p.bootstrap?.ci ?? null),
          num(p.se),
          interval(p.ciAsymptotic),
          i === 0 ? num(d.alpha.alpha) : '',
        ]),
      );
      if (p.reason)
        notes.push(
          `${DIMENSION_TITLES[d.dimension]}${many ? ` (${p.annotators.join(' – ')})` : ''}: κ undefined, ${p.reason}.`,
        );
    }
    if (d.alpha.reason) notes.push(`${DIMENSION_TITLES[d.dimension]}: α undefined, ${d.alpha.reason}.`);
  }
  if (notes.length > 0) lines.push('', ...notes.map((n) => `- ${n}`));

  lines.push('', '## Weakest categories (one-vs-rest κ)', '');
  const weak = weakestCategories(report.dimensions).slice(0, maxCategories);
  if (weak.length === 0) lines.push('Every category has one-vs-rest κ = 1.');
  else {
    const h = [
      'dimension',
      'category',
      ...(many ? ['pair'] : []),
      'κ',
      ...(many ? ['uses (first, second)'] : report.annotators.map((a) => `uses by ${a}`)),
      'both',
      'positive agreement',
    ];
    lines.push(row(h), row(h.map((x) => (x === 'dimension' || x === 'category' || x === 'pair' ? '---' : '--:'))));
    for (const w of weak) {
      lines.push(
        row([
          DIMENSION_TITLES[w.dimension],
          w.category.category,
          ...(many ? [w.pair.join(' – ')] : []),
          num(w.category.kappa),
          ...(many ? [`${w.category.counts[0]}, ${w.category.counts[1]}`] : w.category.counts.map(String)),
          String(w.category.both),
          num(w.category.positiveAgreement),
        ]),
      );
    }
  }

  lines.push('', `## Disagreements (${report.disagreements.length})`, '');
  if (report.disagreements.length === 0) lines.push('None: the annotators agree on every label.');
  else {
    const h = ['instance', 'dimension', ...report.annotators];
    lines.push(row(h), row(h.map(() => '---')));
    for (const d of report.disagreements.slice(0, maxDisagreements)) {
      lines.push(row([d.instance, DIMENSION_TITLES[d.dimension], ...report.annotators.map((a) => d.labels[a] ?? '—')]));
    }
    const rest = report.disagreements.length - Math.min(maxDisagreements, report.disagreements.length);
    if (rest > 0) lines.push('', `… and ${rest} more (all of them are in the JSON report).`);
  }

  if (report.singlyAnnotated.length > 0) {
    lines.push('', `## Labelled by one annotator only (${report.singlyAnnotated.length})`, '');
    lines.push(report.singlyAnnotated.map((s) => `${s.instance} (${s.annotator})`).join(', '));
  }

  if (options.gate) {
    const failing = report.dimensions.filter((d) => d.kappa === null || d.kappa < options.gate!.minKappa);
    lines.push('', `## Gate: ${describeAgreementGate(options.gate)}`, '');
    lines.push(
      failing.length === 0 && report.dimensions.length > 0
        ? `Every dimension reaches κ ≥ ${options.gate.minKappa}.`
        : `Below κ ${options.gate.minKappa}: ${failing.map((d) => `${DIMENSION_TITLES[d.dimension]} (κ = ${num(d.kappa)})`).join(', ')}: the gate fails.`,
    );
    if (failing.length > 0) lines.push('', `What raises kappa: ${RAISE_KAPPA_HINT}.`);
  } else if (options.minKappa !== undefined) {
    const failing = findWeakDimensions(report, options.minKappa);
    lines.push('');
    lines.push(
      failing.length === 0
        ? `Every dimension reaches κ ≥ ${options.minKappa}.`
        : `Below κ ${options.minKappa}: ${failing.map((d) => `${DIMENSION_TITLES[d.dimension]} (κ = ${num(d.kappa)})`).join(', ')}.`,
    );
  }
  return `${lines.join('\n')}\n`;
}

interface WeakCategory {
  dimension: DimensionAgreement['dimension'];
  pair: [string, string];
  category: CategoryAgreement;
}

/** Categories with one-vs-rest κ below 1 across dimensions and pairs, weakest first. */
export function weakestCategories(dimensions: readonly DimensionAgreement[]): WeakCategory[] {
  const all: WeakCategory[] = [];
  for (const d of dimensions) {
    for (const p of d.pairs) {
      for (const c of p.perCategory)
        if (c.kappa !== null && c.kappa < 1) all.push({ dimension: d.dimension, pair: p.annotators, category: c });
    }
  }
  // Stable sort keeps dimension, pair and category order among ties.
  return all.sort((a, b) => a.category.kappa! - b.category.kappa!);
}

function row(cells: readonly string[]): string {
  return `| ${cells.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`;
}

function num(x: number | null): string {
  return x === null ? 'n/a' : x.toFixed(3);
}

function interval(ci: [number, number] | null): string {
  return ci === null ? 'n/a' : `[${ci[0].toFixed(3)}, ${ci[1].toFixed(3)}]`;
}

function pct(x: number): string {
  return `${Math.round(x * 1000) / 10}%`;
}
