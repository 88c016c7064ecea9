import { describe, expect, it } from 'vitest';
import type { CrashType } from '@junobench/core';
import { collectCrashFacts, type SuggestInput } from './crash-facts.js';
import { cell, crash, lib } from '../test-helpers/crash.js';
import { suggestCrashType } from './suggest-crash-type.js';

describe('suggestCrashType', () => {
  it.each<[string, SuggestInput, CrashType, RegExp]>([
    [
      'an undefined variable',
      crash('NameError', "name 'X_train' is not defined", [cell('clf.fit(X_train, y)')]),
      'variable not found',
      /X_train is not defined/,
    ],
    [
      'an undefined module alias',
      crash('NameError', "name 'np' is not defined", [cell('a = np.zeros(3)')]),
      'module not found',
      /usual alias of numpy/,
    ],
    [
      'an undefined class imported from a module stays a variable',
      crash('NameError', "name 'LabelEncoder' is not defined", [cell('le = LabelEncoder()')]),
      'variable not found',
      /not defined/,
    ],
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
    [
      'a module that is not installed',
      crash('ModuleNotFoundError', "No module named 'squarify'", [cell('import squarify')]),
      'module not found',
      /No module named/,
    ],
    [
      'a missing file',
      crash('FileNotFoundError', "[Errno 2] No such file or directory: 'train.csv'", [
        cell("pd.read_csv('train.csv')"),
      ]),
      'io error',
      /reading or writing a file/,
    ],
    ['a missing column', crash('KeyError', "'price'", [cell("df['price']")]), 'key error', /'price'/],
    [
      'an index out of range',
      crash('IndexError', 'list index out of range', [cell('xs[10]')]),
      'index error',
      /IndexError/,
    ],
    [
      'a missing attribute',
      crash('AttributeError', "'DataFrame' object has no attribute 'concat'", [cell('df.concat(b)')]),
      'attribute error',
      /AttributeError/,
    ],
    [
      'a model used before fit',
      crash('NotFittedError', 'This SVC instance is not fitted yet.', [cell('svc.predict(X)')]),
      'model initialization error',
      /before it was fitted/,
    ],
    [
      'arrays that cannot be broadcast',
      crash('ValueError', 'operands could not be broadcast together with shapes (3,) (4,)', [cell('a + b')]),
      'unsupported broadcast',
      /broadcast/,
    ],
    [
      'feature names',
      crash('ValueError', 'The feature names should match those that were passed during fit.', [
        cell('sc.transform(t)'),
      ]),
      'feature name mismatch',
      /feature/,
    ],
    [
      'a layer shape',
      crash('ValueError', 'Input 0 of layer "dense" is incompatible with the layer: expected shape=(None, 32)', [
        cell('model.fit(X, y)'),
      ]),
      'tensor shape mismatch',
      /incompatible with the layer/,
    ],
    [
      'a torch size mismatch',
      crash('RuntimeError', 'mat1 and mat2 shapes cannot be multiplied (64x10 and 5x2)', [cell('out = net(x)')]),
      'tensor shape mismatch',
      /mat1 and mat2/,
    ],
    [
      'NaN in the data',
      crash('ValueError', "Input contains NaN, infinity or a value too large for dtype('float64').", [
        cell('m.fit(X, y)'),
      ]),
      'data value violation',
      /NaN/,
    ],
    [
      'a string where a number is needed',
      crash('ValueError', "could not convert string to float: 'male'", [cell('m.fit(X, y)')]),
      'value error',
      /could not convert/,
    ],
    [
      'an unexpected keyword',
      crash('TypeError', "fit() got an unexpected keyword argument 'epoch'", [cell('m.fit(X, epoch=3)')]),
      'invalid argument',
      /unexpected/,
    ],
    [
      'an operation on the wrong type',
      crash('TypeError', "'int' object is not iterable", [cell('for i in len(xs): pass')]),
      'type error',
      /not iterable/,
    ],
    [
      'a TypeError raised inside a library',
      crash('TypeError', 'Cannot handle this data type: (1, 1, 3), <f4', [
        cell('Image.fromarray(a)'),
        lib('PIL/Image.py', 'fromarray(obj, mode)', 'raise TypeError(msg) from e'),
      ]),
      'invalid argument',
      /raised inside PIL/,
    ],
    [
      'an invalid parameter',
      crash('ValueError', "Invalid parameter 'depth' for estimator RandomForestClassifier()", [cell('gs.fit(X, y)')]),
      'invalid argument',
      /Invalid parameter/,
    ],
    [
      'any other ValueError',
      crash('ValueError', 'math domain error', [cell('v = f(x)')]),
      'value error',
      /math domain error/,
    ],
    [
      'a RuntimeError',
      crash('RuntimeError', 'CUDA error: device-side assert triggered', [cell('loss.backward()')]),
      'runtime error',
      /RuntimeError/,
    ],
  ])('%s', (_name, input, type, evidence) => {
    const d = suggestCrashType(collectCrashFacts(input));
    expect(d.value).toBe(type);
    expect(d.evidence.join(' ')).toMatch(evidence);
    expect(d.rule).toMatch(/^crashType\./);
  });

  // TensorFlow's op errors print the op's own failure below their line, or re-raise a py_function's Python exception.
  const tfOp = (evalue: string, report: string[], code = 'model.fit(ds, epochs=3)') => ({
    ...crash('InvalidArgumentError', evalue, [
      cell(code),
      lib(
        'tensorflow/python/eager/execute.py',
        'quick_execute(op_name, num_outputs, inputs, attrs, ctx, name)',
        'tensors = pywrap_tfe.TFE_Py_Execute(ctx._handle, device_name, op_name,',
        54,
      ),
    ]),
    traceback: [
      '-'.repeat(75),
      'InvalidArgumentError                      Traceback (most recent call last)',
      cell(code),
      lib(
        'tensorflow/python/eager/execute.py',
        'quick_execute(op_name, num_outputs, inputs, attrs, ctx, name)',
        'tensors = pywrap_tfe.TFE_Py_Execute(ctx._handle, device_name, op_name,',
        54,
      ),
      `InvalidArgumentError: ${evalue}\n${report.join('\n')}`,
    ],
  });
  const kerasCall = (layer: string, report: string[]) => {
    const evalue = `Exception encountered when calling layer '${layer}' (type Sequential).`;
    return {
      ...crash('ValueError', evalue, [cell('model.fit(X, y)')]),
      traceback: [
        '-'.repeat(75),
        'ValueError                                Traceback (most recent call last)',
        cell('model.fit(X, y)'),
        lib(
          'keras/utils/traceback_utils.py',
          'error_handler(*args, **kwargs)',
          'raise e.with_traceback(filtered_tb) from None',
          70,
        ),
        `ValueError: ${evalue}\n${report.join('\n')}\n    Call arguments received by layer '${layer}' (type Sequential):\n      • inputs=tf.Tensor(shape=(None, 7), dtype=float32)\n      • training=True`,
      ],
    };
  };
  it.each<[string, SuggestInput, CrashType, RegExp]>([
    // fires: the op's report or the re-raised exception decides
    [
      'an op report of a matmul of the wrong size',
      tfOp('Graph execution error:', [
        "Node: 'net/fc/MatMul'",
        'Matrix size-incompatible: In[0]: [8,4096], In[1]: [1024,10]',
        '\t [[{{node net/fc/MatMul}}]] [Op:__inference_train_function_900]',
      ]),
      'tensor shape mismatch',
      /size-incompatible/,
    ],
    [
      'an op report of incompatible shapes',
      tfOp('Graph execution error:', ['Incompatible shapes: [16,1] vs. [16,5]', '\t [[{{node loss/sub}}]]']),
      'tensor shape mismatch',
      /Incompatible shapes/,
    ],
    [
      'an op report of an image file it cannot decode',
      tfOp('Graph execution error:', [
        '1 root error(s) found.',
        '  (0) INVALID_ARGUMENT:  Unsupported format of photos/cat_12.bin',
        '\t [[{{node decode_image/DecodeImage}}]]',
      ]),
      'io error',
      /Unsupported format/,
    ],
    [
      'a TypeError re-raised from a py_function',
      tfOp("TypeError: 'NoneType' object is not iterable", [
        'Traceback (most recent call last):',
        '  File "prep.py", line 3, in load',
        '    for row in rows:',
        "TypeError: 'NoneType' object is not iterable",
        '\t [[{{node EagerPyFunc}}]]',
      ]),
      'type error',
      /re-raised a TypeError.*not iterable/,
    ],
    [
      'a ValueError re-raised from a py_function',
      tfOp("ValueError: could not convert string to float: 'n/a'", [
        "ValueError: could not convert string to float: 'n/a'",
        '\t [[{{node PyFunc}}]]',
      ]),
      'value error',
      /re-raised a ValueError/,
    ],
    [
      'a Keras layer-call carrier over a layer shape error',
      kerasCall('seq_1', [
        '    ',
        '    Input 0 of layer "dense_4" is incompatible with the layer: expected shape=(None, 12), found shape=(None, 7)',
        '    ',
      ]),
      'tensor shape mismatch',
      /incompatible with the layer/,
    ],
    [
      "nested layer-call carriers: the inner layer's report decides",
      kerasCall('net', [
        '    in user code:',
        '        File "/tmp/ipykernel_1/1.py", line 9, in call  *',
        '            x = self.pool(x)',
        "        ValueError: Exception encountered when calling layer 'pool' (type MaxPooling1D).",
        '        Dimensions must be equal, but are 4 and 3',
        "        Call arguments received by layer 'pool' (type MaxPooling1D):",
        '          • inputs=tf.Tensor(shape=(None, 1, 6), dtype=float32)',
      ]),
      'tensor shape mismatch',
      /dimension/i,
    ],
    // does not fire: nothing in the report but the rejected argument, or only node names; shapes only in a layer call's
    // arguments
    [
      'an op error whose report names no other failure',
      tfOp('indices[2,0] = 7001 is not in [0, 7000)', ['\t [[{{node embed/embedding_lookup}}]]']),
      'invalid argument',
      /TensorFlow rejected an argument/,
    ],
    [
      'node names that mention a reshape are not a report',
      tfOp('Graph execution error:', [
        "Node: 'model/reshape_2/Reshape'",
        'Cannot place the resource on device GPU:0',
        '\t [[{{node model/reshape_2/Reshape}}]]',
      ]),
      'invalid argument',
      /TensorFlow rejected an argument/,
    ],
    [
      'text below another exception is not read as a report',
      {
        ...crash('ValueError', 'math domain error', [cell('v = f(x)')]),
        traceback: [
          'ValueError                                Traceback (most recent call last)',
          cell('v = f(x)'),
          'ValueError: math domain error\nIncompatible shapes: [1] vs. [2]',
        ],
      },
      'value error',
      /math domain error/,
    ],
    [
      "shapes in a layer call's arguments are not the failure",
      kerasCall('head', ['    ', '    The truth value of an array with more than one element is ambiguous.', '    ']),
      'value error',
      /ValueError/,
    ],
  ])('%s', (_name, input, type, evidence) => {
    const d = suggestCrashType(collectCrashFacts(input));
    expect(d.value).toBe(type);
    expect(d.evidence.join(' ')).toMatch(evidence);
  });
});
