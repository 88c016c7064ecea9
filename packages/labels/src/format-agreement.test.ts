import { describe, expect, it } from 'vitest';
import type { Annotation } from '@junobench/core';
import { computeAgreement } from './compute-agreement.js';
import { formatAgreementReport } from './format-agreement.js';
import type { AnnotationSet } from './read-annotations.js';

function set(annotator: string, rows: [string, string, string, string, string][]): AnnotationSet {
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
const a = set('ann-a', [
  ['p1', 'pandas', 'key error', 'API misuse', 'data preparation'],
  ['p2', 'pandas', 'value error', 'API misuse', 'data preparation'],
  ['n1', 'numpy', 'index error', 'data confusion', 'training'],
  ['t1', 'torch', 'tensor shape mismatch', 'implementation error', 'training'],
]);
const b = set('ann-b', [
  ['p1', 'pandas', 'key error', 'API misuse', 'data preparation'],
  ['p2', 'pandas', 'invalid argument', 'API misuse', 'data preparation'],
  ['n1', 'numpy', 'index error', 'data confusion', 'training'],
  ['t1', 'torch', 'tensor shape mismatch', 'implementation error', 'training'],
  ['extra', 'numpy', 'index error', 'data confusion', 'training'],
]);

describe('formatAgreementReport', () => {
  const report = computeAgreement([a, b], { bootstrap: 100, seed: 1 });
  const text = formatAgreementReport(report, { minKappa: 0.9 });

  it('has a row per dimension with n, observed, chance, kappa, intervals, SE and alpha', () => {
    expect(text).toContain('| dimension | n | observed | chance | κ | CI (bootstrap) | SE | 95% CI (asymptotic) | α |');
    expect(text).toMatch(
      /\| library cause \| 4 \| 1\.000 \| 0\.375 \| 1\.000 \| \[1\.000, 1\.000\] \| 0\.000 \| \[1\.000, 1\.000\] \| 1\.000 \|/,
    );
    expect(text).toMatch(/\| crash type \| 4 \| 0\.750 \|/);
    expect(text).toContain('Fleiss, Cohen & Everitt (1969)');
    expect(text).toContain('100 resamples of the instances, seed "1", 95% percentile interval');
  });

  it('lists the weakest categories and every disagreement', () => {
    expect(text).toContain('| crash type | invalid argument | 0.000 | 0 | 1 | 0 | 0.000 |');
    expect(text).toContain('## Disagreements (1)');
    expect(text).toContain('| p2 | crash type | value error | invalid argument |');
    expect(text).toContain('## Labelled by one annotator only (1)');
    expect(text).toContain('extra (ann-b)');
  });

  it('states the gate', () => {
    expect(text).toMatch(/Below κ 0\.9: crash type \(κ = 0\.\d{3}\)\./);
    expect(formatAgreementReport(report, { minKappa: 0.5 })).toContain('Every dimension reaches κ ≥ 0.5.');
    expect(formatAgreementReport(report)).not.toContain('Every dimension reaches');
  });

  it('caps the printed disagreements', () => {
    expect(formatAgreementReport(report, { maxDisagreements: 0 })).toContain('… and 1 more');
  });

  it('shows undefined statistics as n/a with their reason', () => {
    const same = set('x', [
      ['i1', 'pandas', 'key error', 'API misuse', 'training'],
      ['i2', 'numpy', 'value error', 'API misuse', 'training'],
    ]);
    const t = formatAgreementReport(computeAgreement([same, { ...same, annotator: 'y' }], { bootstrap: 0 }));
    expect(t).toContain('| pipeline stage | 2 | 1.000 | 1.000 | n/a | n/a | n/a | n/a | n/a |');
    expect(t).toContain('- pipeline stage: κ undefined, both annotators labelled every item "training"');
    expect(t).toContain('bootstrap CI: off');
    expect(t).toContain('Every category has one-vs-rest κ = 1.');
    expect(t).toContain('None: the annotators agree on every label.');
  });

  it('adds a pair column with three annotators', () => {
    const t = formatAgreementReport(computeAgreement([a, b, { ...b, annotator: 'ann-c' }], { bootstrap: 0 }));
    expect(t).toContain('| dimension | pair | n |');
    expect(t).toContain('| ann-a – ann-c |');
  });
});

describe('the gate in the Markdown report', () => {
  it('states where the gate comes from, and on failure what raises kappa and that resolving does not', async () => {
    const { computeAgreement } = await import('./compute-agreement.js');
    const mk = (who: string, types: string[]) => ({
      annotator: who,
      annotations: types.map((crashType, i) => ({
        instance: `i_${i}`,
        annotator: who,
        library: i % 2 ? 'pandas' : 'numpy',
        crashType,
        rootCause: i % 2 ? 'API misuse' : 'data confusion',
        pipelineStage: i % 2 ? 'training' : 'data preparation',
      })),
    });
    const report = computeAgreement(
      [
        mk('a', ['key error', 'value error', 'key error', 'type error']),
        mk('b', ['key error', 'key error', 'key error', 'type error']),
      ],
      { bootstrap: 0 },
    );
    const text = formatAgreementReport(report, {
      gate: { minKappa: 0.95, source: 'flag', setting: 0.9, file: 'raw/release.json' },
    });
    expect(text).toContain(
      '## Gate: κ ≥ 0.95 (--min-kappa, for this run only; the setting is 0.9 in raw/release.json)',
    );
    expect(text).toMatch(/Below κ 0\.95: crash type \(κ = 0\.\d{3}\): the gate fails\./);
    expect(text).toMatch(/What raises kappa: .*Resolving does not raise it/);
  });
});
