import { describe, expect, it } from 'vitest';
import {
  mineImportAliases,
  mineImports,
  mineNamelessErrors,
  mineNotebookCrashes,
  parseImports,
} from './mine-crashes.js';
import type { Notebook } from './notebook-types.js';

const notebook: Notebook = {
  nbformat: 4,
  nbformat_minor: 4,
  metadata: {},
  cells: [
    {
      cell_type: 'code',
      metadata: {},
      execution_count: 1,
      outputs: [],
      source:
        'import numpy as np\nimport pandas as pd, os\n%matplotlib inline\nfrom sklearn.model_selection import (\n    train_test_split,\n    KFold as KF,\n)\n',
    },
    { cell_type: 'markdown', metadata: {}, source: 'import notacode' },
    {
      cell_type: 'code',
      metadata: {},
      execution_count: 2,
      source: "df = pd.read_csv('data/x.csv')\ndf['price']",
      outputs: [
        { output_type: 'stream', name: 'stdout', text: 'hi' },
        {
          output_type: 'error',
          ename: 'KeyError',
          evalue: "'price'",
          traceback: ["\u001b[0;31mKeyError\u001b[0m: 'price'"],
        },
      ],
    },
    {
      cell_type: 'code',
      metadata: {},
      execution_count: null,
      outputs: [],
      source: '    import torch.nn as nn  # inside a block\nfrom . import local',
    },
  ],
};

describe('mining notebooks', () => {
  it('turns each saved error output into a crash with its code cell and count', () => {
    expect(mineNotebookCrashes(notebook)).toEqual([
      { codeCell: 1, executionCount: 2, ename: 'KeyError', evalue: "'price'", traceback: ["KeyError: 'price'"] },
    ]);
  });

  it("leaves out error outputs that name no exception (a front end's messages), and reports them apart", () => {
    // As VS Code saves them when the kernel did not start: no ename, the message in the traceback.
    const failed = {
      output_type: 'error' as const,
      ename: '',
      evalue: '',
      traceback: ['\u001b[1;31mFailed to start the Kernel. \n', '\u001b[1;31mKernel Python 3.9.6 is not usable.'],
    };
    const nb: Notebook = {
      ...notebook,
      cells: [
        ...notebook.cells,
        { cell_type: 'code', metadata: {}, execution_count: null, outputs: [failed], source: '' },
      ],
    };
    expect(mineNotebookCrashes(nb).map((c) => c.ename)).toEqual(['KeyError']);
    expect(mineNamelessErrors(nb)).toEqual([{ codeCell: 3, text: 'Failed to start the Kernel.' }]);
    expect(mineNamelessErrors(notebook)).toEqual([]);
  });

  it('lists top-level imported modules from code cells only', () => {
    expect(mineImports(notebook)).toEqual(['numpy', 'os', 'pandas', 'sklearn', 'torch']);
  });

  it('maps aliases to what they refer to', () => {
    expect(mineImportAliases(notebook)).toMatchObject({
      np: 'numpy',
      pd: 'pandas',
      os: 'os',
      train_test_split: 'sklearn.model_selection.train_test_split',
      KF: 'sklearn.model_selection.KFold',
      nn: 'torch.nn',
    });
  });

  it.each([
    ['import a.b.c', [{ module: 'a.b.c', alias: 'a', target: 'a' }]],
    ['from x import *', [{ module: 'x', alias: '*', target: 'x' }]],
    ['x = 1; import json', [{ module: 'json', alias: 'json', target: 'json' }]],
    ['!pip install foo', []],
    ['print("import os")', []],
  ])('parseImports(%j)', (src, expected) => {
    expect(parseImports(src)).toEqual(expected);
  });
});
