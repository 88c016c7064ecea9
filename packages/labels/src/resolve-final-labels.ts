import {
  JunoError,
  LABEL_DIMENSIONS,
  type Annotation,
  type FinalLabels,
  type LabelDimension,
  type Labels,
  type LabelSources,
} from '@junobench/core';
import { DIMENSION_TITLES } from './check-label.js';
import type { AdjudicationLine, AnnotationSet } from './read-annotations.js';

export interface ResolveOptions {
  /**
   * The instances' own labels (instance.json). When given, they resolve a
   * disagreement that the adjudication file does not (source "instance"),
   * and give the diagnosis when nobody else does. They never stand in for
   * missing annotations.
   */
  instanceLabels?: ReadonlyMap<string, Labels>;
}

export interface UnresolvedLabel {
  instance: string;
  /** Undefined when the instance has no annotation at all. */
  dimension?: LabelDimension;
  labels: Record<string, string>;
}

/**
 * The final labels (schemas/final-labels.schema.json) of each instance in
 * `instanceIds`, in that order. Per
 * dimension: the adjudicated value when `adjudicated.jsonl` gives one (the
 * adjudicator has the last word, even over agreeing annotators), else the value
 * every annotator agrees on, else the instance's own label when
 * `options.instanceLabels` is given. The diagnosis comes from the adjudication,
 * else the first annotator (in set order) who wrote one, else the instance.
 *
 * Throws one E_LABELS JunoError listing every unresolved disagreement
 * (instance, dimension, each annotator's label) and every instance nobody
 * annotated, with a hint showing the adjudication line that would fix the first.
 * Annotations and adjudications of instances not in `instanceIds` are ignored.
 */
export function resolveFinalLabels(
  sets: readonly AnnotationSet[],
  adjudications: readonly AdjudicationLine[],
  instanceIds: readonly string[],
  options: ResolveOptions = {},
): FinalLabels[] {
  const byAnnotator = sets.map((s) => ({
    annotator: s.annotator,
    byId: new Map(s.annotations.map((a) => [a.instance, a])),
  }));
  const adjudicationOf = new Map(adjudications.map((a) => [a.instance, a]));
  const unresolved: UnresolvedLabel[] = [];
  const out: FinalLabels[] = [];
  for (const id of instanceIds) {
    const present = byAnnotator.flatMap(({ annotator, byId }) => {
      const a = byId.get(id);
      return a ? [{ annotator, a }] : [];
    });
    const adj = adjudicationOf.get(id);
    const own = options.instanceLabels?.get(id);
    if (present.length === 0 && !LABEL_DIMENSIONS.every((d) => adj?.[d] !== undefined)) {
      unresolved.push({ instance: id, labels: {} });
      continue;
    }
    const labels: Partial<Record<LabelDimension, string>> = {};
    const sources = {} as LabelSources;
    for (const d of LABEL_DIMENSIONS) {
      const values = new Set(present.map((p) => p.a[d]));
      const adjudicated = adj?.[d];
      if (adjudicated !== undefined) {
        labels[d] = adjudicated;
        sources[d] = 'adjudicated';
      } else if (values.size === 1) {
        labels[d] = [...values][0]!;
        sources[d] = present.length === 1 ? 'single-annotator' : 'agreed';
      } else if (own) {
        labels[d] = own[d];
        sources[d] = 'instance';
      } else {
        unresolved.push({
          instance: id,
          dimension: d,
          labels: Object.fromEntries(present.map((p) => [p.annotator, p.a[d]])),
        });
      }
    }
    if (LABEL_DIMENSIONS.some((d) => labels[d] === undefined)) continue;
    const final: FinalLabels = { instance: id, labels: labels as unknown as Labels, sources };
    const annotatorDiagnosis = present.find((p) => hasText(p.a))?.a.diagnosis;
    if (adj?.diagnosis !== undefined) {
      final.labels.diagnosis = adj.diagnosis;
      final.diagnosisSource = 'adjudicated';
    } else if (annotatorDiagnosis !== undefined) {
      final.labels.diagnosis = annotatorDiagnosis;
      final.diagnosisSource = 'annotator';
    } else if (own?.diagnosis !== undefined) {
      final.labels.diagnosis = own.diagnosis;
      final.diagnosisSource = 'instance';
    }
    out.push(final);
  }
  if (unresolved.length > 0) throw unresolvedError(unresolved, adjudications[0]?.file);
  return out;
}

function hasText(a: Annotation): boolean {
  return a.diagnosis !== undefined && a.diagnosis.trim() !== '';
}

function unresolvedError(unresolved: readonly UnresolvedLabel[], adjudicationFile: string | undefined): JunoError {
  const list = unresolved.map((u) =>
    u.dimension === undefined
      ? `  - ${u.instance}: no annotator labelled it`
      : `  - ${u.instance}, ${DIMENSION_TITLES[u.dimension]}: ${Object.entries(u.labels)
          .map(([who, v]) => `${who} "${v}"`)
          .join(' vs ')}`,
  );
  const first = unresolved[0]!;
  const example =
    first.dimension === undefined
      ? `label ${first.instance} in every annotator's raw/annotations/<annotator>.jsonl`
      : `add {"instance":${JSON.stringify(first.instance)},"${first.dimension}":${JSON.stringify(Object.values(first.labels)[0] ?? '')}} (with the value you decide on) to raw/annotations/adjudicated.jsonl`;
  return new JunoError(
    'E_LABELS',
    `${unresolved.length} unresolved label disagreement${unresolved.length === 1 ? '' : 's'}:\n${list.join('\n')}`,
    {
      location: { file: adjudicationFile ?? 'raw/annotations/adjudicated.jsonl', field: first.dimension },
      hint: `${example}; run \`junobench labels agreement raw/annotations/*.jsonl\` to see every disagreement`,
    },
  );
}
