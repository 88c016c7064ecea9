import { describe, expect, it } from 'vitest';
import { JunoError, type ImageProfile } from '@junobench/core';
import { normalizeDistribution, planImageRecipe, requirementName } from './plan-image-recipe.js';

const apt: ImageProfile = {
  name: 'debian',
  base: 'junobench/base:bookworm',
  installer: 'apt',
  system: ['python3-scipy'],
  kernel: ['python3-ipykernel', 'python3-jupyter-client'],
  modules: {
    numpy: 'python3-numpy',
    sklearn: 'python3-sklearn',
    torch: ['python3-torch'],
    scipy: 'python3-scipy',
    PIL: 'python3-pil',
  },
  unavailable: { tensorflow: 'not packaged in Debian bookworm' },
};

const pip: ImageProfile = {
  name: 'pypi',
  base: 'python:3.11-slim',
  installer: 'pip',
  kernel: ['ipykernel>=6.20.0'],
  modules: {
    sklearn: 'scikit-learn==1.2.2',
    keras_tuner: 'keras-tuner==1.4.7',
    kerastuner: 'keras_tuner==1.4.7',
    numpy: 'numpy==1.26.4',
  },
};

describe('planImageRecipe', () => {
  it("maps the union of the instances' modules to sorted, unique packages", () => {
    const r = planImageRecipe(
      [
        { id: 'a', requires: ['numpy', 'sklearn'] },
        { id: 'b', requires: ['numpy', 'torch', 'sklearn.model_selection'] },
      ],
      apt,
    );
    expect(r.packages).toEqual(['python3-numpy', 'python3-sklearn', 'python3-torch']);
    expect(r.modules).toEqual({ numpy: ['python3-numpy'], sklearn: ['python3-sklearn'], torch: ['python3-torch'] });
    expect(r.kernel).toEqual(['python3-ipykernel', 'python3-jupyter-client']);
    expect(r.unavailable).toEqual({});
    expect(r.base).toBe('junobench/base:bookworm');
    expect(r.python).toBe('python3');
  });

  it.each([
    ['standard-library modules need no package', ['os', 'json', 'collections', 'numpy'], ['python3-numpy']],
    ['a package already in "system" is not repeated', ['scipy', 'numpy'], ['python3-numpy']],
    ['no requirements: kernel stack only', [], []],
  ])('%s', (_name, requires, packages) => {
    expect(planImageRecipe([{ id: 'x', requires }], apt).packages).toEqual(packages);
  });

  it('leaves known-unavailable modules out, with the reason and the instances needing them', () => {
    const r = planImageRecipe(
      [
        { id: 'tf_2', requires: ['tensorflow', 'numpy'] },
        { id: 'tf_1', requires: ['tensorflow'] },
      ],
      apt,
    );
    expect(r.unavailable).toEqual({
      tensorflow: { reason: 'not packaged in Debian bookworm', instances: ['tf_1', 'tf_2'] },
    });
    expect(r.packages).toEqual(['python3-numpy']);
  });

  it('names the module, the instances and the profile file when a module has no package', () => {
    let err: unknown;
    try {
      planImageRecipe(
        [
          { id: 'nlp_1', requires: ['numpy', 'polars'] },
          { id: 'nlp_2', requires: ['polars', 'jax'] },
        ],
        apt,
        { profileFile: 'docker/profiles/debian.json' },
      );
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(JunoError);
    const j = err as JunoError;
    expect(j.code).toBe('E_PROFILE');
    expect(j.message).toContain('jax (needed by nlp_2)');
    expect(j.message).toContain('polars (needed by nlp_1, nlp_2)');
    expect(j.location).toEqual({ file: 'docker/profiles/debian.json', field: 'modules' });
    expect(j.hint).toContain('"unavailable"');
  });

  it('dedupes pip requirements of one distribution written two ways', () => {
    const r = planImageRecipe([{ id: 'a', requires: ['keras_tuner', 'sklearn'] }], pip);
    expect(r.packages).toEqual(['keras-tuner==1.4.7', 'scikit-learn==1.2.2']);
  });

  it('rejects two different pins of one pip distribution', () => {
    const conflicting: ImageProfile = { ...pip, modules: { ...pip.modules, kerastuner: 'keras-tuner==1.0.0' } };
    expect(() => planImageRecipe([{ id: 'a', requires: ['keras_tuner', 'kerastuner'] }], conflicting)).toThrow(
      /keras-tuner==1.0.0.*keras-tuner==1.4.7|keras-tuner==1.4.7.*keras-tuner==1.0.0/,
    );
  });

  it.each([
    ['apt', { ...apt, modules: { numpy: 'python3-numpy; rm -rf /' } }],
    ['pip', { ...pip, modules: { numpy: "numpy==1.0' && curl x" } }],
  ])('refuses %s package names that are not plain names (they go into a shell line)', (_k, profile) => {
    expect(() => planImageRecipe([{ id: 'a', requires: ['numpy'] }], profile as ImageProfile)).toThrow(JunoError);
  });
});

describe('requirement names', () => {
  it.each([
    ['scikit-learn==1.2.2', 'scikit-learn', 'scikit-learn'],
    ['tensorflow_decision_forests==1.10.0', 'tensorflow_decision_forests', 'tensorflow-decision-forests'],
    ['ipykernel>=6.20.0', 'ipykernel', 'ipykernel'],
    ['librosa==0.10.2.post1', 'librosa', 'librosa'],
    ['Pillow', 'Pillow', 'pillow'],
  ])('%s', (req, name, normalized) => {
    expect(requirementName(req)).toBe(name);
    expect(normalizeDistribution(requirementName(req))).toBe(normalized);
  });
});
