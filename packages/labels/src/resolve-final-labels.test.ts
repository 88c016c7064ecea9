import { describe, expect, it } from 'vitest';
import { checkSchema, JunoError, type Annotation, type Labels } from '@junobench/core';
import { resolveFinalLabels } from './resolve-final-labels.js';
import type { AdjudicationLine, AnnotationSet } from './read-annotations.js';

const base = { library: 'pandas', crashType: 'key error', rootCause: 'API misuse', pipelineStage: 'data preparation' };
function set(annotator: string, rows: Partial<Annotation>[]): AnnotationSet {
  return { annotator, annotations: rows.map((r) => ({ ...base, annotator, instance: 'x', ...r }) as Annotation) };
}

const a = set('a', [
  { instance: 'p1', diagnosis: 'column typo' },
  { instance: 'p2', crashType: 'value error' },
  { instance: 'p3', rootCause: 'data confusion' },
]);
const b = set('b', [
  { instance: 'p1', diagnosis: 'b thinks so too' },
  { instance: 'p2', crashType: 'invalid argument' },
  { instance: 'p3' },
]);

function errorOf(fn: () => unknown): JunoError {
  try {
    fn();
  } catch (e) {
    if (e instanceof JunoError) return e;
    throw e;
  }
  throw new Error('expected a JunoError');
}

describe('resolveFinalLabels', () => {
  const adjudications: AdjudicationLine[] = [
    { instance: 'p2', crashType: 'value error', diagnosis: 'adjudicated diagnosis', file: 'adj.jsonl', line: 1 },
    { instance: 'p3', rootCause: 'data confusion', file: 'adj.jsonl', line: 2 },
  ];

  it('takes agreed values, else the adjudicated ones, in the order of instanceIds', () => {
    const final = resolveFinalLabels([a, b], adjudications, ['p3', 'p1', 'p2']);
    expect(final.map((f) => f.instance)).toEqual(['p3', 'p1', 'p2']);
    expect(final[0]).toEqual({
      instance: 'p3',
      labels: { ...base, rootCause: 'data confusion' },
      sources: { library: 'agreed', crashType: 'agreed', rootCause: 'adjudicated', pipelineStage: 'agreed' },
    });
    expect(final[1]!.labels.diagnosis).toBe('column typo');
    expect(final[1]!.diagnosisSource).toBe('annotator');
    expect(final[2]!.labels).toEqual({ ...base, crashType: 'value error', diagnosis: 'adjudicated diagnosis' });
    expect(final[2]!.diagnosisSource).toBe('adjudicated');
    for (const f of final) expect(checkSchema('final-labels', f)).toEqual([]);
  });

  it("throws one E_LABELS error listing every unresolved disagreement with each annotator's label", () => {
    const e = errorOf(() => resolveFinalLabels([a, b], [], ['p1', 'p2', 'p3']));
    expect(e.code).toBe('E_LABELS');
    expect(e.exitCode).toBe(2);
    expect(e.message).toContain('2 unresolved label disagreements');
    expect(e.message).toContain('p2, crash type: a "value error" vs b "invalid argument"');
    expect(e.message).toContain('p3, root cause: a "data confusion" vs b "API misuse"');
    expect(e.hint).toContain('{"instance":"p2","crashType":"value error"}');
    expect(e.hint).toContain('adjudicated.jsonl');
  });

  it('an instance nobody annotated is unresolved unless the adjudication gives every label', () => {
    expect(errorOf(() => resolveFinalLabels([a, b], adjudications, ['p1', 'ghost'])).message).toContain(
      'ghost: no annotator labelled it',
    );
    const full: AdjudicationLine = { instance: 'ghost', ...base, annotator: 'adjudicated' };
    const [ghost] = resolveFinalLabels([a, b], [full], ['ghost']);
    expect(ghost!.sources).toEqual({
      library: 'adjudicated',
      crashType: 'adjudicated',
      rootCause: 'adjudicated',
      pipelineStage: 'adjudicated',
    });
  });

  it('the adjudicator has the last word, even over agreeing annotators', () => {
    const [p1] = resolveFinalLabels([a, b], [{ instance: 'p1', pipelineStage: 'training' }], ['p1']);
    expect(p1!.labels.pipelineStage).toBe('training');
    expect(p1!.sources.pipelineStage).toBe('adjudicated');
  });

  it("an instance only one annotator labelled takes that annotator's labels", () => {
    const solo = set('c', [{ instance: 'solo', diagnosis: '' }]);
    const [s] = resolveFinalLabels([a, solo], [], ['solo']);
    expect(s!.sources.library).toBe('single-annotator');
    // An empty diagnosis is no diagnosis.
    expect(s!.labels.diagnosis).toBeUndefined();
  });

  it('instance labels resolve remaining disagreements when given, and supply a missing diagnosis', () => {
    const own = new Map<string, Labels>([
      ['p2', { ...base, crashType: 'value error', diagnosis: 'from instance.json' } as Labels],
      ['p3', { ...base, rootCause: 'data confusion' } as Labels],
    ]);
    const final = resolveFinalLabels([a, b], [], ['p2', 'p3'], { instanceLabels: own });
    expect(final[0]!.labels.crashType).toBe('value error');
    expect(final[0]!.sources.crashType).toBe('instance');
    expect(final[0]!.labels.diagnosis).toBe('from instance.json');
    expect(final[0]!.diagnosisSource).toBe('instance');
    expect(final[1]!.sources.rootCause).toBe('instance');
  });

  it('ignores annotations and adjudications of instances not asked for', () => {
    expect(resolveFinalLabels([a, b], [{ instance: 'other', crashType: 'io error' }], ['p1'])).toHaveLength(1);
  });
});

describe('one source of truth per label', () => {
  const a = set('a', [{ instance: 'p1', diagnosis: "a's diagnosis" }]);
  const b = set('b', [{ instance: 'p1', diagnosis: "b's diagnosis" }]);

  it("instance.json's diagnosis is the diagnosis: an annotator's never overrides it", () => {
    const own = new Map([['p1', { ...base, diagnosis: 'the reviewed diagnosis' } as Labels]]);
    const [p1] = resolveFinalLabels([a, b], [], ['p1'], { instanceLabels: own });
    expect(p1!.labels.diagnosis).toBe('the reviewed diagnosis');
    expect(p1!.diagnosisSource).toBe('instance');
  });

  it.each([
    [
      'a label instance.json gives otherwise than the agreeing annotators',
      new Map([['p1', { ...base, crashType: 'value error' } as Labels]]),
      [] as AdjudicationLine[],
      'p1, crash type: instance.json says "value error", the annotators agree on "key error"',
    ],
    [
      'a label instance.json gives otherwise than the adjudication',
      new Map([['p1', { ...base } as Labels]]),
      [{ instance: 'p1', rootCause: 'data confusion' }],
      'p1, root cause: instance.json says "API misuse", adjudicated.jsonl says "data confusion"',
    ],
    [
      'a diagnosis instance.json gives otherwise than the adjudication',
      new Map([['p1', { ...base, diagnosis: 'mine' } as Labels]]),
      [{ instance: 'p1', diagnosis: 'theirs' }],
      'p1, diagnosis: instance.json says "mine", adjudicated.jsonl says "theirs"',
    ],
  ])('%s is a conflict, reported and never overridden', (_what, own, adjudications, line) => {
    const e = errorOf(() => resolveFinalLabels([a, b], adjudications, ['p1'], { instanceLabels: own }));
    expect(e.code).toBe('E_LABELS');
    expect(e.message).toContain('1 label conflict between instance.json and the annotations');
    expect(e.message).toContain(line);
    expect(e.hint).toMatch(/instance\.json/);
  });

  it('conflicts and disagreements are listed together, in one error', () => {
    const c = set('c', [{ instance: 'p2', crashType: 'type error' }]);
    const d = set('d', [{ instance: 'p2', crashType: 'value error' }, { instance: 'p1' }]);
    const own = new Map([['p1', { ...base, library: 'numpy' } as Labels]]);
    const e = errorOf(() => resolveFinalLabels([c, d], [], ['p1', 'p2'], { instanceLabels: own }));
    expect(e.message).toContain('1 unresolved label disagreement');
    expect(e.message).toContain('1 label conflict');
  });
});
