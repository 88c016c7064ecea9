import { describe, expect, it } from 'vitest';
import type { SourceLabels } from '@junobench/core';
import { normalizeLabels, type NormalizedLabels } from './normalize-labels.js';

describe('normalizeLabels', () => {
  it.each<[string, SourceLabels | undefined, NormalizedLabels]>([
    ['no labels', undefined, {}],
    [
      "JunoBench's own labels pass through, case forgiven",
      { library: 'tensorflow', crashType: 'Key Error', rootCause: 'api misuse', pipelineStage: 'training' },
      { library: 'tensorflow/keras', crashType: 'key error', rootCause: 'API misuse', pipelineStage: 'training' },
    ],
    [
      "the study's finer labels, grouped as the study grouped them",
      {
        library: 'NBspecific',
        crashType: 'function not found',
        rootCause: 'nb specific - execution order',
        pipelineStage: 'evaluation/inference (history plot, metric visualization)',
      },
      {
        library: 'None',
        crashType: 'variable not found',
        rootCause: 'NB specific',
        pipelineStage: 'evaluation/prediction',
      },
    ],
    [
      "labels outside JunoBench's vocabularies are left out",
      {
        crashType: 'out of memory (OOM)',
        rootCause: 'file/path not found or exist',
        pipelineStage: 'environment setup (module not found, file/path not found)',
      },
      {},
    ],
    ['typeerror variants are type errors', { crashType: 'typeerror-notsubscriptable' }, { crashType: 'type error' }],
    ['an unknown library name is kept as written', { library: ' keras_nlp ' }, { library: 'keras_nlp' }],
  ])('%s', (_name, labels, expected) => {
    expect(normalizeLabels(labels)).toEqual(expected);
  });
});
