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
   * The instances' own labels (instance.json). When given, a label there
   * decides a disagreement the adjudication file does not (source
   * "instance"), and its diagnosis is the diagnosis unless adjudicated.jsonl
   * gives one. A label there that differs from what the annotations decide is
   * a conflict: reported, never overridden either way.
   */
  instanceLabels?: ReadonlyMap<string, Labels>;
}

export interface UnresolvedLabel {
  instance: string;
  /** Undefined when the instance has no annotation at all. */
  dimension?: LabelDimension;
  labels: Record<string, string>;
}

/** Two places decide one label differently: instance.json and the annotations (agreed or adjudicated). */
export interface LabelConflict {
  instance: string;
  field: LabelDimension | 'diagnosis';
  /** instance.json's value. */
  instanceValue: string;
  /** What the annotations decide, and how. */
  annotationsValue: string;
  source: 'agreed' | 'single-annotator' | 'adjudicated';
}

/**
 * The final labels (schemas/final-labels.schema.json) of each instance in
 * `instanceIds`, in that order. Each label has one source of truth
 * (docs/formats.md, "Annotations"):
 *
 * - a dimension: the adjudicated value when `adjudicated.jsonl` gives one (the
 *   adjudicator has the last word, even over agreeing annotators), else the
 *   value every annotator agrees on, else the instance's own label when
 *   `options.instanceLabels` gives one;
 * - the diagnosis: the adjudicated one, else instance.json's, else the first
 *   annotator (in set order) who wrote one.
 *
 * Where instance.json gives a value and the annotations decide another
 * (agreed or adjudicated), that is a conflict: nothing is overridden.
 *
 * Throws one E_LABELS JunoError listing every conflict, every unresolved
 * disagreement (instance, dimension, each annotator's label) and every
 * instance nobody annotated, with a hint for the first of them.
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
  const conflicts: LabelConflict[] = [];
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
      const decided: { value: string; source: LabelConflict['source'] } | undefined =
        adjudicated !== undefined
          ? { value: adjudicated, source: 'adjudicated' }
          : values.size === 1
            ? { value: [...values][0]!, source: present.length === 1 ? 'single-annotator' : 'agreed' }
            : undefined;
      if (decided && own?.[d] !== undefined && own[d] !== decided.value) {
        conflicts.push({
          instance: id,
          field: d,
          instanceValue: own[d],
          annotationsValue: decided.value,
          source: decided.source,
        });
      }
      if (decided) {
        labels[d] = decided.value;
        sources[d] = decided.source;
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
    const ownDiagnosis = own?.diagnosis !== undefined && own.diagnosis.trim() !== '' ? own.diagnosis : undefined;
    if (adj?.diagnosis !== undefined && ownDiagnosis !== undefined && adj.diagnosis.trim() !== ownDiagnosis.trim()) {
      conflicts.push({
        instance: id,
        field: 'diagnosis',
        instanceValue: ownDiagnosis,
        annotationsValue: adj.diagnosis,
        source: 'adjudicated',
      });
    }
    if (adj?.diagnosis !== undefined) {
      final.labels.diagnosis = adj.diagnosis;
      final.diagnosisSource = 'adjudicated';
    } else if (ownDiagnosis !== undefined) {
      final.labels.diagnosis = ownDiagnosis;
      final.diagnosisSource = 'instance';
    } else if (annotatorDiagnosis !== undefined) {
      final.labels.diagnosis = annotatorDiagnosis;
      final.diagnosisSource = 'annotator';
    }
    out.push(final);
  }
  if (unresolved.length > 0 || conflicts.length > 0)
    throw unresolvedError(unresolved, conflicts, adjudications[0]?.file);
  return out;
}

function hasText(a: Annotation): boolean {
  return a.diagnosis !== undefined && a.diagnosis.trim() !== '';
}

function unresolvedError(
  unresolved: readonly UnresolvedLabel[],
  conflicts: readonly LabelConflict[],
  adjudicationFile: string | undefined,
): JunoError {
  const list = unresolved.map((u) =>
    u.dimension === undefined
      ? `  - ${u.instance}: no annotator labelled it`
      : `  - ${u.instance}, ${DIMENSION_TITLES[u.dimension]}: ${Object.entries(u.labels)
          .map(([who, v]) => `${who} "${v}"`)
          .join(' vs ')}`,
  );
  const fieldTitle = (f: LabelConflict['field']) => (f === 'diagnosis' ? 'diagnosis' : DIMENSION_TITLES[f]);
  const how = {
    agreed: 'the annotators agree on',
    'single-annotator': 'its one annotator says',
    adjudicated: 'adjudicated.jsonl says',
  };
  const conflictList = conflicts.map(
    (c) =>
      `  - ${c.instance}, ${fieldTitle(c.field)}: instance.json says ${quote(c.instanceValue)}, ${how[c.source]} ${quote(c.annotationsValue)}`,
  );
  const parts: string[] = [];
  if (unresolved.length > 0)
    parts.push(
      `${unresolved.length} unresolved label disagreement${unresolved.length === 1 ? '' : 's'}:\n${list.join('\n')}`,
    );
  if (conflicts.length > 0)
    parts.push(
      `${conflicts.length} label conflict${conflicts.length === 1 ? '' : 's'} between instance.json and the annotations (nothing is overridden):\n${conflictList.join('\n')}`,
    );
  const first = unresolved[0];
  let hint: string;
  let field: string | undefined;
  if (first) {
    field = first.dimension;
    const example =
      first.dimension === undefined
        ? `label ${first.instance} in every annotator's raw/annotations/<annotator>.jsonl (junobench labels sheet / labels import, or labels record)`
        : `add {"instance":${JSON.stringify(first.instance)},"${first.dimension}":${JSON.stringify(Object.values(first.labels)[0] ?? '')}} (with the value you decide on) to raw/annotations/adjudicated.jsonl`;
    hint = `${example}; run \`junobench labels agreement raw/annotations/*.jsonl\` to see every disagreement`;
  } else {
    const c = conflicts[0]!;
    field = c.field;
    hint =
      `decide each label in one place: make raw/instances/${c.instance}/instance.json say the same as the annotations, or remove labels.${c.field} from it ` +
      `(the annotations are the source of truth for ${c.field === 'diagnosis' ? 'a diagnosis instance.json does not give' : 'every label they decide'}); ` +
      'to overrule the annotators, write the value in raw/annotations/adjudicated.jsonl and the same in instance.json';
  }
  return new JunoError('E_LABELS', parts.join('\n'), {
    location: { file: adjudicationFile ?? 'raw/annotations/adjudicated.jsonl', ...(field ? { field } : {}) },
    hint,
  });
}

function quote(text: string): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return JSON.stringify(one.length > 80 ? `${one.slice(0, 79)}…` : one);
}
