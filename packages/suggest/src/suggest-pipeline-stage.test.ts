import { describe, expect, it } from 'vitest';
import type { PipelineStage } from '@junobench/core';
import { collectCrashFacts, type SuggestInput } from './crash-facts.js';
import { cell, crash, lib } from '../test-helpers/crash.js';
import { suggestPipelineStage } from './suggest-pipeline-stage.js';

describe('suggestPipelineStage', () => {
  it.each<[string, SuggestInput, PipelineStage, RegExp]>([
    [
      'fitting a model',
      crash('ValueError', 'x', [cell('model.fit(X_train, y_train, epochs=5)')]),
      'training',
      /\.fit\(/,
    ],
    [
      'predicting',
      crash('ValueError', 'x', [cell('y_pred = model.predict(X_test)')]),
      'evaluation/prediction',
      /y_pred|\.predict\(/,
    ],
    [
      'a metric',
      crash('ValueError', 'x', [
        cell('f1_score(y_test, y_pred)'),
        lib('sklearn/metrics/_classification.py', 'f1_score(y_true, y_pred)', 'return fbeta_score('),
      ]),
      'evaluation/prediction',
      /sklearn\.metrics|f1_score/,
    ],
    [
      'plotting training curves is evaluation',
      crash('KeyError', "'val_acc'", [cell("plt.plot(history.history['val_acc'])")]),
      'evaluation/prediction',
      /history\.history/,
    ],
    [
      'plotting data',
      crash('ValueError', 'x', [cell("sns.countplot(x='Pclass', data=train)")]),
      'data visualization',
      /sns\./,
    ],
    [
      'a plot of a column is still a plot',
      crash('KeyError', "'BNB'", [cell("plt.scatter(df['BNB'], df['ETH'])")]),
      'data visualization',
      /plt\./,
    ],
    [
      'reading and cleaning data',
      crash('KeyError', "'Id'", [cell("df = df.drop(['Id'], axis=1)")]),
      'data preparation',
      /\.drop\(/,
    ],
    [
      'building a model',
      crash('ValueError', 'x', [cell("model.add(Dense(10, activation='relu'))")]),
      'model construction',
      /\.add\(|Dense\(/,
    ],
    [
      'entering a plotting library',
      crash('ValueError', 'x', [cell('show(a)'), lib('matplotlib/pyplot.py', 'imshow(X)', 'return gca().imshow(X)')]),
      'data visualization',
      /matplotlib/,
    ],
    [
      'no cue at all',
      crash('NameError', "name 'out' is not defined", [cell('out')]),
      'data preparation',
      /most common stage/,
    ],
  ])('%s', (_name, input, stage, evidence) => {
    const d = suggestPipelineStage(collectCrashFacts(input));
    expect(d.value).toBe(stage);
    expect(d.evidence.join(' ')).toMatch(evidence);
  });
});
