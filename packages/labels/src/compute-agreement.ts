import {
  compareCodePoints,
  DEFAULT_MIN_KAPPA as CORE_DEFAULT_MIN_KAPPA,
  JunoError,
  LABEL_DIMENSIONS,
  type AgreementGate,
  type AgreementGateResult,
  type AgreementReport,
  type Annotation,
  type CategoryAgreement,
  type DimensionAgreement,
  type LabelDisagreement,
  type PairAgreement,
} from '@junobench/core';
import { bootstrapKappa, DEFAULT_BOOTSTRAP_RESAMPLES } from './bootstrap-kappa.js';
import { computeCohenKappa } from './cohen-kappa.js';
import { computeKrippendorffAlpha } from './krippendorff-alpha.js';
import { assertDistinctAnnotators, type AnnotationSet } from './read-annotations.js';

export const DEFAULT_AGREEMENT_SEED = 'junobench';
export const DEFAULT_CONFIDENCE = 0.95;
/**
 * The gate when raw/release.json sets none (readAgreementGate in @junobench/core
 * reads the setting): the paper reports Cohen's kappa above 0.9 in every
 * dimension, so a dimension fails below 0.9.
 */
export const DEFAULT_MIN_KAPPA = CORE_DEFAULT_MIN_KAPPA;

export interface AgreementOptions {
  /** Seed of the bootstrap (default "junobench"). */
  seed?: string | number;
  /** Bootstrap resamples per pair and dimension (default 2000; 0 leaves the bootstrap out). */
  bootstrap?: number;
  /** Coverage of the bootstrap interval (default 0.95; the asymptotic interval is always 95%). */
  confidence?: number;
}

/**
 * Inter-annotator agreement per label dimension (format:
 * schemas/agreement-report.schema.json): Cohen's kappa for every pair of
 * annotators over the instances both labelled, with asymptotic and bootstrap
 * intervals and one-vs-rest kappas per category; Krippendorff's alpha over all
 * annotators (missing labels allowed); and every disagreement. The
 * dimension's `kappa` is the lowest pairwise kappa (with two annotators,
 * simply theirs). A null statistic is undefined and carries a reason.
 *
 * Pure and deterministic: items are in instance-id order and each pair and
 * dimension bootstraps with its own seeded generator, so the report does not
 * depend on file or line order.
 */
export function computeAgreement(sets: readonly AnnotationSet[], options: AgreementOptions = {}): AgreementReport {
  if (sets.length < 2) {
    throw new JunoError('E_USAGE', `agreement needs at least two annotators' files, got ${sets.length}`, {
      hint: 'junobench labels agreement raw/annotations/annotator-a.jsonl raw/annotations/annotator-b.jsonl',
    });
  }
  assertDistinctAnnotators(sets);
  const seed = String(options.seed ?? DEFAULT_AGREEMENT_SEED);
  const resamples = options.bootstrap ?? DEFAULT_BOOTSTRAP_RESAMPLES;
  const confidence = options.confidence ?? DEFAULT_CONFIDENCE;
  if (!Number.isInteger(resamples) || resamples < 0) {
    throw new JunoError('E_USAGE', `the number of bootstrap resamples must be a whole number ≥ 0, got ${resamples}`, {
      hint: '--bootstrap 2000',
    });
  }
  if (!(confidence > 0 && confidence < 1)) {
    throw new JunoError('E_USAGE', `the confidence level must be between 0 and 1, got ${confidence}`, {
      hint: 'e.g. 0.95',
    });
  }
  const annotators = sets.map((s) => s.annotator);
  const byAnnotator = sets.map((s) => new Map(s.annotations.map((a) => [a.instance, a])));
  const instances = [...new Set(sets.flatMap((s) => s.annotations.map((a) => a.instance)))].sort(compareCodePoints);

  const pairIndexes: [number, number][] = [];
  for (let i = 0; i < sets.length; i++) for (let j = i + 1; j < sets.length; j++) pairIndexes.push([i, j]);
  const overlap = pairIndexes.map(([i, j]) =>
    instances.filter((id) => byAnnotator[i]!.has(id) && byAnnotator[j]!.has(id)),
  );
  if (overlap.every((ids) => ids.length === 0)) {
    throw new JunoError(
      'E_LABELS',
      `no instance is labelled by two annotators (${annotators.join(', ')}), so agreement cannot be measured`,
      {
        location: { file: sets[0]!.file },
        hint: 'each annotator labels the same instances; check the "instance" ids match across files',
      },
    );
  }

  const dimensions = LABEL_DIMENSIONS.map((dimension): DimensionAgreement => {
    const pairs = pairIndexes.map(([i, j], p): PairAgreement => {
      const ids = overlap[p]!;
      const a = ids.map((id) => byAnnotator[i]!.get(id)![dimension]);
      const b = ids.map((id) => byAnnotator[j]!.get(id)![dimension]);
      const kappa = computeCohenKappa(a, b);
      const bootstrap =
        resamples > 0
          ? bootstrapKappa(a, b, {
              resamples,
              confidence,
              seed: `${seed}\u0000${dimension}\u0000${annotators[i]}\u0000${annotators[j]}`,
            })
          : null;
      return {
        ...kappa,
        annotators: [annotators[i]!, annotators[j]!],
        bootstrap,
        perCategory: computeCategoryAgreement(a, b, kappa.categories),
      };
    });
    const defined = pairs.map((p) => p.kappa).filter((k): k is number => k !== null);
    const alpha = computeKrippendorffAlpha(instances.map((id) => byAnnotator.map((m) => m.get(id)?.[dimension])));
    return { dimension, kappa: defined.length > 0 ? Math.min(...defined) : null, pairs, alpha };
  });

  const disagreements: LabelDisagreement[] = [];
  const singlyAnnotated: AgreementReport['singlyAnnotated'] = [];
  for (const id of instances) {
    const present = byAnnotator
      .map((m, i) => [annotators[i]!, m.get(id)] as const)
      .filter((x): x is readonly [string, Annotation] => x[1] !== undefined);
    if (present.length === 1) singlyAnnotated.push({ instance: id, annotator: present[0]![0] });
    for (const dimension of LABEL_DIMENSIONS) {
      const values = new Set(present.map(([, a]) => a[dimension]));
      if (values.size > 1)
        disagreements.push({
          instance: id,
          dimension,
          labels: Object.fromEntries(present.map(([name, a]) => [name, a[dimension]])),
        });
    }
  }
  return {
    annotators,
    instances: instances.length,
    singlyAnnotated,
    settings: { seed, bootstrap: resamples, confidence },
    dimensions,
    disagreements,
  };
}

/** One-vs-rest agreement per category, weakest (lowest kappa, undefined last) first, then by name. */
export function computeCategoryAgreement(
  a: readonly string[],
  b: readonly string[],
  categories: readonly string[],
): CategoryAgreement[] {
  const rows = categories.map((category): CategoryAgreement => {
    const inA = a.map((x) => x === category);
    const inB = b.map((x) => x === category);
    const countA = inA.filter(Boolean).length;
    const countB = inB.filter(Boolean).length;
    const both = inA.filter((x, i) => x && inB[i]).length;
    const k = computeCohenKappa(
      inA.map((x) => (x ? 'in' : 'out')),
      inB.map((x) => (x ? 'in' : 'out')),
    );
    const row: CategoryAgreement = {
      category,
      counts: [countA, countB],
      both,
      positiveAgreement: (2 * both) / (countA + countB),
      kappa: k.kappa,
    };
    if (k.kappa === null)
      row.reason = 'both annotators put every item in this category: chance agreement is 1, so kappa is 0/0';
    return row;
  });
  return rows.sort((x, y) => {
    if (x.kappa !== y.kappa) {
      if (x.kappa === null) return 1;
      if (y.kappa === null) return -1;
      return x.kappa - y.kappa;
    }
    return compareCodePoints(x.category, y.category);
  });
}

/** Dimensions whose kappa is below `minKappa` (the gate of `labels agreement` and the build). */
export function findWeakDimensions(report: AgreementReport, minKappa: number): DimensionAgreement[] {
  return report.dimensions.filter((d) => d.kappa !== null && d.kappa < minKappa);
}

/**
 * The gate's verdict on a report: every dimension's kappa must be defined and
 * reach the gate (as a release requires). What `curated/labels/agreement.json`
 * records and the report shows.
 */
export function judgeAgreementGate(report: AgreementReport, gate: AgreementGate): AgreementGateResult {
  const below = report.dimensions
    .filter((d) => d.kappa === null || d.kappa < gate.minKappa)
    .map((d) => ({ dimension: d.dimension, kappa: d.kappa }));
  return {
    minKappa: gate.minKappa,
    source: gate.source,
    ...(gate.source === 'flag' && gate.setting !== undefined ? { setting: gate.setting } : {}),
    passed: below.length === 0 && report.dimensions.length > 0,
    below,
  };
}
