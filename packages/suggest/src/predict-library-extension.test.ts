import { describe, expect, it } from 'vitest';
import type { CrashRecord } from '@junobench/core';
import { cell, crash, file, lib } from '../test-helpers/crash.js';
import { extensionBase } from './library-knowledge.js';
import { predictLibrary } from './predict-library.js';

// A library outside the canonical list that is built on a canonical one and
// named after it is labelled by its own name (docs/suggest.md, "Library
// cause", rule 8: the more specific library). Synthetic crashes only.
describe('predictLibrary: libraries named after their base', () => {
  it.each<[string, CrashRecord, string]>([
    [
      'an installed keras extension the crashing line calls',
      crash('TypeError', "Classifier() got multiple values for keyword argument 'preprocessor'", [
        cell('clf = keras_nlp.models.BertClassifier.from_preset("bert_base_en", preprocessor=None)'),
        lib(
          'keras_nlp/src/models/task.py',
          'Task.from_preset(cls, preset, **kwargs)',
          'return cls(backbone=backbone, preprocessor=preprocessor, **kwargs)',
        ),
      ]),
      'keras_nlp',
    ],
    [
      'a torch extension whose name ends with its base, torch raising below it',
      crash(
        'RuntimeError',
        'The size of tensor a (10) must match the size of tensor b (20) at non-singleton dimension 1',
        [
          cell('loss = -mll(output, y)'),
          lib(
            'gpytorch/module.py',
            'Module.__call__(self, *inputs, **kwargs)',
            'outputs = self.forward(*inputs, **kwargs)',
          ),
          lib('torch/functional.py', 'broadcast_tensors(*tensors)', 'return _VF.broadcast_tensors(tensors)'),
        ],
      ),
      'gpytorch',
    ],
    [
      'a torch extension whose name begins with its base',
      crash('RuntimeError', 'Error opening audio file', [
        cell("wave, sr = torchaudio.load('a.wav')"),
        lib('torchaudio/_backend/utils.py', 'load(uri)', 'return backend.load(uri)'),
      ]),
      'torchaudio',
    ],
    [
      'a transformers extension, one part of its name being the base',
      crash('ValueError', 'Input must be a list of strings', [
        cell('emb = st_model.encode(texts)'),
        lib(
          'sentence_transformers/SentenceTransformer.py',
          'SentenceTransformer.encode(self, sentences)',
          'raise ValueError(msg)',
        ),
      ]),
      'sentence_transformers',
    ],
    [
      'a source checkout installed in place (repository folder = package name with dashes)',
      crash('ValueError', 'bad preset', [
        cell('lm.fit(ds, epochs=1)'),
        file(
          '/kaggle/working/keras-nlp/keras_nlp/utils/pipeline_model.py',
          'fit(self, x, y)',
          'return super().fit(x=x, y=y)',
          197,
        ),
        lib('keras/engine/training.py', 'Model.fit(self, x, y)', 'raise ValueError("bad preset")'),
      ]),
      'keras_nlp',
    ],
  ])('%s', (_, record, expected) => {
    const p = predictLibrary(record);
    expect(p.library).toBe(expected);
    expect(p.evidence.join('\n')).toMatch(
      new RegExp(`${expected} is outside the canonical list, built on \\w+ and named after it`),
    );
  });

  it.each<[string, CrashRecord, string]>([
    [
      "a TensorFlow package the knowledge folds into TensorFlow's class",
      crash('ValueError', 'bad handle', [
        cell('layer = hub.KerasLayer(url)'),
        lib('tensorflow_hub/keras_layer.py', 'KerasLayer.__init__(self, handle)', 'raise ValueError("bad handle")'),
      ]),
      'tensorflow/keras',
    ],
    [
      'a package the knowledge gives to its base (sklearn_pandas)',
      crash('TypeError', 'bad column', [
        cell('mapper.fit(df)'),
        lib('sklearn_pandas/dataframe_mapper.py', 'DataFrameMapper.fit(self, X)', 'raise TypeError("bad column")'),
      ]),
      'sklearn',
    ],
    [
      'a package named after no ML library stays outside (no library caused it)',
      crash('Exception', 'failed to decrypt the response', [
        cell("data = yfinance.download('AAPL')"),
        lib('yfinance/data.py', 'decrypt(self, data)', 'raise Exception("failed to decrypt the response")'),
      ]),
      'None',
    ],
    [
      "the notebook's own helper folder named after torch is the user's code",
      crash('IndexError', 'list index out of range', [
        cell('batch = load_batch(paths)'),
        file('/kaggle/working/torch_utils/helpers.py', 'load_batch(paths)', 'return paths[10]'),
      ]),
      'None',
    ],
  ])('not when %s', (_, record, expected) => {
    expect(predictLibrary(record).library).toBe(expected);
  });
});

describe('extensionBase', () => {
  it.each<[string, string | undefined]>([
    ['keras_nlp', 'keras'],
    ['keras_cv', 'keras'],
    ['gpytorch', 'torch'],
    ['torchaudio', 'torch'],
    ['pytorch_lightning', 'torch'],
    ['tensorflow_probability', 'tensorflow'],
    ['sentence_transformers', 'transformers'],
    ['geopandas', 'pandas'],
    ['torch', undefined], // the base itself
    ['keras', undefined],
    ['yfinance', undefined],
    ['KerasLayers', undefined], // not a package name as Python spells them
    ['datasets', undefined],
  ])('%s → %s', (pkg, base) => {
    expect(extensionBase(pkg)?.base).toBe(base);
  });
});
