// The shims run under Debian's python3 (pandas, numpy, scikit-learn installed by tools/setup-python.sh).
import { execaRunner } from '@junobench/runtime';
import { describe, expect, it } from 'vitest';
import { insertShim, shimForFailure, shimForNewerVersion } from './api-shims.js';

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
    expect(
      shimForFailure({
        ename: 'ImportError',
        evalue:
          "cannot import name 'joblib' from 'sklearn.externals' (/usr/lib/python3/dist-packages/sklearn/externals/__init__.py)",
      })?.api,
    ).toBe('sklearn.externals.joblib');
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
      shim("cannot import name 'joblib' from 'sklearn.externals' (/x/sklearn/externals/__init__.py)", 'ImportError'),
      shim("No module named 'sklearn.externals.six'", 'ModuleNotFoundError'),
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
      'from sklearn.externals import joblib\nimport sklearn.externals.six as six\nprint(joblib.dump.__module__, six.PY3)',
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
      'joblib.numpy_pickle True',
      "KeyError 'q'",
      'object (2,) VisibleDeprecationWarning int64',
      'IndexError tuple index out of range',
      'ValueError',
    ]);
  }, 60_000);
});

describe('shimForNewerVersion: the newer library the notebook ran with', () => {
  it('only for a saved crash that depends on it, and the default only where the crash cell calls a statistic', () => {
    const corr = { ename: 'ValueError', evalue: "could not convert string to float: 'male'" };
    expect(shimForNewerVersion(corr, 'df.corr()')?.api).toMatch(/numeric_only=False/);
    // A model fitted on text says the same, and no pandas default is at stake.
    expect(shimForNewerVersion(corr, 'model.fit(X, y)')).toBeUndefined();
    const append = { ename: 'AttributeError', evalue: "'DataFrame' object has no attribute 'append'" };
    expect(shimForNewerVersion(append, 'df = df.append(row)')).toMatchObject({ api: 'DataFrame.append', newer: true });
    expect(shimForNewerVersion({ ename: 'KeyError', evalue: "'append'" }, 'x')).toBeUndefined();
  });

  it("gives Debian's pandas 1.x pandas 2's removals and numeric_only default; a pandas 2 would be left alone", async () => {
    const corr = shimForNewerVersion(
      { ename: 'ValueError', evalue: "could not convert string to float: 'x'" },
      'df.corr()',
    )!;
    const append = shimForNewerVersion(
      { ename: 'AttributeError', evalue: "'Series' object has no attribute 'iteritems'" },
      'x',
    )!;
    const code = [
      'import pandas as pd, warnings',
      "warnings.simplefilter('ignore', FutureWarning)",
      "df = pd.DataFrame({'a': [1, 2, 3], 'b': [2.0, 1.0, 0.5], 's': ['male', 'female', 'male']})",
      "print(pd.__version__.split('.')[0], df.corr().shape, hasattr(df, 'iteritems'))",
      corr.code,
      append.code,
      "print(df[['a', 'b']].corr().shape, df[['a', 'b']].mean().round(2).tolist(), df.corr(numeric_only=True).shape)",
      "for call in (lambda: df.corr(), lambda: df.mean(), lambda: df['a'].iteritems(), lambda: df.iteritems()):\n    try:\n        call()\n    except Exception as e:\n        print(type(e).__name__, e)",
    ].join('\n');
    const r = await python(code);
    expect(r.stderr).toBe('');
    const lines = r.stdout.trim().split('\n');
    // This check is about pandas 1.x (Debian bookworm's): the shims do nothing on a pandas that has these already.
    expect(lines[0]).toBe('1 (2, 2) True');
    expect(lines.slice(1)).toEqual([
      '(2, 2) [2.0, 1.17] (2, 2)',
      "ValueError could not convert string to float: 'male'",
      "TypeError Could not convert ['malefemalemale'] to numeric",
      "AttributeError 'Series' object has no attribute 'iteritems'",
      "AttributeError 'DataFrame' object has no attribute 'iteritems'",
    ]);
    // A pandas that says it is 2.0 already: both shims leave it as it is.
    const as2 = await python(
      [
        'import pandas as pd, warnings',
        "warnings.simplefilter('ignore', FutureWarning)",
        "pd.__version__ = '2.0.3'",
        corr.code,
        append.code,
        "df = pd.DataFrame({'a': [1, 2], 's': ['x', 'y']})",
        "print(df.corr().shape, hasattr(df, 'iteritems'))",
      ].join('\n'),
    );
    expect(as2.stdout.trim()).toBe('(1, 1) True');
  }, 60_000);
});

describe('shimForNewerVersion: a keyword the newer library dropped', () => {
  it('refuses it with the saved message where the runtime still takes it, through the name the notebook uses', async () => {
    const enc = shimForNewerVersion(
      { ename: 'TypeError', evalue: "OneHotEncoder.__init__() got an unexpected keyword argument 'sparse'" },
      'x',
    )!;
    const csv = shimForNewerVersion(
      { ename: 'TypeError', evalue: "read_csv() got an unexpected keyword argument 'error_bad_lines'" },
      'x',
    )!;
    expect(
      shimForNewerVersion({ ename: 'TypeError', evalue: "__init__() got an unexpected keyword argument 'x'" }, 'x'),
    ).toBeUndefined();
    const code = [
      'import io, warnings',
      "warnings.simplefilter('ignore')",
      'import pandas as pd',
      'from sklearn.preprocessing import OneHotEncoder',
      enc.code,
      csv.code,
      "print(OneHotEncoder(handle_unknown='ignore').fit([[1], [2]]).transform([[2]]).toarray().tolist(), len(pd.read_csv(io.StringIO('a\\n1'))))",
      "for call in (lambda: OneHotEncoder(sparse=False), lambda: pd.read_csv(io.StringIO('a\\n1'), error_bad_lines=False)):\n    try:\n        call()\n    except TypeError as e:\n        print(e)",
    ].join('\n');
    const r = await python(code);
    expect(r.stderr).toBe('');
    expect(r.stdout.trim().split('\n')).toEqual([
      '[[0.0, 1.0]] 1',
      "OneHotEncoder.__init__() got an unexpected keyword argument 'sparse'",
      "read_csv() got an unexpected keyword argument 'error_bad_lines'",
    ]);
  }, 60_000);
});

describe("shimForFailure: seaborn's size= of its figure-level plots", () => {
  it('passes size= on as height=, on the module and on names imported from it', async () => {
    const shim = shimForFailure({
      ename: 'TypeError',
      evalue: "FacetGrid.__init__() got an unexpected keyword argument 'size'",
    })!;
    expect(shim.removedIn).toBe('0.12');
    const code = [
      'import matplotlib',
      "matplotlib.use('Agg')",
      'import warnings',
      "warnings.simplefilter('ignore')",
      'import pandas as pd, seaborn as sns',
      'from seaborn import pairplot',
      shim.code,
      "df = pd.DataFrame({'a': [1, 2, 3], 'b': [3, 1, 2], 'c': ['x', 'y', 'x']})",
      "g = sns.FacetGrid(df, col='c', size=2)",
      'p = pairplot(df, size=1.5)',
      'print(g.fig.get_size_inches()[1], p.fig.get_size_inches()[1])',
    ].join('\n');
    const r = await python(code);
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe('2.0 3.0');
  }, 60_000);
});

describe("shimForFailure: matplotlib 3.9's boxplot(tick_labels=) on an older matplotlib", () => {
  it('passes tick_labels= on as labels=, through pyplot and through an Axes', async () => {
    const shim = shimForFailure({
      ename: 'TypeError',
      evalue: "Axes.boxplot() got an unexpected keyword argument 'tick_labels'",
    })!;
    const code = [
      'import matplotlib',
      "matplotlib.use('Agg')",
      'import matplotlib.pyplot as plt',
      shim.code,
      "plt.boxplot([[1, 2, 3], [2, 3, 4]], tick_labels=['a', 'b'])",
      'fig, ax = plt.subplots()',
      "ax.boxplot([[1, 2], [3, 4]], tick_labels=['c', 'd'])",
      'print([t.get_text() for t in plt.figure(1).axes[0].get_xticklabels()], [t.get_text() for t in ax.get_xticklabels()])',
    ].join('\n');
    const r = await python(code);
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe("['a', 'b'] ['c', 'd']");
  }, 60_000);
});

describe("shimForFailure: seaborn's x and y by position (before 0.12)", () => {
  it('only where the failing cell passes them by position to a seaborn plot', () => {
    const column = { ename: 'ValueError', evalue: "could not convert string to float: 'Petrol'" };
    expect(shimForFailure(column, "sns.countplot(df['Fuel_Type'])\nplt.show()")?.api).toBe(
      "seaborn's x and y by position",
    );
    expect(shimForFailure(column, 'sns.countplot(df.Gender)')?.removedIn).toBe('0.12');
    // The message alone, a keyword call, or matplotlib's own boxplot: not this change.
    expect(shimForFailure(column)).toBeUndefined();
    expect(shimForFailure(column, "sns.countplot(x=df['Fuel_Type'])")).toBeUndefined();
    expect(shimForFailure(column, "plt.boxplot(df['Fuel_Type'])")).toBeUndefined();
    const two = {
      ename: 'TypeError',
      evalue:
        'boxplot() takes from 0 to 1 positional arguments but 2 positional arguments (and 1 keyword-only argument) were given',
    };
    expect(shimForFailure(two, "sns.boxplot('Fuel_Type','Selling_Price',data=df)")?.api).toBe(
      "seaborn's x and y by position",
    );
    expect(shimForFailure(two, "plt.boxplot('a', 'b')")).toBeUndefined();
  });

  it('maps positions as seaborn 0.11 did: a frame to data, the others to x, y and hue', async () => {
    const shim = shimForFailure(
      { ename: 'TypeError', evalue: "countplot() got multiple values for argument 'data'" },
      "sns.countplot('c', data=df)",
    )!;
    const code = [
      'import matplotlib',
      "matplotlib.use('Agg')",
      'import warnings',
      "warnings.simplefilter('ignore')",
      'import pandas as pd, seaborn as sns',
      'from seaborn import boxplot',
      shim.code,
      "df = pd.DataFrame({'a': [1, 2, 3, 4], 'b': [3.0, 1.0, 2.0, 5.0], 'c': ['x', 'y', 'x', 'y']})",
      "print(len(sns.countplot(df['c']).patches))",
      "print(len(sns.countplot('c', data=df).patches))",
      "print(boxplot('c', 'b', data=df).get_xlabel(), sns.scatterplot('a', 'b', 'c', df).get_ylabel())",
      "print(sns.regplot('a', 'b', df).get_xlabel(), len(sns.histplot(df['b']).patches) > 0)",
      // A call it cannot map goes through unchanged, and fails as seaborn 0.12 fails it.
      'try:',
      "    sns.regplot('a', 'b', 'c', df)",
      'except TypeError as e:',
      "    print('TypeError', 'positional' in str(e))",
    ].join('\n');
    const r = await python(code);
    expect(r.stderr).toBe('');
    expect(r.stdout.trim().split('\n')).toEqual(['2', '4', 'c b', 'a True', 'TypeError True']);
  }, 60_000);
});

describe('shimForFailure: a random_state for folds that are not shuffled (before scikit-learn 0.24)', () => {
  it('keeps the random_state without effect, as 0.23 did, and still splits in order', async () => {
    const shim = shimForFailure({
      ename: 'ValueError',
      evalue:
        'Setting a random_state has no effect since shuffle is False. You should leave random_state to its default (None), or set shuffle=True.',
    })!;
    expect(shim.removedIn).toBe('0.24');
    const code = [
      'import warnings',
      "warnings.simplefilter('ignore')",
      'from sklearn.model_selection import KFold, StratifiedKFold',
      shim.code,
      'k = KFold(n_splits=3, random_state=7)',
      'print(k.random_state, [list(t) for _, t in k.split(list(range(6)))])',
      'print(StratifiedKFold(n_splits=2, random_state=1).get_n_splits(), KFold(3, shuffle=True, random_state=2).shuffle)',
    ].join('\n');
    const r = await python(code);
    expect(r.stderr).toBe('');
    expect(r.stdout.trim().split('\n')).toEqual(['7 [[0, 1], [2, 3], [4, 5]]', '2 True']);
  }, 60_000);
});
