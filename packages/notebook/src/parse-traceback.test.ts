import { describe, expect, it } from 'vitest';
import { classifyFile, parseTraceback } from './parse-traceback.js';

const E = '\u001b';

// IPython 8 (ipykernel 6): `Cell In[3], line 2` and `File path:line, in func`.
const ipython8 = [
  `${E}[0;31m---------------------------------------------------------------------------${E}[0m`,
  `${E}[0;31mKeyError${E}[0m                                  Traceback (most recent call last)`,
  `File ${E}[0;32m/usr/lib/python3/dist-packages/pandas/core/indexes/base.py:3802${E}[0m, in ${E}[0;36mIndex.get_loc${E}[0;34m(self, key, method, tolerance)${E}[0m\n${E}[1;32m   3801${E}[0m ${E}[38;5;28;01mtry${E}[39;00m:\n${E}[0;32m-> 3802${E}[0m     ${E}[38;5;28;01mreturn${E}[39;00m ${E}[38;5;28mself${E}[39m${E}[38;5;241m.${E}[39m_engine${E}[38;5;241m.${E}[39mget_loc(casted_key)\n`,
  `${E}[0;31mKeyError${E}[0m: 'price'`,
  '\nThe above exception was the direct cause of the following exception:\n',
  `${E}[0;31mKeyError${E}[0m                                  Traceback (most recent call last)`,
  `Cell ${E}[0;32mIn[3], line 2${E}[0m\n${E}[1;32m      1${E}[0m df ${E}[38;5;241m=${E}[39m pd${E}[38;5;241m.${E}[39mread_csv(${E}[38;5;124m'${E}[39m${E}[38;5;124mdata/houses.csv${E}[39m${E}[38;5;124m'${E}[39m)\n${E}[0;32m----> 2${E}[0m df[${E}[38;5;124m'${E}[39m${E}[38;5;124mprice${E}[39m${E}[38;5;124m'${E}[39m]\n`,
  `File ${E}[0;32m/usr/lib/python3/dist-packages/pandas/core/frame.py:3807${E}[0m, in ${E}[0;36mDataFrame.__getitem__${E}[0;34m(self, key)${E}[0m\n${E}[0;32m-> 3807${E}[0m indexer ${E}[38;5;241m=${E}[39m ${E}[38;5;28mself${E}[39m${E}[38;5;241m.${E}[39mcolumns${E}[38;5;241m.${E}[39mget_loc(key)\n`,
  `${E}[0;31mKeyError${E}[0m: 'price'`,
];

// IPython 7: `<ipython-input-3-…> in <module>` and `/path/x.py in f(args)`.
const ipython7 = [
  '---------------------------------------------------------------------------',
  'ValueError                                Traceback (most recent call last)',
  "<ipython-input-3-6b970bf11e02> in <module>\n      3 classifier = XGBClassifier(tree_method='gp_hist')\n      4 \n----> 5 classifier.fit(X_train, y_train)\n      6 y_hat = classifier.predict(X_test)\n",
  '/opt/conda/lib/python3.7/site-packages/sklearn/utils/validation.py in check_array(array, accept_sparse)\n    798         if not allow_nd and array.ndim >= 3:\n--> 800             raise ValueError("Found array with dim %d." % array.ndim)\n',
  'ValueError: Found array with dim 3. Estimator expected <= 2.',
];

// ipykernel's temporary cell files (IPython 7 with ipykernel 6).
const tmpFile = [
  '---------------------------------------------------------------------------',
  'NameError                                 Traceback (most recent call last)',
  '/tmp/ipykernel_1018/1279619201.py in <module>\n----> 1 tf_idf.toarray()\n',
  "NameError: name 'tf_idf' is not defined",
];

// IPython 8.0–8.4: `Input In [3], in <cell line: 2>()`.
const ipython80 = [
  'TypeError                                 Traceback (most recent call last)',
  'Input In [12], in <cell line: 4>()\n      2 model = Net()\n----> 4 out = model(x)\n',
  'File /opt/conda/lib/python3.7/site-packages/torch/nn/modules/module.py:1130, in Module._call_impl(self, *input, **kwargs)\n-> 1130     return forward_call(*input, **kwargs)\n',
  "TypeError: forward() missing 1 required positional argument: 'y'",
];

describe('parseTraceback', () => {
  it('IPython 8: finds the user line in Cell In[3] and the raising library frame', () => {
    const t = parseTraceback(ipython8);
    expect(t.ename).toBe('KeyError');
    expect(t.evalue).toBe("'price'");
    expect(t.userFrame).toMatchObject({ kind: 'user', executionCount: 3, line: 2, code: "df['price']" });
    expect(t.raisingFrame).toMatchObject({
      kind: 'library',
      package: 'pandas',
      module: 'pandas.core.frame',
      line: 3807,
      function: 'DataFrame.__getitem__(self, key)',
    });
    expect(t.chained).toEqual(['KeyError']);
    expect(t.frames).toHaveLength(2);
    expect(t.allFrames).toHaveLength(3);
  });

  it('IPython 7: <ipython-input-3-…> in <module> and library frames by path', () => {
    const t = parseTraceback(ipython7);
    expect(t.ename).toBe('ValueError');
    expect(t.evalue).toBe('Found array with dim 3. Estimator expected <= 2.');
    expect(t.userFrame).toMatchObject({
      executionCount: 3,
      line: 5,
      code: 'classifier.fit(X_train, y_train)',
      function: '<module>',
    });
    expect(t.raisingFrame).toMatchObject({ package: 'sklearn', module: 'sklearn.utils.validation', line: 800 });
  });

  it('ipykernel temporary files are notebook code', () => {
    const t = parseTraceback(tmpFile);
    expect(t.userFrame).toMatchObject({ kind: 'user', line: 1, code: 'tf_idf.toarray()' });
    expect(t.evalue).toBe("name 'tf_idf' is not defined");
  });

  it('IPython 8.0–8.4: Input In [12], in <cell line: 4>()', () => {
    const t = parseTraceback(ipython80);
    expect(t.userFrame).toMatchObject({ executionCount: 12, line: 4, code: 'out = model(x)' });
    expect(t.raisingFrame).toMatchObject({ package: 'torch', line: 1130 });
  });

  it('plain Python tracebacks', () => {
    const t = parseTraceback([
      'Traceback (most recent call last):',
      '  File "/home/u/train.py", line 10, in <module>',
      '    main()',
      '  File "/usr/local/lib/python3.11/site-packages/numpy/core/fromnumeric.py", line 285, in reshape',
      '    return _wrapfunc(a, "reshape", newshape, order=order)',
      'ValueError: cannot reshape array of size 10 into shape (3,3)',
    ]);
    expect(t.frames.map((f) => f.kind)).toEqual(['other', 'library']);
    expect(t.raisingFrame).toMatchObject({ package: 'numpy', line: 285 });
    expect(t.evalue).toBe('cannot reshape array of size 10 into shape (3,3)');
  });

  it('takes ename/evalue from the error output when given', () => {
    expect(parseTraceback([], { ename: 'X', evalue: 'y' })).toMatchObject({ ename: 'X', evalue: 'y', frames: [] });
  });
});

describe('IPython 7 frame headers', () => {
  it.each([
    [
      '/opt/conda/lib/python3.7/site-packages/pandas/_libs/hashtable_class_helper.pxi in pandas._libs.hashtable.PyObjectHashTable.get_item()',
      'pandas',
      'pandas._libs.hashtable.PyObjectHashTable.get_item()',
    ],
    [
      '/Users/Jane Doe/anaconda3/lib/python3.8/site-packages/sklearn/base.py in fit(self, X, y)',
      'sklearn',
      'fit(self, X, y)',
    ],
    [
      'C:\\Users\\Jane Doe\\Anaconda3\\lib\\site-packages\\torch\\nn\\modules\\module.py in _call_impl(self, *input)',
      'torch',
      '_call_impl(self, *input)',
    ],
    [
      '/opt/conda/lib/python3.7/site-packages/pandas/_libs/parsers.pyx in pandas._libs.parsers.TextReader.__cinit__()',
      'pandas',
      'pandas._libs.parsers.TextReader.__cinit__()',
    ],
  ])('%s', (header, pkg, fn) => {
    const t = parseTraceback([
      'KeyError Traceback (most recent call last)',
      '<ipython-input-3-0123abcd> in <module>',
      '----> 1 f()',
      '',
      header,
      '    120 x',
      "KeyError: 'a'",
    ]);
    expect(t.frames).toHaveLength(2);
    expect(t.raisingFrame).toMatchObject({ kind: 'library', package: pkg, function: fn });
  });
});

describe('classifyFile', () => {
  it.each([
    ['/opt/conda/lib/python3.7/site-packages/keras/engine/training.py', 'library', 'keras.engine.training'],
    ['/usr/lib/python3/dist-packages/sklearn/base.py', 'library', 'sklearn.base'],
    ['/usr/local/lib/python3.10/site-packages/tensorflow/__init__.py', 'library', 'tensorflow'],
    ['/usr/lib/python3.11/json/decoder.py', 'other', 'json.decoder'],
    ['/tmp/ipykernel_27/1513200142.py', 'user', undefined],
    [
      '/opt/conda/lib/python3.7/site-packages/pandas/_libs/hashtable_class_helper.pxi',
      'library',
      'pandas._libs.hashtable_class_helper',
    ],
    ['/opt/conda/lib/python3.7/site-packages/pandas/_libs/parsers.pyx', 'library', 'pandas._libs.parsers'],
    ['/usr/lib/python3/dist-packages/numpy/core/fromnumeric.pyc', 'library', 'numpy.core.fromnumeric'],
  ])('%s', (file, kind, module) => {
    const c = classifyFile(file);
    expect(c.kind).toBe(kind);
    expect(c.module).toBe(module);
  });
});
