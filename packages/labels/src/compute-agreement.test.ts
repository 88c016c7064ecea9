import { describe, expect, it } from 'vitest';
import { checkSchema, JunoError, type Annotation } from '@junobench/core';
import { computeAgreement, computeCategoryAgreement, findWeakDimensions } from './compute-agreement.js';
import { computeCohenKappa } from './cohen-kappa.js';
import { computeKrippendorffAlpha } from './krippendorff-alpha.js';
import type { AnnotationSet } from './read-annotations.js';

type Row = [instance: string, library: string, crashType: string, rootCause: string, pipelineStage: string];

function set(annotator: string, rows: Row[]): AnnotationSet {
  return {
    annotator,
    annotations: rows.map(([instance, library, crashType, rootCause, pipelineStage]): Annotation => ({
      instance,
      annotator,
      library,
      crashType,
      rootCause,
      pipelineStage,
    })),
  };
}

const A: Row[] = [
  ['numpy_1', 'numpy', 'unsupported broadcast', 'API misuse', 'data preparation'],
  ['pandas_1', 'pandas', 'key error', 'data confusion', 'data preparation'],
  ['pandas_2', 'pandas', 'value error', 'API misuse', 'data preparation'],
  ['sklearn_1', 'sklearn', 'value error', 'API misuse', 'training'],
  ['torch_1', 'torch', 'tensor shape mismatch', 'implementation error', 'training'],
  ['NBspecific_1', 'None', 'variable not found', 'NB specific', 'evaluation/prediction'],
  ['only_a', 'numpy', 'index error', 'API misuse', 'training'],
];
const B: Row[] = [
  ['numpy_1', 'numpy', 'unsupported broadcast', 'API misuse', 'data preparation'],
  ['pandas_1', 'pandas', 'key error', 'API misuse', 'data preparation'],
  ['pandas_2', 'pandas', 'invalid argument', 'API misuse', 'data preparation'],
  ['sklearn_1', 'sklearn', 'value error', 'API misuse', 'training'],
  ['torch_1', 'torch', 'tensor shape mismatch', 'implementation error', 'training'],
  ['NBspecific_1', 'None', 'variable not found', 'NB specific', 'evaluation/prediction'],
];

describe('computeAgreement', () => {
  const report = computeAgreement([set('a', A), set('b', B)], { bootstrap: 200, seed: 's' });

  it('matches the format of schemas/agreement-report.schema.json', () => {
    expect(checkSchema('agreement-report', report)).toEqual([]);
  });

  it('computes each dimension over the instances both annotated, in instance-id order', () => {
    const crash = report.dimensions.find((d) => d.dimension === 'crashType')!;
    const pair = crash.pairs[0]!;
    const both = ['NBspecific_1', 'numpy_1', 'pandas_1', 'pandas_2', 'sklearn_1', 'torch_1'];
    const pick = (rows: Row[]) => both.map((id) => rows.find((r) => r[0] === id)![2]);
    const expected = computeCohenKappa(pick(A), pick(B));
    expect(pair.n).toBe(6);
    expect(pair.kappa).toBe(expected.kappa);
    expect(pair.se).toBe(expected.se);
    expect(crash.kappa).toBe(pair.kappa);
    // 5/6 observed; marginals a: bcast, key, value×2, shape, var; b: bcast, key, invalid, value, shape, var.
    expect(pair.observed).toBeCloseTo(5 / 6, 12);
    expect(pair.chance).toBeCloseTo((1 + 1 + 2 + 1 + 1) / 36, 12);
    expect(pair.kappa).toBeCloseTo((5 / 6 - 6 / 36) / (1 - 6 / 36), 12);
    expect(pair.bootstrap?.resamples).toBe(200);
  });

  it("computes Krippendorff's alpha over every instance, leaving unpairable ones out", () => {
    const lib = report.dimensions.find((d) => d.dimension === 'library')!;
    expect(lib.alpha.units).toBe(6);
    expect(lib.alpha.alpha).toBe(1);
    const root = report.dimensions.find((d) => d.dimension === 'rootCause')!;
    const units = A.map((r) => [r[3], B.find((b) => b[0] === r[0])?.[3]]);
    expect(root.alpha.alpha).toBeCloseTo(computeKrippendorffAlpha(units).alpha!, 12);
  });

  it('lists disagreements by instance then dimension, and the singly-annotated instances', () => {
    expect(report.disagreements).toEqual([
      { instance: 'pandas_1', dimension: 'rootCause', labels: { a: 'data confusion', b: 'API misuse' } },
      { instance: 'pandas_2', dimension: 'crashType', labels: { a: 'value error', b: 'invalid argument' } },
    ]);
    expect(report.singlyAnnotated).toEqual([{ instance: 'only_a', annotator: 'a' }]);
    expect(report.instances).toBe(7);
  });

  it('one-vs-rest agreement shows the weak categories first', () => {
    const crash = report.dimensions.find((d) => d.dimension === 'crashType')!.pairs[0]!;
    expect(crash.perCategory[0]!.category).toBe('invalid argument');
    expect(crash.perCategory[0]!.kappa).toBe(0);
    const value = crash.perCategory.find((c) => c.category === 'value error')!;
    expect(value).toMatchObject({ counts: [2, 1], both: 1, positiveAgreement: 2 / 3 });
    expect(crash.perCategory.at(-1)!.kappa).toBe(1);
  });

  it('does not depend on the order of lines', () => {
    const shuffled = computeAgreement(
      [set('a', [...A].reverse()), set('b', [B[3]!, B[0]!, B[5]!, B[1]!, B[4]!, B[2]!])],
      { bootstrap: 200, seed: 's' },
    );
    expect(shuffled).toEqual(report);
  });

  it('is reproducible from the seed, and the bootstrap can be turned off', () => {
    expect(computeAgreement([set('a', A), set('b', B)], { bootstrap: 200, seed: 's' })).toEqual(report);
    const other = computeAgreement([set('a', A), set('b', B)], { bootstrap: 200, seed: 't' });
    expect(other.dimensions[1]!.pairs[0]!.bootstrap!.ci).not.toEqual(report.dimensions[1]!.pairs[0]!.bootstrap!.ci);
    const off = computeAgreement([set('a', A), set('b', B)], { bootstrap: 0 });
    expect(off.dimensions.every((d) => d.pairs[0]!.bootstrap === null)).toBe(true);
    expect(off.settings).toEqual({ seed: 'junobench', bootstrap: 0, confidence: 0.95 });
  });

  it("findWeakDimensions applies the gate to each dimension's kappa", () => {
    expect(findWeakDimensions(report, 0.9).map((d) => d.dimension)).toEqual(['crashType', 'rootCause']);
    expect(findWeakDimensions(report, 0.5)).toEqual([]);
  });
});

describe('computeAgreement with three annotators', () => {
  const C: Row[] = B.map((r) => (r[0] === 'torch_1' ? [r[0], r[1], 'runtime error', r[3], r[4]] : r));
  const report = computeAgreement([set('a', A), set('b', B), set('c', C)], { bootstrap: 50 });

  it('reports every pair, and the dimension kappa is the lowest pair', () => {
    const crash = report.dimensions.find((d) => d.dimension === 'crashType')!;
    expect(crash.pairs.map((p) => p.annotators)).toEqual([
      ['a', 'b'],
      ['a', 'c'],
      ['b', 'c'],
    ]);
    expect(crash.kappa).toBe(Math.min(...crash.pairs.map((p) => p.kappa!)));
    expect(crash.alpha.units).toBe(6);
    expect(checkSchema('agreement-report', report)).toEqual([]);
  });

  it("disagreements show every annotator's label", () => {
    expect(report.disagreements.find((d) => d.instance === 'torch_1')).toEqual({
      instance: 'torch_1',
      dimension: 'crashType',
      labels: { a: 'tensor shape mismatch', b: 'tensor shape mismatch', c: 'runtime error' },
    });
  });
});

describe('computeAgreement degenerate cases', () => {
  it('perfect agreement: kappa 1 everywhere, no disagreements', () => {
    const r = computeAgreement(
      [
        set('a', B),
        set(
          'b',
          B.map((x) => [...x] as Row),
        ),
      ],
      { bootstrap: 20 },
    );
    expect(r.dimensions.map((d) => d.kappa)).toEqual([1, 1, 1, 1]);
    expect(r.dimensions.map((d) => d.alpha.alpha)).toEqual([1, 1, 1, 1]);
    expect(r.disagreements).toEqual([]);
  });

  it('a dimension where everyone used one category: kappa and alpha null with reasons, not a gate failure', () => {
    const rows: Row[] = [
      ['x1', 'pandas', 'key error', 'API misuse', 'training'],
      ['x2', 'numpy', 'value error', 'API misuse', 'training'],
    ];
    const r = computeAgreement([set('a', rows), set('b', rows)], { bootstrap: 10 });
    const stage = r.dimensions.find((d) => d.dimension === 'pipelineStage')!;
    expect(stage.kappa).toBeNull();
    expect(stage.pairs[0]!.reason).toMatch(/chance agreement is 1/);
    expect(stage.alpha.alpha).toBeNull();
    expect(stage.pairs[0]!.perCategory[0]!.reason).toMatch(/every item in this category/);
    expect(findWeakDimensions(r, 0.9)).toEqual([]);
    expect(checkSchema('agreement-report', r)).toEqual([]);
  });

  it('one annotator using a single category: kappa 0', () => {
    const a: Row[] = [
      ['1', 'pandas', 'key error', 'API misuse', 'training'],
      ['2', 'pandas', 'key error', 'API misuse', 'training'],
    ];
    const b: Row[] = [
      ['1', 'pandas', 'key error', 'API misuse', 'training'],
      ['2', 'pandas', 'value error', 'API misuse', 'training'],
    ];
    const r = computeAgreement([set('a', a), set('b', b)], { bootstrap: 10 });
    expect(r.dimensions.find((d) => d.dimension === 'crashType')!.kappa).toBe(0);
  });

  it.each([
    {
      name: 'no overlap',
      sets: [set('a', A.slice(0, 2)), set('b', B.slice(2))],
      code: 'E_LABELS',
      text: 'no instance is labelled by two annotators',
    },
    { name: 'one annotator', sets: [set('a', A)], code: 'E_USAGE', text: 'at least two' },
    {
      name: 'twice the same annotator',
      sets: [set('a', A), set('a', B)],
      code: 'E_LABELS',
      text: 'appears in two files',
    },
  ])('$name → $code', ({ sets, code, text }) => {
    let error: unknown;
    try {
      computeAgreement(sets);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(JunoError);
    expect(error).toMatchObject({ code, message: expect.stringContaining(text) });
  });

  it.each([{ bootstrap: -1 }, { bootstrap: 2.5 }, { confidence: 1.5 }])('rejects options %o', (options) => {
    expect(() => computeAgreement([set('a', A), set('b', B)], options)).toThrow(JunoError);
  });
});

describe('computeCategoryAgreement', () => {
  it("one-vs-rest kappa is Cohen's kappa of the binary recoding", () => {
    const a = ['x', 'y', 'x', 'z', 'x', 'y'];
    const b = ['x', 'x', 'x', 'z', 'y', 'y'];
    const rows = computeCategoryAgreement(a, b, ['x', 'y', 'z']);
    const x = rows.find((r) => r.category === 'x')!;
    const bin = (l: string[]) => l.map((v) => (v === 'x' ? '1' : '0'));
    expect(x.kappa).toBe(computeCohenKappa(bin(a), bin(b)).kappa);
    expect(x).toMatchObject({ counts: [3, 3], both: 2, positiveAgreement: 2 / 3 });
    // Weakest first: y (κ = 1/4), x (κ = 1/3), z (κ = 1).
    expect(rows.map((r) => r.category)).toEqual(['y', 'x', 'z']);
    expect(rows[0]!.kappa).toBeCloseTo(0.25, 12);
  });
});
