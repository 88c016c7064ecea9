import { describe, expect, it } from 'vitest';
import type { CrashRecord, LibraryName } from '@junobench/core';
import { cell, crash, lib } from './crash.test-helpers.js';
import { RULE_CONFIDENCE } from './rule-confidence.js';
import { predictLibrary } from './predict-library.js';

describe('predictLibrary', () => {
  it.each<[string, CrashRecord, LibraryName, RegExp]>([
    [
      'NameError is notebook state, whatever the line calls',
      crash('NameError', "name 'sns' is not defined", [cell("sns.histplot(df['x'])")]),
      'None',
      /NameError/,
    ],
    ['lowercase ename as sheets write it', crash('nameerror', "name 'X' is not defined", [cell('model.fit(X, y)')]), 'None', /notebook's state/],
    ['SyntaxError', crash('SyntaxError', 'invalid syntax', ['  File "<ipython-input-2-x>", line 1\n    print "a"\n']), 'None', /interpreter/],
    [
      'the first library the crashing line calls (not the deepest one)',
      crash('ValueError', "could not convert string to float: 'male'", [
        cell('clf.fit(X_train, y_train)'),
        lib('sklearn/linear_model/_logistic.py', 'LogisticRegression.fit(self, X, y, sample_weight)', 'X, y = self._validate_data('),
        lib('sklearn/utils/validation.py', 'check_array(array)', 'array = np.asarray(array, order=order, dtype=dtype)'),
        lib('pandas/core/generic.py', 'NDFrame.__array__(self, dtype)', 'arr = np.asarray(values, dtype=dtype)'),
      ]),
      'sklearn',
      /calls into sklearn.*raised inside pandas/,
    ],
    [
      'keras folds into tensorflow/keras',
      crash('InvalidArgumentError', 'Graph execution error:', [
        cell('model.fit(ds, epochs=3)'),
        lib(
          'keras/utils/traceback_utils.py',
          'filter_traceback.<locals>.error_handler(*args, **kwargs)',
          'raise e.with_traceback(filtered_tb) from None',
        ),
        lib('tensorflow/python/eager/execute.py', 'quick_execute(op_name)', 'tensors = pywrap_tfe.TFE_Py_Execute('),
      ]),
      'tensorflow/keras',
      /calls into keras/,
    ],
    [
      'a decorator wrapper of another library is looked through',
      crash('ValueError', 'could not broadcast input array from shape (92,) into shape (181,)', [
        cell('plot_acf(residuals, lags=180)'),
        lib(
          'pandas/util/_decorators.py',
          'deprecate_kwarg.<locals>._deprecate_kwarg.<locals>.wrapper(*args, **kwargs)',
          'return func(*args, **kwargs)',
        ),
        lib('statsmodels/graphics/tsaplots.py', 'plot_acf(x, ax, lags)', '_plot_corr('),
        lib('numpy/ma/core.py', 'MaskedArray.__setitem__(self, indx, value)', '_data[indx] = dval'),
      ]),
      'statsmodels',
      /calls into statsmodels/,
    ],
    [
      'the deepest notebook frame decides, through user callbacks',
      crash('RuntimeError', 'mat1 and mat2 shapes cannot be multiplied (64x100 and 50x10)', [
        cell('out = model(x)'),
        lib('torch/nn/modules/module.py', 'Module._call_impl(self, *args, **kwargs)', 'return forward_call(*args, **kwargs)'),
        cell('x = self.fc(x)', 7),
        lib('torch/nn/modules/linear.py', 'Linear.forward(self, input)', 'return F.linear(input, self.weight, self.bias)'),
      ]),
      'torch',
      /calls into torch/,
    ],
    [
      'an implicit conversion (__index__) is not a call into the library',
      crash('TypeError', 'only integer scalar arrays can be converted to a scalar index', [
        cell('plt.title(class_names[labels[i]])'),
        lib('tensorflow/python/framework/ops.py', '_EagerTensorBase.__index__(self)', 'return self._numpy().__index__()'),
      ]),
      'matplotlib',
      /plt\.title/,
    ],
    [
      'iteration protocol frames are looked through to the next library',
      crash('RuntimeError', 'stack expects each tensor to be equal size', [
        cell('for xb, yb in tqdm(loader):'),
        lib('tqdm/std.py', 'tqdm.__iter__(self)', 'for obj in iterable:'),
        lib('torch/utils/data/dataloader.py', '_BaseDataLoaderIter.__next__(self)', 'data = self._next_data()'),
        lib('torch/utils/data/_utils/collate.py', 'collate_tensor_fn(batch)', 'return torch.stack(batch, 0, out=out)'),
      ]),
      'torch',
      /calls into torch/,
    ],
    [
      'compiled frames are named by their module (pandas/_libs, numpy.random)',
      crash('ValueError', 'a must be 1-dimensional', [
        cell('path = np.random.choice(imgs)[0]'),
        'File mtrand.pyx:951, in numpy.random.mtrand.RandomState.choice()\n',
      ]),
      'numpy',
      /calls into numpy/,
    ],
    [
      'notebook machinery (IPython display) is not a library',
      crash('ValueError', 'x', [
        cell('df'),
        lib('IPython/core/formatters.py', 'BaseFormatter.__call__(self, obj)', 'return method()'),
        lib('pandas/core/frame.py', 'DataFrame._repr_html_(self)', 'raise ValueError("x")'),
      ]),
      'pandas',
      /pandas/,
    ],
    [
      'exception class qualified by its module',
      crash('InvalidArgumentError', 'indices[3] = 12 is not in [0, 10)', [cell('emb(ids)')], {
        traceback: [
          'InvalidArgumentError  Traceback',
          cell('emb(ids)'),
          'tensorflow.python.framework.errors_impl.InvalidArgumentError: indices[3] = 12 is not in [0, 10)',
        ],
      }),
      'tensorflow/keras',
      /exception class tensorflow\.python/,
    ],
    [
      'exception class owned by a library',
      crash('NotFittedError', 'This SVC instance is not fitted yet.', [cell('svc.predict(X)')]),
      'sklearn',
      /NotFittedError is an exception class of sklearn/,
    ],
    [
      'a module that is not installed is the environment, even an ML library',
      crash('ModuleNotFoundError', "No module named 'xgboost'", [cell('import xgboost as xgb')]),
      'None',
      /module that is not installed/,
    ],
    [
      'a missing module that is no ML library',
      crash('ModuleNotFoundError', "No module named 'kaggle_datasets'", [cell('import kaggle_datasets')]),
      'None',
      /module that is not installed/,
    ],
    [
      'a submodule the line imports that the library moved or removed',
      crash('ModuleNotFoundError', "No module named 'keras.wrappers'", [cell('from keras.wrappers.scikit_learn import KerasClassifier')]),
      'tensorflow/keras',
      /keras\.wrappers, which tensorflow\/keras does not have/,
    ],
    [
      "a private module the library imports itself: a broken installation",
      crash('ModuleNotFoundError', "No module named 'statsmodels.tsa._impl'", [
        cell('from statsmodels.tsa.api import ExponentialSmoothing'),
        lib('statsmodels/tsa/api.py', '<module>', 'from ._impl import x', 12),
      ]),
      'None',
      /not installed/,
    ],
    [
      'a weights file that does not exist, raised inside keras and h5py',
      crash('OSError', "Unable to open file (unable to open file: name = 'best.h5', errno = 2, error message = 'No such file or directory')", [
        cell("model.load_weights('best.h5')"),
        lib('keras/utils/traceback_utils.py', 'error_handler(*args, **kwargs)', 'raise e.with_traceback(filtered_tb) from None'),
        lib('h5py/_hl/files.py', 'make_fid(name, mode)', 'fid = h5f.open(name, flags, fapl=fapl)'),
      ]),
      'None',
      /does not exist.*environment, not a library/,
    ],
    [
      'a CSV path that is a folder, raised inside pandas',
      crash('IsADirectoryError', "[Errno 21] Is a directory: '/kaggle/input/data'", [
        cell("df = pd.read_csv('/kaggle/input/data')"),
        lib('pandas/io/common.py', 'get_handle(path_or_buf)', 'handle = open(handle, ioargs.mode)'),
      ]),
      'None',
      /IsADirectoryError means a folder given where a file is expected/,
    ],
    [
      'writing into a read-only file system',
      crash('OSError', "[Errno 30] Read-only file system: '/kaggle/input/m.h5'", [cell("model.save('/kaggle/input/m.h5')")]),
      'None',
      /read-only file system/,
    ],
    [
      'a download that failed, chained under a library exception',
      {
        ...crash('Exception', 'URL fetch failure on https://x/w.h5: None -- [Errno -3] Temporary failure in name resolution', [
          cell("m = ResNet50(weights='imagenet')"),
          lib('keras/utils/data_utils.py', 'get_file(fname, origin)', 'raise Exception(error_msg.format(origin, e.errno, e.reason))'),
        ]),
      },
      'None',
      /network failure/,
    ],
    [
      'a misspelt module attribute is the notebook\'s typo',
      crash('AttributeError', "module 'numpy' has no attribute 'asarry'", [cell('a = np.asarry(x)'), lib('numpy/__init__.py', '__getattr__(attr)', 'raise AttributeError(msg)')]),
      'None',
      /misspelling of numpy\.asarray/,
    ],
    [
      'a module attribute the library removed is the library\'s',
      crash('AttributeError', "module 'numpy' has no attribute 'float'", [cell('x = np.float(3)'), lib('numpy/__init__.py', '__getattr__(attr)', 'raise AttributeError(msg)')]),
      'numpy',
      /numpy/,
    ],
    [
      "a None value of the notebook's own, on the crashing line",
      crash('TypeError', "'NoneType' object is not subscriptable", [cell("plt.plot(res['time'], res['data'])")]),
      'None',
      /is None/,
    ],
    [
      'a wrapper library over its base: a transformers model run through torch',
      crash('RuntimeError', 'mat1 and mat2 shapes cannot be multiplied (4x10 and 3x2)', [
        cell('out = model(**batch)'),
        lib('torch/nn/modules/module.py', 'Module._call_impl(self, *args, **kwargs)', 'return forward_call(*args, **kwargs)'),
        lib('transformers/models/bert/modeling_bert.py', 'BertModel.forward(self, input_ids)', 'x = self.pooler(h)'),
        lib('torch/nn/functional.py', 'linear(input, weight)', 'return torch._C._nn.linear(input, weight, bias)'),
      ]),
      'transformers',
      /transformers runs on torch/,
    ],
    [
      'calling a module as a function',
      crash('TypeError', "'module' object is not callable", [cell('sns(df)')]),
      'seaborn',
      /calls the module sns \(seaborn\)/,
    ],
    [
      'TypeError naming a seaborn function called on the line',
      crash('TypeError', 'barplot() takes from 0 to 1 positional arguments but 2 were given', [cell('sns.barplot(x_vals, y_vals)')]),
      'seaborn',
      /barplot\(\) named by the TypeError/,
    ],
    [
      'TypeError naming a well-known imported function',
      crash('TypeError', 'compute_class_weight() takes 1 positional argument but 3 were given', [
        cell("w = compute_class_weight('balanced', np.unique(y), y)"),
      ]),
      'sklearn',
      /compute_class_weight/,
    ],
    [
      'TypeError naming a function imported in a cell the traceback shows',
      crash('TypeError', 'my_metric() got an unexpected keyword argument "k"', [
        cell('s = my_metric(y, p, k=3)', 4, ['from lightgbm import my_metric']),
      ]),
      'lightgbm',
      /my_metric/,
    ],
    [
      'AttributeError on a numpy array',
      crash('AttributeError', "'numpy.ndarray' object has no attribute 'append'", [cell('arr.append(3)')]),
      'numpy',
      /numpy\.ndarray is numpy's/,
    ],
    [
      'AttributeError on a Keras model',
      crash('AttributeError', "'Sequential' object has no attribute 'predict_classes'", [cell('model.predict_classes(X)')]),
      'tensorflow/keras',
      /Sequential/,
    ],
    [
      'AttributeError on a module',
      crash('AttributeError', "module 'tensorflow' has no attribute 'Session'", [cell('sess = tf.Session()')]),
      'tensorflow/keras',
      /module tensorflow/,
    ],
    [
      'a library-specific message',
      crash('RuntimeError', 'Expected all tensors to be on the same device, but found at least two devices', [cell('loss = crit(out, y)')]),
      'torch',
      /message .* is torch's/,
    ],
    [
      'a module alias call on the crashing line',
      crash('ValueError', 'shapes (75,4) and (1,4) not aligned', [cell('z = sigmoid(np.dot(X, w) + b)')]),
      'numpy',
      /np\.dot/,
    ],
    [
      'the leftmost alias call wins over a generic numpy message',
      crash('IndexError', 'index 14 is out of bounds for axis 0 with size 14', [cell('sns.boxplot(y=col, data=df, ax=ax[i])')]),
      'seaborn',
      /sns\.boxplot/,
    ],
    [
      "a KeyError on Keras's history.history",
      crash('KeyError', "'acc'", [cell("ax[0].plot(history.history['acc'])")]),
      'tensorflow/keras',
      /subscripting history\.history/,
    ],
    [
      'an IndexError subscripting axes',
      crash('IndexError', 'index 6 is out of bounds for axis 0 with size 6', [cell('a = ax[i]')]),
      'matplotlib',
      /subscripting ax/,
    ],
    [
      'a generic numpy message on a plain line',
      crash('ValueError', 'operands could not be broadcast together with shapes (3,) (4,)', [cell('d = a - b')]),
      'numpy',
      /generic array error/,
    ],
    ['a library method on an unknown object', crash('KeyError', "'x'", [cell("res = data.groupby('x')")]), 'pandas', /\.groupby, a pandas method/],
    [
      'an ambiguous method resolved by the imports',
      crash('TypeError', 'unsupported operand', [cell('m.fit(X)')], { imports: ['numpy', 'xgboost'] }),
      'xgboost',
      /\.fit is xgboost's among the notebook's imports/,
    ],
    ['an ambiguous method without imports', crash('TypeError', 'unsupported operand', [cell('m.fit(X)')]), 'None', /nothing in the traceback/],
    [
      'raised in the standard library only',
      crash('JSONDecodeError', 'Expecting value: line 1 column 1 (char 0)', [
        cell('cfg = json.loads(text)'),
        'File /opt/conda/lib/python3.10/json/__init__.py:346, in loads(s)\n--> 346 return _default_decoder.decode(s)\n',
      ]),
      'None',
      /standard library/,
    ],
    [
      'nothing points at a library',
      crash('TypeError', 'can only concatenate str (not "int") to str', [cell("print('n=' + n)")]),
      'None',
      /nothing in the traceback/,
    ],
  ])('%s', (_name, record, library, evidence) => {
    const p = predictLibrary(record);
    expect(p.library).toBe(library);
    expect(p.evidence[0]).toMatch(evidence);
    expect(p.confidence).toBeGreaterThan(0);
    expect(p.confidence).toBeLessThanOrEqual(1);
  });

  it('reads IPython 7 tracebacks (ipython-input frames, "path in function" library frames)', () => {
    const record = crash('KeyError', "'Age'", [
      "<ipython-input-5-0a1b2c3d4e5f> in <module>\n      1 import pandas as pd\n----> 2 df['Age']\n",
      '/opt/conda/lib/python3.7/site-packages/pandas/core/frame.py in __getitem__(self, key)\n-> 2902             indexer = self.columns.get_loc(key)\n',
      '/opt/conda/lib/python3.7/site-packages/pandas/core/indexes/base.py in get_loc(self, key, method, tolerance)\n-> 2897                 raise KeyError(key) from err\n',
    ]);
    expect(predictLibrary(record)).toMatchObject({ library: 'pandas', rule: 'library.entry-same', confidence: RULE_CONFIDENCE['library.entry-same'] });
  });

  it('is pure: the same record gives the same prediction', () => {
    const record = crash('ValueError', 'x', [cell('np.zeros(3).reshape(2, 2)')]);
    expect(predictLibrary(record)).toEqual(predictLibrary(structuredClone(record)));
  });
});
