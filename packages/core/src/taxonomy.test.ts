import { describe, expect, it } from 'vitest';
import { canonicalLibrary, isLibraryName, libraryOfModule, LIBRARY_NAMES, ROOT_CAUSES } from './taxonomy.js';
import { suggestClosest } from './text.js';
import { checkSchema } from './validate.js';

const suggestionWith = (library: unknown) => ({
  library: { value: library, confidence: 1, evidence: [] },
  crashType: { value: 'key error', confidence: 1, evidence: [] },
  rootCause: { value: 'API misuse', confidence: 1, evidence: [] },
  pipelineStage: { value: 'training', confidence: 1, evidence: [] },
});

describe('taxonomy', () => {
  it.each([
    ['tensorflow', 'tensorflow/keras'],
    ['Keras', 'tensorflow/keras'],
    ['NBspecific', 'None'],
    ['scikit-learn', 'sklearn'],
    ['pillow', 'PIL'],
    ['PyTorch', 'torch'],
    ['opencv-python', 'cv2'],
    ['pandas', 'pandas'],
    ['torchvision', 'torchvision'],
    ['not-a-library', undefined],
  ])('canonicalLibrary(%s) = %s', (label, expected) => {
    expect(canonicalLibrary(label)).toBe(expected);
  });

  it.each([
    ['sklearn.model_selection._split', 'sklearn'],
    ['keras.src.engine.training', 'tensorflow/keras'],
    ['tensorflow.python.framework.errors_impl', 'tensorflow/keras'],
    ['numpy.core.fromnumeric', 'numpy'],
    ['json.decoder', undefined],
  ])('libraryOfModule(%s) = %s', (mod, expected) => {
    expect(libraryOfModule(mod)).toBe(expected);
  });

  it('reads its vocabularies from the schema', () => {
    expect(LIBRARY_NAMES).toContain('None');
    expect(ROOT_CAUSES).toEqual([
      'API misuse',
      'data confusion',
      'NB specific',
      'implementation error',
      'ML model confusion',
      'library cause',
    ]);
  });

  // A library label is a canonical name or, for a library outside the list,
  // its lowercase package name (README, "Formats": label vocabularies); another spelling of a
  // canonical library must be refused, or two labels would mean one library.
  it.each(['torch', 'tensorflow/keras', 'PIL', 'None', 'keras_nlp', 'gpytorch', 'vit_keras'])(
    'the library label %s is valid',
    (name) => {
      expect(checkSchema('label-suggestion', suggestionWith(name))).toEqual([]);
    },
  );

  it.each([
    'keras',
    'tensorflow',
    'tf',
    'scikit_learn',
    'pytorch',
    'pillow',
    'pil',
    'opencv',
    'none',
    'nan',
    'nb_specific',
    'Tensorflow',
    'Keras',
    'sci-kit',
    'torch.nn',
    '',
  ])('the library label %j is refused, with one sentence saying what to write', (name) => {
    const issues = checkSchema('label-suggestion', suggestionWith(name));
    expect(issues.map((i) => i.message)).toEqual([
      expect.stringMatching(
        /^must be a canonical library name .* its package name in lower case .* write the canonical name$/,
      ),
    ]);
  });

  it.each([
    'keras',
    'tensorflow',
    'tf',
    'tf_keras',
    'scikit_learn',
    'pytorch',
    'pillow',
    'pil',
    'opencv',
    'opencv_python',
    'none',
    'nan',
    'nb_specific',
    'pylab',
    'tensorflow_hub',
  ])('the refused spelling %s maps to a canonical name (so pools written with it still normalise)', (name) => {
    const canonical = canonicalLibrary(name);
    expect(canonical !== undefined && isLibraryName(canonical) && canonical !== name).toBe(true);
  });

  it.each([
    ['API Misuse', 'API misuse'],
    ['tensor-shape mismatch', 'tensor shape mismatch'],
    ['data confussion', 'data confusion'],
    ['completely different', undefined],
  ])('suggestClosest(%s) = %s', (v, expected) => {
    expect(suggestClosest(v, [...ROOT_CAUSES, 'tensor shape mismatch'])).toBe(expected);
  });
});
