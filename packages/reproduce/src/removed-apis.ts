/** APIs that libraries removed: a notebook written for an older version fails on them in a current runtime. */
interface RemovedApi {
  library: string;
  /** How the failure names it: `'DataFrame' object has no attribute 'ix'`, `cannot import name 'x' from 'm'`. */
  pattern: RegExp;
  api: string;
  removedIn: string;
}

const REMOVED: readonly RemovedApi[] = [
  ...[
    'ix',
    'as_matrix',
    'get_value',
    'set_value',
    'sortlevel',
    'convert_objects',
    'get_dtype_counts',
    'ftypes',
    'to_panel',
    'reindex_axis',
    'from_csv',
    'irow',
    'icol',
  ].map((a): RemovedApi => ({
    library: 'pandas',
    pattern: new RegExp(`'(?:DataFrame|Series)' object has no attribute '${a}'`),
    api: `DataFrame.${a}`,
    removedIn: '1.0',
  })),
  ...['append', 'iteritems', 'lookup', 'mad', 'swapaxes', 'tshift'].map((a): RemovedApi => ({
    library: 'pandas',
    pattern: new RegExp(`'(?:DataFrame|Series)' object has no attribute '${a}'`),
    api: `DataFrame.${a}`,
    removedIn: '2.0',
  })),
  { library: 'pandas', pattern: /No module named 'pandas\.tools/, api: 'pandas.tools', removedIn: '0.25' },
  { library: 'pandas', pattern: /No module named 'pandas\.io\.data/, api: 'pandas.io.data', removedIn: '0.19' },
  ...['float', 'int', 'bool', 'object', 'str', 'long', 'unicode', 'complex'].map((a): RemovedApi => ({
    library: 'numpy',
    pattern: new RegExp(`module 'numpy' has no attribute '${a}'`),
    api: `numpy.${a}`,
    removedIn: '1.24',
  })),
  ...['plot_confusion_matrix', 'plot_roc_curve', 'plot_precision_recall_curve', 'load_boston', 'Imputer'].map(
    (a): RemovedApi => ({
      library: 'sklearn',
      pattern: new RegExp(`cannot import name '${a}' from 'sklearn`),
      api: `sklearn's ${a}`,
      removedIn: a === 'Imputer' ? '0.22' : '1.2',
    }),
  ),
  {
    library: 'sklearn',
    pattern: /No module named 'sklearn\.cross_validation'/,
    api: 'sklearn.cross_validation',
    removedIn: '0.20',
  },
  // sklearn.externals held vendored copies of joblib and six; 0.21 made them aliases of the packages, 0.23
  // took them away.
  ...['joblib', 'six'].map((m): RemovedApi => ({
    library: 'sklearn',
    pattern: new RegExp(
      `cannot import name '${m}' from 'sklearn\\.externals'|No module named 'sklearn\\.externals\\.${m}'`,
    ),
    api: `sklearn.externals.${m}`,
    removedIn: '0.23',
  })),
  {
    // statsmodels 0.13 kept the module, its classes raising NotImplementedError.
    library: 'statsmodels',
    pattern: /statsmodels\.tsa\.arima_model\.ARMA and statsmodels\.tsa\.arima_model\.ARIMA have been removed/,
    api: 'statsmodels.tsa.arima_model.ARMA and ARIMA',
    removedIn: '0.13',
  },
  {
    library: 'seaborn',
    pattern: /module 'seaborn' has no attribute 'tsplot'/,
    api: 'seaborn.tsplot',
    removedIn: '0.10',
  },
];

/** Pure: the API a library removed that a run's failure names, if any (`DataFrame.ix`, removed in pandas 1.0). */
export function findRemovedApi(observed: {
  ename: string;
  evalue: string;
}): { library: string; api: string; removedIn: string } | undefined {
  if (
    !/^(?:AttributeError|ImportError|ModuleNotFoundError|NotImplementedError)$/.test(
      observed.ename.split('.').pop() ?? '',
    )
  )
    return undefined;
  const hit = REMOVED.find((r) => r.pattern.test(observed.evalue));
  return hit ? { library: hit.library, api: hit.api, removedIn: hit.removedIn } : undefined;
}
