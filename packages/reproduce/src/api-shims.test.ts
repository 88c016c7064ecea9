// The shims run under Debian's python3 (pandas, numpy, scikit-learn installed by tools/setup-python.sh).
import { execaRunner } from '@junobench/runtime';
import { describe, expect, it } from 'vitest';
import { insertShim, shimForFailure } from './api-shims.js';

async function python(code: string): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  return execaRunner('/usr/bin/python3', ['-c', code], { timeoutMs: 60_000 });
}

describe('shimForFailure', () => {
  it('has a shim for a removed API with a faithful equivalent, and none for one without', () => {
    expect(shimForFailure({ ename: 'AttributeError', evalue: "'DataFrame' object has no attribute 'ix'" })?.api).toBe(
      'DataFrame.ix',
    );
    expect(shimForFailure({ ename: 'AttributeError', evalue: "module 'numpy' has no attribute 'float'" })?.api).toBe(
      'numpy.float',
    );
    expect(
      shimForFailure({ ename: 'ImportError', evalue: "cannot import name 'load_boston' from 'sklearn.datasets'" }),
    ).toBeUndefined();
    expect(shimForFailure({ ename: 'KeyError', evalue: "'ix'" })).toBeUndefined();
    // A behaviour numpy changed: ragged rows made an object array until 1.24.
    expect(
      shimForFailure({
        ename: 'ValueError',
        evalue:
          'setting an array element with a sequence. The requested array has an inhomogeneous shape after 1 dimensions.',
      })?.removedIn,
    ).toBe('1.24');
    expect(
      shimForFailure({ ename: 'ValueError', evalue: 'setting an array element with a sequence.' }),
    ).toBeUndefined();
  });

  it('inserts a shim once, on top of the cell', () => {
    const shim = shimForFailure({ ename: 'AttributeError', evalue: "'Series' object has no attribute 'as_matrix'" })!;
    const once = insertShim('x = df.as_matrix()', shim);
    expect(once.endsWith('\nx = df.as_matrix()')).toBe(true);
    expect(insertShim(once, shim)).toBe(once);
  });

  it('behaves as the removed API did under the current libraries', async () => {
    const shim = (evalue: string, ename = 'AttributeError') => shimForFailure({ ename, evalue })!.code;
    const code = [
      shim("'DataFrame' object has no attribute 'ix'"),
      shim("module 'numpy' has no attribute 'float'"),
      shim("'DataFrame' object has no attribute 'as_matrix'"),
      shim("No module named 'pandas.tools'", 'ModuleNotFoundError'),
      shim("No module named 'sklearn.cross_validation'", 'ModuleNotFoundError'),
      shim(
        'setting an array element with a sequence. The requested array has an inhomogeneous shape after 1 dimensions. The detected shape was (2,) + inhomogeneous part.',
        'ValueError',
      ),
      shim(
        'setting an array element with a sequence. The requested array has an inhomogeneous shape after 1 dimensions.',
        'ValueError',
      ),
      'import pandas as pd, numpy as np',
      "df = pd.DataFrame({'a': [1, 2, 3], 'b': [4, 5, 6]}, index=['x', 'y', 'z'])",
      "print(df.ix['y', 'b'], df.ix[0, 1], list(df.ix[df['a'] > 1, 'a']), np.float is float, df.as_matrix(['a']).shape)",
      'from pandas.tools.plotting import scatter_matrix',
      'from sklearn.cross_validation import train_test_split',
      "try:\n    df.ix['q', 'a']\nexcept KeyError as e:\n    print('KeyError', e)",
      // As numpy < 1.24: an object array of the ragged rows, with a warning, and its missing second axis the crash.
      "import warnings\nwith warnings.catch_warnings(record=True) as w:\n    warnings.simplefilter('always')\n    r = np.array([[1, 2], [3]])\nprint(r.dtype, r.shape, w[0].category.__name__, np.array([[1, 2], [3, 4]]).dtype)",
      "try:\n    r.shape[1]\nexcept IndexError as e:\n    print('IndexError', e)",
      "try:\n    np.array([[1, 2], [3]], dtype=float)\nexcept ValueError as e:\n    print('ValueError')",
    ].join('\n');
    const r = await python(code);
    expect(r.stderr).toBe('');
    expect(r.stdout.trim().split('\n')).toEqual([
      '5 4 [2, 3] True (3, 1)',
      "KeyError 'q'",
      'object (2,) VisibleDeprecationWarning int64',
      'IndexError tuple index out of range',
      'ValueError',
    ]);
  }, 60_000);
});
