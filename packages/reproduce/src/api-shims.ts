import { findRemovedApi } from './removed-apis.js';

/**
 * Compatibility shims for APIs a library removed that have a faithful
 * equivalent in the current one (a renamed method, an alias of a builtin, a
 * moved module): a notebook written for the older version then runs on
 * instead of stopping at the first use. Only these: an API without a faithful
 * equivalent (`load_boston`, `seaborn.tsplot`) stays `needs-package`.
 */
export interface ApiShim {
  /** The API as findRemovedApi names it (`DataFrame.ix`). */
  api: string;
  library: string;
  removedIn: string;
  /** Python put at the top of the cell that first used it: defines the API again on the current library. */
  code: string;
  /** A behaviour the library changed (not an API it removed): what the shim gives back. */
  behaviour?: string;
  /** The shim gives an older library the newer version's removal or behaviour (shimForNewerVersion); `library` may then be '' (not known). */
  newer?: boolean;
}

// ix: label-based first (.loc), positional (.iloc) when the key is made of integers and .loc refused it, as ix did.
const IX = [
  'import pandas as _jb_pd',
  'class _JbIx:',
  '    def __init__(self, obj): self.obj = obj',
  '    def _ints(self, k):',
  '        if isinstance(k, tuple): return all(self._ints(x) for x in k)',
  '        if isinstance(k, slice): return all(v is None or isinstance(v, int) for v in (k.start, k.stop, k.step))',
  '        if isinstance(k, list): return all(isinstance(v, int) for v in k)',
  '        return isinstance(k, int)',
  '    def __getitem__(self, k):',
  '        try: return self.obj.loc[k]',
  '        except (KeyError, TypeError) as e:',
  '            if not self._ints(k): raise',
  '            try: return self.obj.iloc[k]',
  '            except Exception: raise e',
  '    def __setitem__(self, k, v):',
  '        try: self.obj.loc[k] = v',
  '        except (KeyError, TypeError) as e:',
  '            if not self._ints(k): raise',
  '            try: self.obj.iloc[k] = v',
  '            except Exception: raise e',
  '_jb_pd.DataFrame.ix = property(_JbIx); _jb_pd.Series.ix = property(_JbIx)',
];

const PANDAS: Readonly<Record<string, string[]>> = {
  'DataFrame.ix': IX,
  'DataFrame.as_matrix': [
    'import pandas as _jb_pd',
    '_jb_pd.DataFrame.as_matrix = lambda self, columns=None: (self if columns is None else self[columns]).values',
    '_jb_pd.Series.as_matrix = lambda self: self.values',
  ],
  'DataFrame.get_value': [
    'import pandas as _jb_pd',
    '_jb_pd.DataFrame.get_value = lambda self, i, c, takeable=False: self.iat[i, c] if takeable else self.at[i, c]',
    '_jb_pd.Series.get_value = lambda self, i, takeable=False: self.iat[i] if takeable else self.at[i]',
  ],
  'DataFrame.set_value': [
    'import pandas as _jb_pd',
    'def _jb_set_value(self, i, c, v=None, takeable=False):',
    '    if isinstance(self, _jb_pd.Series): self.at[i] = c',
    '    else: self.at[i, c] = v',
    '    return self',
    '_jb_pd.DataFrame.set_value = _jb_set_value; _jb_pd.Series.set_value = _jb_set_value',
  ],
  'DataFrame.sortlevel': [
    'import pandas as _jb_pd',
    'def _jb_sortlevel(self, level=0, axis=0, ascending=True, inplace=False, sort_remaining=True):',
    '    return self.sort_index(level=level, axis=axis, ascending=ascending, inplace=inplace, sort_remaining=sort_remaining)',
    '_jb_pd.DataFrame.sortlevel = _jb_sortlevel; _jb_pd.Series.sortlevel = _jb_sortlevel',
  ],
  'DataFrame.reindex_axis': [
    'import pandas as _jb_pd',
    '_jb_pd.DataFrame.reindex_axis = lambda self, labels, axis=0, **kw: self.reindex(labels, axis=axis, **kw)',
    '_jb_pd.Series.reindex_axis = lambda self, labels, axis=0, **kw: self.reindex(labels, **kw)',
  ],
  'DataFrame.irow': ['import pandas as _jb_pd', '_jb_pd.DataFrame.irow = lambda self, i: self.iloc[i]'],
  'DataFrame.icol': ['import pandas as _jb_pd', '_jb_pd.DataFrame.icol = lambda self, i: self.iloc[:, i]'],
  'pandas.tools': [
    'import sys as _jb_sys, types as _jb_types, pandas as _jb_pd, pandas.plotting as _jb_plotting',
    "_jb_tools = _jb_types.ModuleType('pandas.tools'); _jb_tools.plotting = _jb_plotting",
    "_jb_tools.merge = _jb_types.ModuleType('pandas.tools.merge')",
    '_jb_tools.merge.concat = _jb_pd.concat; _jb_tools.merge.merge = _jb_pd.merge',
    "_jb_sys.modules.update({'pandas.tools': _jb_tools, 'pandas.tools.plotting': _jb_plotting, 'pandas.tools.merge': _jb_tools.merge})",
  ],
};

// numpy's aliases of builtins, expired in 1.24: exactly the builtins they were.
const NUMPY_ALIASES = [
  'import numpy as _jb_np',
  "for _jb_n, _jb_t in {'float': float, 'int': int, 'bool': bool, 'object': object, 'str': str, 'long': int, 'unicode': str, 'complex': complex}.items():",
  '    setattr(_jb_np, _jb_n, _jb_t)',
];

const SKLEARN: Readonly<Record<string, string[]>> = {
  'sklearn.cross_validation': [
    'import sys as _jb_sys, types as _jb_types, sklearn.model_selection as _jb_ms',
    "_jb_cv = _jb_types.ModuleType('sklearn.cross_validation')",
    '_jb_cv.train_test_split = _jb_ms.train_test_split; _jb_cv.cross_val_score = _jb_ms.cross_val_score',
    '_jb_cv.cross_val_predict = _jb_ms.cross_val_predict',
    "_jb_sys.modules['sklearn.cross_validation'] = _jb_cv",
  ],
  // The packages themselves, as sklearn 0.21 and 0.22 gave them (a deprecation alias of each).
  'sklearn.externals.joblib': externalsShim('joblib'),
  'sklearn.externals.six': externalsShim('six'),
  "sklearn's plot_confusion_matrix": displayShim('plot_confusion_matrix', 'ConfusionMatrixDisplay'),
  "sklearn's plot_roc_curve": displayShim('plot_roc_curve', 'RocCurveDisplay'),
  "sklearn's plot_precision_recall_curve": displayShim('plot_precision_recall_curve', 'PrecisionRecallDisplay'),
};

function externalsShim(module: string): string[] {
  return [
    `import sys as _jb_sys, sklearn.externals as _jb_ext, ${module} as _jb_${module}`,
    `_jb_ext.${module} = _jb_${module}; _jb_sys.modules['sklearn.externals.${module}'] = _jb_${module}`,
  ];
}

function displayShim(name: string, display: string): string[] {
  return [
    'import sklearn.metrics as _jb_metrics',
    `_jb_metrics.${name} = lambda estimator, X, y, **kw: _jb_metrics.${display}.from_estimator(estimator, X, y, **kw)`,
  ];
}

function shimCode(api: string): string[] | undefined {
  if (api.startsWith('numpy.')) return NUMPY_ALIASES;
  return PANDAS[api] ?? SKLEARN[api];
}

// seaborn 0.12 made every argument but `data` keyword-only; 0.11 took x and y (and hue) by position, with a warning,
// and 0.10 without one. A notebook of that time that passes them by position now fails: two positions are a
// TypeError, a name and `data=` are two values for `data`, and a single column (`sns.countplot(df.Gender)`) is taken
// for wide-form data, whose text then fails as numbers. The shim maps positions as 0.11 did: a frame (or a dict) is
// `data`, the others x, y and hue in turn; a call it cannot map is passed on unchanged.
const SEABORN_HUE =
  'boxplot|violinplot|boxenplot|stripplot|swarmplot|barplot|pointplot|countplot|catplot|scatterplot|lineplot|relplot|lmplot';
const SEABORN_XY = 'regplot|residplot|jointplot|kdeplot|rugplot';
const SEABORN_CALL = `(?<![\\w.])(?:sns|sb|seaborn)\\.(?:${SEABORN_HUE}|${SEABORN_XY})\\(`;
const SEABORN_POSITIONAL_CODE = [
  'import seaborn as _jb_sns, functools as _jb_ft',
  "if not getattr(_jb_sns, '_jb_positional', False):",
  '    def _jb_by_position(f, names):',
  '        @_jb_ft.wraps(f)',
  '        def g(*args, **kw):',
  '            if args:',
  '                mapped, free = {}, [n for n in names if n not in kw]',
  '                for a in args:',
  "                    if (hasattr(a, 'columns') or isinstance(a, dict)) and 'data' not in kw and 'data' not in mapped:",
  "                        mapped['data'] = a",
  '                    elif free:',
  '                        mapped[free.pop(0)] = a',
  '                    else:',
  '                        return f(*args, **kw)',
  '                args, kw = (), {**kw, **mapped}',
  '            return f(*args, **kw)',
  '        return g',
  `    for _jb_n in ${JSON.stringify(SEABORN_HUE)}.split('|') + ${JSON.stringify(SEABORN_XY)}.split('|'):`,
  '        _jb_f = getattr(_jb_sns, _jb_n, None)',
  '        if _jb_f is None:',
  '            continue',
  `        _jb_w = _jb_by_position(_jb_f, ('x', 'y', 'hue') if _jb_n in ${JSON.stringify(SEABORN_HUE)}.split('|') else ('x', 'y'))`,
  '        setattr(_jb_sns, _jb_n, _jb_w)',
  '        for _jb_k, _jb_v in list(globals().items()):',
  '            if _jb_v is _jb_f:',
  '                globals()[_jb_k] = _jb_w',
  '    _jb_sns._jb_positional = True',
];
const SEABORN_POSITIONAL_ENTRY = {
  library: 'seaborn',
  api: "seaborn's x and y by position",
  removedIn: '0.12',
  behaviour:
    'seaborn 0.12 made every argument of its plots but data keyword-only; before, x, y and hue could be given by position (0.11 warned), as the shim makes them again',
  code: SEABORN_POSITIONAL_CODE,
};
const SEABORN_POSITIONAL = [
  {
    ...SEABORN_POSITIONAL_ENTRY,
    ename: 'TypeError',
    pattern: new RegExp(
      `^(?:${SEABORN_HUE}|${SEABORN_XY})\\(\\) (?:takes from 0 to 1 positional arguments? but \\d+|got multiple values for argument 'data')`,
    ),
    source: new RegExp(SEABORN_CALL),
  },
  // A single column by position: wide-form data to 0.12, whose values then fail (text as numbers). Only where the
  // cell passes a frame's column (`df.x`, `df['x']`) by position to one of these plots.
  ...['ValueError', 'TypeError'].map((ename) => ({
    ...SEABORN_POSITIONAL_ENTRY,
    ename,
    pattern: /./,
    source: new RegExp(`${SEABORN_CALL}\\s*[A-Za-z_]\\w*(?:\\.[A-Za-z_]\\w*|\\[[^\\]]+\\])\\s*[,)]`),
  })),
];

/**
 * Behaviours a library changed that an older version's notebook relied on, each with the older behaviour's exact
 * equivalent: numpy made an object array of ragged nested sequences (with a VisibleDeprecationWarning since 1.20)
 * until 1.24 made it an error; code that went on to index that array crashed otherwise, or not at all.
 */
const CHANGED: readonly {
  library: string;
  ename: string;
  pattern: RegExp;
  /** The failing cell's code must match too (a message alone does not tell the change from another failure). */
  source?: RegExp;
  api: string;
  removedIn: string;
  behaviour: string;
  code: string[];
}[] = [
  {
    library: 'numpy',
    ename: 'ValueError',
    pattern: /setting an array element with a sequence\. The requested array has an inhomogeneous shape/,
    api: 'numpy object arrays of ragged sequences',
    removedIn: '1.24',
    behaviour:
      'numpy 1.24 made an array of ragged nested sequences an error; before, it was an array of objects (with a VisibleDeprecationWarning since 1.20), as the shim makes it again',
    code: [
      'import numpy as _jb_np, warnings as _jb_warnings',
      "if not getattr(_jb_np, '_jb_ragged', False):",
      "    _jb_VDW = getattr(_jb_np, 'VisibleDeprecationWarning', None) or _jb_np.exceptions.VisibleDeprecationWarning",
      '    def _jb_ragged(f):',
      '        def g(obj, *args, **kw):',
      '            try: return f(obj, *args, **kw)',
      '            except ValueError as e:',
      "                if 'inhomogeneous' not in str(e) or args or kw.get('dtype') is not None: raise",
      "                _jb_warnings.warn('Creating an ndarray from ragged nested sequences is deprecated', _jb_VDW, stacklevel=2)",
      "                kw['dtype'] = object",
      '                return f(obj, **kw)',
      '        return g',
      '    _jb_np.array, _jb_np.asarray, _jb_np._jb_ragged = _jb_ragged(_jb_np.array), _jb_ragged(_jb_np.asarray), True',
    ],
  },
  {
    library: 'seaborn',
    ename: 'TypeError',
    pattern:
      /(?:FacetGrid\.__init__|PairGrid\.__init__|JointGrid\.__init__|pairplot|lmplot|jointplot|factorplot)\(\) got an unexpected keyword argument 'size'/,
    api: "seaborn's size= of its figure-level plots",
    removedIn: '0.12',
    behaviour:
      "seaborn renamed the figure-level plots' size= to height= in 0.9 and took size= away in 0.12; the shim passes size= on as height=, as the older versions did",
    code: [
      'import seaborn as _jb_sns, functools as _jb_ft',
      "if not getattr(_jb_sns, '_jb_size', False):",
      '    def _jb_height(f):',
      '        @_jb_ft.wraps(f)',
      '        def g(*args, **kw):',
      "            if 'size' in kw and 'height' not in kw:",
      "                kw['height'] = kw.pop('size')",
      '            return f(*args, **kw)',
      '        return g',
      "    for _jb_n in ('pairplot', 'lmplot', 'jointplot'):",
      '        _jb_f = getattr(_jb_sns, _jb_n)',
      '        _jb_w = _jb_height(_jb_f)',
      '        setattr(_jb_sns, _jb_n, _jb_w)',
      '        for _jb_k, _jb_v in list(globals().items()):',
      '            if _jb_v is _jb_f:',
      '                globals()[_jb_k] = _jb_w',
      '    for _jb_c in (_jb_sns.FacetGrid, _jb_sns.PairGrid, _jb_sns.JointGrid):',
      '        _jb_c.__init__ = _jb_height(_jb_c.__init__)',
      '    _jb_sns._jb_size = True',
    ],
  },
  {
    library: 'scikit-learn',
    ename: 'ValueError',
    pattern: /^Setting a random_state has no effect since shuffle is False/,
    api: 'a random_state for folds that are not shuffled',
    removedIn: '0.24',
    behaviour:
      'scikit-learn 0.24 made a random_state given to KFold or StratifiedKFold without shuffle=True an error; before, it was kept and had no effect (0.22 and 0.23 warned), as the shim makes it again',
    code: [
      'import sklearn.model_selection._split as _jb_split, warnings as _jb_warnings',
      "if not getattr(_jb_split._BaseKFold, '_jb_random_state', False):",
      '    _jb_kfold_init = _jb_split._BaseKFold.__init__',
      '    def _jb_unshuffled(self, n_splits, *, shuffle, random_state):',
      '        if not shuffle and random_state is not None:',
      "            _jb_warnings.warn('Setting a random_state has no effect since shuffle is False. You should leave '",
      "                              'random_state to its default (None), or set shuffle=True.', FutureWarning)",
      '            _jb_kfold_init(self, n_splits, shuffle=shuffle, random_state=None)',
      '            self.random_state = random_state',
      '        else:',
      '            _jb_kfold_init(self, n_splits, shuffle=shuffle, random_state=random_state)',
      '    _jb_split._BaseKFold.__init__ = _jb_unshuffled',
      '    _jb_split._BaseKFold._jb_random_state = True',
    ],
  },
  ...SEABORN_POSITIONAL,
  {
    // The other way round: a keyword a newer matplotlib added for one the runtime's has (the notebook's is newer).
    library: 'matplotlib',
    ename: 'TypeError',
    pattern: /boxplot\(\) got an unexpected keyword argument 'tick_labels'/,
    api: "matplotlib's boxplot(tick_labels=) on an older matplotlib",
    removedIn: '3.9',
    behaviour:
      "matplotlib 3.9 renamed boxplot's labels= to tick_labels=, which this runtime's older matplotlib does not take; the shim passes tick_labels= on as labels=, as 3.9 does",
    code: [
      'import matplotlib.axes as _jb_axes, matplotlib.pyplot as _jb_plt, functools as _jb_ft',
      "if not getattr(_jb_axes.Axes.boxplot, '_jb_tick_labels', False):",
      '    def _jb_labels(f):',
      '        @_jb_ft.wraps(f)',
      '        def g(*args, **kw):',
      "            if 'tick_labels' in kw and 'labels' not in kw:",
      "                kw['labels'] = kw.pop('tick_labels')",
      '            return f(*args, **kw)',
      '        g._jb_tick_labels = True',
      '        return g',
      '    _jb_axes.Axes.boxplot = _jb_labels(_jb_axes.Axes.boxplot)',
      '    _jb_plt.boxplot = _jb_labels(_jb_plt.boxplot)',
    ],
  },
];

/**
 * Pure: the shim for the removed API (or changed behaviour) a run's failure names, when it has a faithful one.
 * `source`: the failing cell's code, which some changes need to be told from other failures (without it, none of
 * those is found).
 */
export function shimForFailure(observed: { ename: string; evalue: string }, source?: string): ApiShim | undefined {
  const changed = CHANGED.find(
    (c) =>
      c.ename === observed.ename.split('.').pop() &&
      c.pattern.test(observed.evalue) &&
      (!c.source || (source !== undefined && c.source.test(source))),
  );
  if (changed)
    return {
      library: changed.library,
      api: changed.api,
      removedIn: changed.removedIn,
      behaviour: changed.behaviour,
      code: [
        `# junobench: ${changed.api} again (removed in ${changed.library} ${changed.removedIn})`,
        ...changed.code,
      ].join('\n'),
    };
  const removed = findRemovedApi(observed);
  const code = removed ? shimCode(removed.api) : undefined;
  if (!removed || !code) return undefined;
  return {
    ...removed,
    code: [`# junobench: ${removed.api} again (removed in ${removed.library} ${removed.removedIn})`, ...code].join(
      '\n',
    ),
  };
}

/** Pure: a cell's source with the shim on top (once: a cell that has it already is returned as it is). */
export function insertShim(source: string, shim: ApiShim): string {
  const first = shim.code.split('\n')[0]!;
  if (source.includes(first)) return source;
  return `${shim.code}\n${source}`;
}

/**
 * Behaviours a newer library version has that the runtime's older one lacks, which a saved crash can depend on
 * (the notebook ran with the newer one): pandas 2.0 made `numeric_only=False` the default of a frame's statistics,
 * so `df.corr()` on a frame with text fails where pandas 1.x left the text out.
 */
const NEWER: readonly {
  library: string;
  ename: RegExp;
  pattern: RegExp;
  /** The crash cell calls one of these. */
  calls: RegExp;
  api: string;
  since: string;
  behaviour: string;
  code: (guard: string) => string[];
}[] = [
  {
    library: 'pandas',
    ename: /^(?:ValueError|TypeError)$/,
    pattern: /could not convert string to float|Could not convert .* to numeric/,
    calls: /\.(?:corr|cov|mean|median|std|var|sem|skew|kurt|quantile)\(/,
    api: "numeric_only=False as the frame statistics' default",
    since: '2.0',
    behaviour:
      "pandas 2.0 made numeric_only=False the default of a frame's statistics (corr, cov, mean, median, std, var…): text columns fail them instead of being left out, as the shim makes them do",
    code: (guard) => [
      'import pandas as _jb_pd, functools as _jb_ft',
      `if ${guard} and not getattr(_jb_pd.DataFrame, '_jb_numeric_only', False):`,
      '    def _jb_strict(f):',
      '        @_jb_ft.wraps(f)',
      '        def g(self, *args, **kw):',
      "            kw.setdefault('numeric_only', False)",
      '            return f(self, *args, **kw)',
      '        return g',
      "    for _jb_m in ('corr', 'cov', 'mean', 'median', 'std', 'var', 'sem', 'skew', 'kurt', 'quantile'):",
      '        setattr(_jb_pd.DataFrame, _jb_m, _jb_strict(getattr(_jb_pd.DataFrame, _jb_m)))',
      '    _jb_pd.DataFrame._jb_numeric_only = True',
    ],
  },
];

/** Python: whether `module`'s version is older than `version` (major.minor). */
function olderThan(alias: string, version: string): string {
  const [major, minor] = version.split('.').map(Number);
  return `tuple(int(x) for x in __import__('re').findall(r'\\d+', ${alias}.__version__)[:2]) < (${major}, ${minor ?? 0})`;
}

/**
 * Pure: a shim that gives the runtime's older library the behaviour of the newer one the notebook ran with, when the
 * saved crash depends on it: an API the newer version removed (the saved crash names it: `'DataFrame' object has no
 * attribute 'append'`) is removed again, or a changed default (NEWER) is taken. The shim checks the version itself:
 * on a library as new as the notebook's it does nothing. Meant for a run that went past the crash cell without the
 * saved crash; `crashSource` is that cell's code.
 */
export function shimForNewerVersion(
  crash: { ename: string; evalue: string },
  crashSource: string,
): ApiShim | undefined {
  const ename = crash.ename.split('.').pop() ?? '';
  const newer = NEWER.find((n) => n.ename.test(ename) && n.pattern.test(crash.evalue) && n.calls.test(crashSource));
  if (newer) {
    return {
      library: newer.library,
      api: newer.api,
      removedIn: newer.since,
      behaviour: newer.behaviour,
      newer: true,
      code: [
        `# junobench: ${newer.api}, as in ${newer.library} ${newer.since} (the notebook's)`,
        ...newer.code(olderThan('_jb_pd', newer.since)),
      ].join('\n'),
    };
  }
  const keyword = ename === 'TypeError' ? rejectedKeywordShim(crash.evalue) : undefined;
  if (keyword) return keyword;
  const removed = findRemovedApi(crash);
  if (!removed || ename !== 'AttributeError') return undefined;
  const frame = /'(?:DataFrame|Series)' object has no attribute '(\w+)'/.exec(crash.evalue);
  const mod = /^module '([\w.]+)' has no attribute '(\w+)'/.exec(crash.evalue);
  let code: string[];
  if (frame && removed.library === 'pandas') {
    code = [
      'import pandas as _jb_pd',
      `if ${olderThan('_jb_pd', removed.removedIn)}:`,
      '    for _jb_c in (_jb_pd.DataFrame, _jb_pd.Series):',
      '        for _jb_k in _jb_c.__mro__:',
      `            if ${JSON.stringify(frame[1])} in vars(_jb_k):`,
      `                delattr(_jb_k, ${JSON.stringify(frame[1])})`,
    ];
  } else if (mod && mod[1] === removed.library) {
    code = [
      `import ${mod[1]} as _jb_m`,
      `if ${olderThan('_jb_m', removed.removedIn)} and hasattr(_jb_m, ${JSON.stringify(mod[2])}):`,
      `    delattr(_jb_m, ${JSON.stringify(mod[2])})`,
    ];
  } else return undefined;
  return {
    ...removed,
    newer: true,
    code: [
      `# junobench: ${removed.api} removed, as in ${removed.library} ${removed.removedIn} (the notebook's)`,
      ...code,
    ].join('\n'),
  };
}

/**
 * `OneHotEncoder.__init__() got an unexpected keyword argument 'sparse'`, `read_csv() got an unexpected keyword
 * argument 'error_bad_lines'`: the notebook's newer library dropped a keyword that the runtime's still takes. The
 * shim finds the class or function by its name (in the notebook's namespace or one of its modules) and, where it
 * takes the keyword, makes it refuse it with the saved message.
 */
function rejectedKeywordShim(evalue: string): ApiShim | undefined {
  const m = /^(?:([A-Za-z_]\w*)\.)?([A-Za-z_]\w*)\(\) got an unexpected keyword argument '(\w+)'$/.exec(evalue.trim());
  if (!m || (m[2] === '__init__' && !m[1])) return undefined;
  const [, owner, fn, kw] = m;
  const target = owner ?? fn!;
  const api = `${owner ? `${owner}(${kw}=…)` : `${fn}(${kw}=…)`}`;
  return {
    library: '',
    api,
    removedIn: 'a newer version',
    behaviour: `the notebook's library no longer took the keyword ${kw} of ${owner ?? fn}, which this runtime's older one still takes; the shim refuses it as that version did`,
    newer: true,
    code: [
      `# junobench: ${api} refused, as the notebook's newer library did`,
      'def _jb_refuse(target, method, kw, message):',
      '    import functools, inspect, types',
      '    ns = globals()',
      '    found = [ns.get(target)] + [getattr(m, target, None) for m in list(ns.values()) if isinstance(m, types.ModuleType)]',
      '    for obj in {id(o): o for o in found if o is not None}.values():',
      '        holder, name = (obj, method) if method == "__init__" and isinstance(obj, type) else (None, None)',
      '        f = getattr(obj, "__init__") if holder is not None else obj',
      '        if not callable(f) or getattr(f, "_jb_refused", None) == kw:',
      '            continue',
      '        try:',
      '            if kw not in inspect.signature(f).parameters:',
      '                continue',
      '        except (TypeError, ValueError):',
      '            continue',
      '        def wrap(f):',
      '            @functools.wraps(f)',
      '            def g(*args, **kwargs):',
      '                if kw in kwargs:',
      '                    raise TypeError(message)',
      '                return f(*args, **kwargs)',
      '            g._jb_refused = kw',
      '            return g',
      '        if holder is not None:',
      '            holder.__init__ = wrap(f)',
      '            continue',
      '        w = wrap(f)',
      '        for m in [ns] + [m.__dict__ for m in list(ns.values()) if isinstance(m, types.ModuleType)]:',
      '            for k, v in list(m.items()):',
      '                if v is f:',
      '                    m[k] = w',
      `_jb_refuse(${JSON.stringify(target)}, ${JSON.stringify(owner ? fn : '')}, ${JSON.stringify(kw)}, ${JSON.stringify(evalue.trim())})`,
      'del _jb_refuse',
    ].join('\n'),
  };
}
