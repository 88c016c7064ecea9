import { describe, expect, it } from 'vitest';
import { canonicalLibrary, libraryOfModule, LIBRARY_NAMES, ROOT_CAUSES } from './taxonomy.js';
import { suggestClosest } from './text.js';

describe('taxonomy', () => {
  it.each([
    ['tensorflow', 'tensorflow/keras'],
    ['Keras', 'tensorflow/keras'],
    ['NBspecific', 'None'],
    ['scikit-learn', 'sklearn'],
    ['pillow', 'PIL'],
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
    expect(ROOT_CAUSES).toEqual(['API misuse', 'data confusion', 'NB specific', 'implementation error', 'ML model confusion', 'library cause']);
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
