import { describe, expect, it } from 'vitest';
import type { CrashRecord, LibraryName } from '@junobench/core';
import { cell, crash, file, lib } from '../test-helpers/crash.js';
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
    [
      'lowercase ename as sheets write it',
      crash('nameerror', "name 'X' is not defined", [cell('model.fit(X, y)')]),
      'None',
      /notebook's state/,
    ],
    [
      'SyntaxError',
      crash('SyntaxError', 'invalid syntax', ['  File "<ipython-input-2-x>", line 1\n    print "a"\n']),
      'None',
      /interpreter/,
    ],
    [
      'the first library the crashing line calls (not the deepest one)',
      crash('ValueError', "could not convert string to float: 'male'", [
        cell('clf.fit(X_train, y_train)'),
        lib(
          'sklearn/linear_model/_logistic.py',
          'LogisticRegression.fit(self, X, y, sample_weight)',
          'X, y = self._validate_data(',
        ),
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
      "a user forward called back by torch is torch's, through the user callback",
      crash('RuntimeError', 'mat1 and mat2 shapes cannot be multiplied (64x100 and 50x10)', [
        cell('out = model(x)'),
        lib(
          'torch/nn/modules/module.py',
          'Module._call_impl(self, *args, **kwargs)',
          'return forward_call(*args, **kwargs)',
        ),
        cell('x = self.fc(x)', 7),
        lib(
          'torch/nn/modules/linear.py',
          'Linear.forward(self, input)',
          'return F.linear(input, self.weight, self.bias)',
        ),
      ]),
      'torch',
      /called torch, which called back into the notebook's own code/,
    ],
    [
      'an implicit conversion (__index__) is not a call into the library',
      crash('TypeError', 'only integer scalar arrays can be converted to a scalar index', [
        cell('plt.title(class_names[labels[i]])'),
        lib(
          'tensorflow/python/framework/ops.py',
          '_EagerTensorBase.__index__(self)',
          'return self._numpy().__index__()',
        ),
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
      crash('ModuleNotFoundError', "No module named 'keras.wrappers'", [
        cell('from keras.wrappers.scikit_learn import KerasClassifier'),
      ]),
      'tensorflow/keras',
      /keras\.wrappers, which tensorflow\/keras does not have/,
    ],
    [
      'a private module the library imports itself: a broken installation',
      crash('ModuleNotFoundError', "No module named 'statsmodels.tsa._impl'", [
        cell('from statsmodels.tsa.api import ExponentialSmoothing'),
        lib('statsmodels/tsa/api.py', '<module>', 'from ._impl import x', 12),
      ]),
      'None',
      /not installed/,
    ],
    [
      'a weights file that does not exist, raised inside keras and h5py',
      crash(
        'OSError',
        "Unable to open file (unable to open file: name = 'best.h5', errno = 2, error message = 'No such file or directory')",
        [
          cell("model.load_weights('best.h5')"),
          lib(
            'keras/utils/traceback_utils.py',
            'error_handler(*args, **kwargs)',
            'raise e.with_traceback(filtered_tb) from None',
          ),
          lib('h5py/_hl/files.py', 'make_fid(name, mode)', 'fid = h5f.open(name, flags, fapl=fapl)'),
        ],
      ),
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
      crash('OSError', "[Errno 30] Read-only file system: '/kaggle/input/m.h5'", [
        cell("model.save('/kaggle/input/m.h5')"),
      ]),
      'None',
      /read-only file system/,
    ],
    [
      'a download that failed, chained under a library exception',
      {
        ...crash(
          'Exception',
          'URL fetch failure on https://x/w.h5: None -- [Errno -3] Temporary failure in name resolution',
          [
            cell("m = ResNet50(weights='imagenet')"),
            lib(
              'keras/utils/data_utils.py',
              'get_file(fname, origin)',
              'raise Exception(error_msg.format(origin, e.errno, e.reason))',
            ),
          ],
        ),
      },
      'None',
      /network failure/,
    ],
    [
      "a misspelt module attribute is the notebook's typo",
      crash('AttributeError', "module 'numpy' has no attribute 'asarry'", [
        cell('a = np.asarry(x)'),
        lib('numpy/__init__.py', '__getattr__(attr)', 'raise AttributeError(msg)'),
      ]),
      'None',
      /misspelling of numpy\.asarray/,
    ],
    [
      "a module attribute the library removed is the library's",
      crash('AttributeError', "module 'numpy' has no attribute 'float'", [
        cell('x = np.float(3)'),
        lib('numpy/__init__.py', '__getattr__(attr)', 'raise AttributeError(msg)'),
      ]),
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
        lib(
          'torch/nn/modules/module.py',
          'Module._call_impl(self, *args, **kwargs)',
          'return forward_call(*args, **kwargs)',
        ),
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
      crash('TypeError', 'barplot() takes from 0 to 1 positional arguments but 2 were given', [
        cell('sns.barplot(x_vals, y_vals)'),
      ]),
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
      crash('AttributeError', "'Sequential' object has no attribute 'predict_classes'", [
        cell('model.predict_classes(X)'),
      ]),
      'tensorflow/keras',
      /Sequential/,
    ],
    [
      'AttributeError on a scikit-learn estimator named without a suffix',
      crash('AttributeError', "'NearestNeighbors' object has no attribute 'labels_'", [cell('groups = nn.labels_')]),
      'sklearn',
      /NearestNeighbors is sklearn's/,
    ],
    [
      'AttributeError on a scikit-learn splitter',
      crash('AttributeError', "'StratifiedShuffleSplit' object has no attribute 'split_data'", [
        cell('parts = sss.split_data(X, y)'),
      ]),
      'sklearn',
      /StratifiedShuffleSplit/,
    ],
    [
      "a user's class whose name only contains a scikit-learn name is not scikit-learn's",
      crash('AttributeError', "'MyNearestNeighborsHelper' object has no attribute 'fit'", [cell('h.fit(X)')]),
      'None',
      /nothing in the traceback points at a library/,
    ],
    [
      "OpenCV's bindings refusing an argument, raised with no OpenCV frame",
      crash('TypeError', "Expected Ptr<cv::UMat> for argument 'src'", [cell('out = resize_all(img)')]),
      'cv2',
      /Expected Ptr<cv::UMat>/,
    ],
    [
      'AttributeError on a module',
      crash('AttributeError', "module 'tensorflow' has no attribute 'Session'", [cell('sess = tf.Session()')]),
      'tensorflow/keras',
      /module tensorflow/,
    ],
    [
      'a library-specific message',
      crash('RuntimeError', 'Expected all tensors to be on the same device, but found at least two devices', [
        cell('loss = crit(out, y)'),
      ]),
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
      crash('IndexError', 'index 14 is out of bounds for axis 0 with size 14', [
        cell('sns.boxplot(y=col, data=df, ax=ax[i])'),
      ]),
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
      'a generic numpy message with NumPy in the cell shown',
      crash('ValueError', 'operands could not be broadcast together with shapes (3,) (4,)', [
        cell('d = a - b', 3, ['a = np.ones(3)']),
      ]),
      'numpy',
      /generic array error/,
    ],
    [
      'a generic numpy message with no NumPy in sight names no library',
      crash('ValueError', 'operands could not be broadcast together with shapes (3,) (4,)', [cell('d = a - b')]),
      'None',
      /nothing in the traceback/,
    ],
    [
      'a library method on an unknown object',
      crash('KeyError', "'x'", [cell("res = data.groupby('x')")]),
      'pandas',
      /\.groupby, a pandas method/,
    ],
    [
      'an ambiguous method resolved by the imports',
      crash('TypeError', 'unsupported operand', [cell('m.fit(X)')], { imports: ['numpy', 'xgboost'] }),
      'xgboost',
      /\.fit is xgboost's among the notebook's imports/,
    ],
    [
      'an ambiguous method without imports',
      crash('TypeError', 'unsupported operand', [cell('m.fit(X)')]),
      'None',
      /nothing in the traceback/,
    ],
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

  // The second pass in docs/suggest.md, "How it is measured": classes of crashes, each with rows that must and
  // must not fire.
  it.each<[string, CrashRecord, LibraryName, string]>([
    [
      "a collate function of the notebook called back by transformers (through torch) is transformers's",
      crash('KeyError', "'labels'", [
        cell('trainer.train()', 30),
        lib('transformers/trainer.py', 'Trainer.train(self, resume_from_checkpoint)', 'return inner_training_loop('),
        lib('torch/utils/data/dataloader.py', '_BaseDataLoaderIter.__next__(self)', 'data = self._next_data()'),
        lib(
          'transformers/trainer_utils.py',
          'RemoveColumnsCollator.__call__(self, features)',
          'return self.data_collator(features)',
        ),
        cell('labels = [f["labels"] for f in features]', 28, [], [], 'collate(features)'),
      ]),
      'transformers',
      'library.callback',
    ],
    [
      "a user's module wrapping a transformers model, called through torch, is torch's (the library the line called)",
      crash('OutOfMemoryError', 'CUDA out of memory. Tried to allocate 20.00 MiB', [
        cell('out = model(ids, mask)'),
        lib(
          'torch/nn/modules/module.py',
          'Module._call_impl(self, *input, **kwargs)',
          'return forward_call(*input, **kwargs)',
        ),
        cell('h = self.bert(ids, attention_mask=mask)', 5, [], [], 'Classifier.forward(self, ids, mask)'),
        lib(
          'torch/nn/modules/module.py',
          'Module._call_impl(self, *input, **kwargs)',
          'return forward_call(*input, **kwargs)',
        ),
        lib(
          'transformers/models/bert/modeling_bert.py',
          'BertModel.forward(self, input_ids)',
          'scores = scores / math.sqrt(d)',
        ),
      ]),
      'torch',
      'library.callback',
    ],
    [
      "an optuna objective that crashes in sklearn is optuna's",
      crash('ValueError', 'Input contains NaN', [
        cell('study.optimize(objective, n_trials=20)'),
        lib('optuna/study/study.py', 'Study.optimize(self, func, n_trials)', '_optimize('),
        lib('optuna/study/_optimize.py', '_run_trial(study, func, catch)', 'value_or_values = func(trial)'),
        cell('for tr, va in cv.split(X, y):', 12, [], [], 'objective(trial)'),
        lib(
          'sklearn/model_selection/_split.py',
          'StratifiedKFold.split(self, X, y)',
          'y = check_array(y, ensure_2d=False)',
        ),
      ]),
      'optuna',
      'library.callback',
    ],
    [
      'iterating a DataLoader is not a call: the crash in the dataset is the library that dataset code called',
      crash('KeyError', "'path'", [
        cell('for xb, yb in loader:'),
        lib('torch/utils/data/dataloader.py', '_BaseDataLoaderIter.__next__(self)', 'data = self._next_data()'),
        cell("row = self.df.loc[i, 'path']", 4, [], [], 'ImageSet.__getitem__(self, i)'),
        lib('pandas/core/indexing.py', '_LocIndexer.__getitem__(self, key)', 'return self._getitem_tuple(key)'),
      ]),
      'pandas',
      'library.entry-same',
    ],
    [
      'helper functions of the notebook calling each other are no callback',
      crash('KeyError', "'x'", [
        cell('run(df)'),
        cell("return df['x'] * 2", 2, [], [], 'run(df)'),
        lib('pandas/core/frame.py', 'DataFrame.__getitem__(self, key)', 'indexer = self.columns.get_loc(key)'),
      ]),
      'pandas',
      'library.entry-same',
    ],
    [
      'a library run from a torch hub cache (outside site-packages) is still that library',
      crash('TypeError', 'pic should be PIL Image or ndarray', [
        cell('sample = transform(sample)'),
        file(
          '~/.cache/torch/hub/pytorch_vision_v0.10.0/torchvision/transforms/transforms.py',
          '__call__(self, img)',
          'img = t(img)',
        ),
      ]),
      'torchvision',
      'library.entry-same',
    ],
    [
      "a user's module in a folder named like a library package's everyday word (datasets/) stays the user's",
      crash('TypeError', 'can only concatenate str (not "int") to str', [
        cell('load_all(root)'),
        file('/kaggle/working/datasets/loader.py', 'load_all(root)', 'name = root + 1'),
      ]),
      'None',
      'library.nothing',
    ],
    [
      'a KeyError on a column that a later line of the same cell drops: the cell ran again',
      crash('KeyError', "'Amount'", [
        cell(
          "df['scaled'] = scaler.fit_transform(df[['Amount']])",
          17,
          ['scaler = StandardScaler()'],
          ["df = df.drop(['Amount'], axis=1)"],
        ),
        lib('pandas/core/frame.py', 'DataFrame.__getitem__(self, key)', 'indexer = self.columns.get_loc(key)'),
      ]),
      'None',
      'library.rerun',
    ],
    [
      'the same, with the later line deleting the column (del) or encoding it away (get_dummies)',
      crash('KeyError', "\"None of [Index(['city'], dtype='object')] are in the [columns]\"", [
        cell("df = pd.get_dummies(df, columns=['city'])", 9, [], ["del df['city']"]),
        lib('pandas/core/reshape/encoding.py', 'get_dummies(data, columns)', 'data_to_encode = data[columns]'),
      ]),
      'None',
      'library.rerun',
    ],
    [
      'a column an earlier line of the cell drops fails on the first run too: no rerun',
      crash('KeyError', "'Amount'", [
        cell("x = df['Amount']", 4, ["df = df.drop(['Amount'], axis=1)"]),
        lib('pandas/core/frame.py', 'DataFrame.__getitem__(self, key)', 'indexer = self.columns.get_loc(key)'),
      ]),
      'pandas',
      'library.entry-same',
    ],
    [
      'a drop inside a loop can remove the column within one run: no rerun',
      crash('KeyError', "'a'", [
        cell("total += df['a'].sum()", 4, ['for df in frames:'], ["    df.drop(columns=['a'], inplace=True)"]),
        lib('pandas/core/frame.py', 'DataFrame.__getitem__(self, key)', 'indexer = self.columns.get_loc(key)'),
      ]),
      'pandas',
      'library.entry-same',
    ],
    [
      'a KeyError inside a function the cell defines is no rerun of the cell',
      crash('KeyError', "'a'", [
        cell('f(df)', 5),
        cell("y = df['a']", 5, [], ["df.pop('a')"], 'f(df)'),
        lib('pandas/core/frame.py', 'DataFrame.__getitem__(self, key)', 'indexer = self.columns.get_loc(key)'),
      ]),
      'pandas',
      'library.entry-same',
    ],
    [
      'a KeyError whose key no later line removes is the library the line called',
      crash('KeyError', "'Amount'", [
        cell("m = df['Amount'].mean()", 4, [], ["df = df.drop(['Time'], axis=1)"]),
        lib('pandas/core/frame.py', 'DataFrame.__getitem__(self, key)', 'indexer = self.columns.get_loc(key)'),
      ]),
      'pandas',
      'library.entry-same',
    ],
    [
      'a statement that drops columns from the frame it rebinds, finding every one gone: it ran before',
      crash('KeyError', "\"['Sport', 'Dport'] not found in axis\"", [
        cell("data = data.drop(['Sport', 'Dport'], axis=1)", 27),
        lib('pandas/core/frame.py', 'DataFrame.drop(self, labels, axis)', 'return super().drop('),
        lib(
          'pandas/core/indexes/base.py',
          'Index.drop(self, labels, errors)',
          'raise KeyError(f"{labels[mask]} not found in axis")',
        ),
      ]),
      'None',
      'library.rerun',
    ],
    [
      'the same, dropping in place',
      crash('KeyError', '"[\'num_outbound_cmds\'] not found in axis"', [
        cell("df.drop(columns='num_outbound_cmds', inplace=True)", 21),
        lib('pandas/core/frame.py', 'DataFrame.drop(self, labels, axis)', 'return super().drop('),
      ]),
      'None',
      'library.rerun',
    ],
    [
      'get_dummies re-encoding the frame it rebinds (the message names a dtype, which is no key)',
      crash('KeyError', "\"None of [Index(['Self_Employed'], dtype='object')] are in the [columns]\"", [
        cell("df = pd.get_dummies(df, columns=['Self_Employed'], prefix=['Self_Employed'], drop_first=True)", 224),
        lib('pandas/core/reshape/encoding.py', 'get_dummies(data, columns)', 'data_to_encode = data[columns]'),
      ]),
      'None',
      'library.rerun',
    ],
    [
      'del of a key already deleted',
      crash('KeyError', "'id'", [
        cell("del df['id']", 3),
        lib('pandas/core/generic.py', 'NDFrame.__delitem__(self, key)', 'loc = self.axes[-1].get_loc(key)'),
      ]),
      'None',
      'library.rerun',
    ],
    [
      'only some of the dropped columns missing: misnamed or never there, not a rerun',
      crash('KeyError', "\"['Alley', 'PoolQC'] not found in axis\"", [
        cell("test = test.drop(['Alley', 'PoolQC', 'Id'], axis=1)", 37),
        lib('pandas/core/frame.py', 'DataFrame.drop(self, labels, axis)', 'return super().drop('),
      ]),
      'pandas',
      'library.entry-same',
    ],
    [
      'a drop kept under another name leaves the source unchanged: a rerun would not fail, so no rerun',
      crash('KeyError', '"[\'a\'] not found in axis"', [
        cell("X = df.drop(['a'], axis=1)", 5),
        lib('pandas/core/frame.py', 'DataFrame.drop(self, labels, axis)', 'return super().drop('),
      ]),
      'pandas',
      'library.entry-same',
    ],
    [
      'a drop of a list held in a variable names no key the message can be matched with',
      crash('KeyError', '"[\'a\'] not found in axis"', [
        cell('df = df.drop(cols, axis=1)', 5),
        lib('pandas/core/frame.py', 'DataFrame.drop(self, labels, axis)', 'return super().drop('),
      ]),
      'pandas',
      'library.entry-same',
    ],
    [
      "a bare Dataset object is nobody's in particular (users and Hugging Face name their classes so)",
      crash('AttributeError', "'Dataset' object has no attribute 'draw_shape'", [cell('img = ds.draw_shape(img)')]),
      'None',
      'library.nothing',
    ],
    [
      "torch's own dataset classes still name torch",
      crash('AttributeError', "'TensorDataset' object has no attribute 'shape'", [cell('n = ds.shape')]),
      'torch',
      'library.object-type',
    ],
  ])('%s', (_name, record, library, rule) => {
    const p = predictLibrary(record);
    expect({ library: p.library, rule: p.rule }).toEqual({ library, rule });
    expect(p.confidence).toBe(RULE_CONFIDENCE[p.rule]);
  });

  it('reads IPython 7 tracebacks (ipython-input frames, "path in function" library frames)', () => {
    const record = crash('KeyError', "'Age'", [
      "<ipython-input-5-0a1b2c3d4e5f> in <module>\n      1 import pandas as pd\n----> 2 df['Age']\n",
      '/opt/conda/lib/python3.7/site-packages/pandas/core/frame.py in __getitem__(self, key)\n-> 2902             indexer = self.columns.get_loc(key)\n',
      '/opt/conda/lib/python3.7/site-packages/pandas/core/indexes/base.py in get_loc(self, key, method, tolerance)\n-> 2897                 raise KeyError(key) from err\n',
    ]);
    expect(predictLibrary(record)).toMatchObject({
      library: 'pandas',
      rule: 'library.entry-same',
      confidence: RULE_CONFIDENCE['library.entry-same'],
    });
  });

  it('is pure: the same record gives the same prediction', () => {
    const record = crash('ValueError', 'x', [cell('np.zeros(3).reshape(2, 2)')]);
    expect(predictLibrary(record)).toEqual(predictLibrary(structuredClone(record)));
  });
});
