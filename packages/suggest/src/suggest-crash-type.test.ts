import { describe, expect, it } from 'vitest';
import type { CrashType } from '@junobench/core';
import { collectCrashFacts, type SuggestInput } from './crash-facts.js';
import { cell, crash, lib } from '../test-helpers/crash.js';
import { suggestCrashType } from './suggest-crash-type.js';

describe('suggestCrashType', () => {
  it.each<[string, SuggestInput, CrashType, RegExp]>([
    ['an undefined variable', crash('NameError', "name 'X_train' is not defined", [cell('clf.fit(X_train, y)')]), 'variable not found', /X_train is not defined/],
    ['an undefined module alias', crash('NameError', "name 'np' is not defined", [cell('a = np.zeros(3)')]), 'module not found', /usual alias of numpy/],
    ['an undefined class imported from a module stays a variable', crash('NameError', "name 'LabelEncoder' is not defined", [cell('le = LabelEncoder()')]), 'variable not found', /not defined/],
    [
      'a module the notebook imports in a later cell',
      {
        ...crash('NameError', "name 'geo' is not defined", [cell('geo.plot(df)')]),
        cell: 'geo.plot(df)',
        cellsAfter: ['import geopandas as geo'],
      },
      'module not found',
      /imported elsewhere in the notebook, in a later cell/,
    ],
    ['a module that is not installed', crash('ModuleNotFoundError', "No module named 'squarify'", [cell('import squarify')]), 'module not found', /No module named/],
    ['a missing file', crash('FileNotFoundError', "[Errno 2] No such file or directory: 'train.csv'", [cell("pd.read_csv('train.csv')")]), 'io error', /reading or writing a file/],
    ['a missing column', crash('KeyError', "'price'", [cell("df['price']")]), 'key error', /'price'/],
    ['an index out of range', crash('IndexError', 'list index out of range', [cell('xs[10]')]), 'index error', /IndexError/],
    ['a missing attribute', crash('AttributeError', "'DataFrame' object has no attribute 'concat'", [cell('df.concat(b)')]), 'attribute error', /AttributeError/],
    ['a model used before fit', crash('NotFittedError', 'This SVC instance is not fitted yet.', [cell('svc.predict(X)')]), 'model initialization error', /before it was fitted/],
    ['arrays that cannot be broadcast', crash('ValueError', 'operands could not be broadcast together with shapes (3,) (4,)', [cell('a + b')]), 'unsupported broadcast', /broadcast/],
    ['feature names', crash('ValueError', 'The feature names should match those that were passed during fit.', [cell('sc.transform(t)')]), 'feature name mismatch', /feature/],
    ['a layer shape', crash('ValueError', 'Input 0 of layer "dense" is incompatible with the layer: expected shape=(None, 32)', [cell('model.fit(X, y)')]), 'tensor shape mismatch', /incompatible with the layer/],
    ['a torch size mismatch', crash('RuntimeError', 'mat1 and mat2 shapes cannot be multiplied (64x10 and 5x2)', [cell('out = net(x)')]), 'tensor shape mismatch', /mat1 and mat2/],
    ['NaN in the data', crash('ValueError', "Input contains NaN, infinity or a value too large for dtype('float64').", [cell('m.fit(X, y)')]), 'data value violation', /NaN/],
    ['a string where a number is needed', crash('ValueError', "could not convert string to float: 'male'", [cell('m.fit(X, y)')]), 'value error', /could not convert/],
    ['an unexpected keyword', crash('TypeError', "fit() got an unexpected keyword argument 'epoch'", [cell('m.fit(X, epoch=3)')]), 'invalid argument', /unexpected/],
    ['an operation on the wrong type', crash('TypeError', "'int' object is not iterable", [cell('for i in len(xs): pass')]), 'type error', /not iterable/],
    [
      'a TypeError raised inside a library',
      crash('TypeError', 'Cannot handle this data type: (1, 1, 3), <f4', [cell('Image.fromarray(a)'), lib('PIL/Image.py', 'fromarray(obj, mode)', 'raise TypeError(msg) from e')]),
      'invalid argument',
      /raised inside PIL/,
    ],
    ['an invalid parameter', crash('ValueError', "Invalid parameter 'depth' for estimator RandomForestClassifier()", [cell('gs.fit(X, y)')]), 'invalid argument', /Invalid parameter/],
    ['any other ValueError', crash('ValueError', 'math domain error', [cell('v = f(x)')]), 'value error', /math domain error/],
    ['a RuntimeError', crash('RuntimeError', 'CUDA error: device-side assert triggered', [cell('loss.backward()')]), 'runtime error', /RuntimeError/],
  ])('%s', (_name, input, type, evidence) => {
    const d = suggestCrashType(collectCrashFacts(input));
    expect(d.value).toBe(type);
    expect(d.evidence.join(' ')).toMatch(evidence);
    expect(d.rule).toMatch(/^crashType\./);
  });
});
