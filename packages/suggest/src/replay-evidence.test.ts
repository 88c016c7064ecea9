import { describe, expect, it } from 'vitest';
import { libraryOfType, refineWithReplay } from './replay-evidence.js';
import { suggestLabels } from './suggest-labels.js';

const broadcast = {
  ename: 'ValueError',
  evalue: 'operands could not be broadcast together with shapes (3,2) (3,) ',
  traceback: [
    'ValueError                                Traceback (most recent call last)',
    '<ipython-input-4-1a2b> in <module>\n----> 1 M + v\n',
    'ValueError: operands could not be broadcast together with shapes (3,2) (3,) ',
  ],
};

describe('refineWithReplay: the library cause with what the replay that reproduced the crash showed', () => {
  it.each([
    ['numpy.ndarray', 'numpy'],
    ['pandas.core.series.Series', 'pandas'],
    ['torch.Tensor', 'torch'],
    ['builtins.list', undefined],
    ['list', undefined],
  ])('libraryOfType(%s) = %s', (type, lib) => {
    expect(libraryOfType(type)).toBe(lib);
  });

  it('a generic message raised in the notebook line on NumPy arrays is a NumPy crash', () => {
    const s = suggestLabels({
      ...broadcast,
      replay: {
        fileOrder: true,
        names: [
          { name: 'M', type: 'numpy.ndarray' },
          { name: 'v', type: 'numpy.ndarray' },
        ],
      },
    });
    expect([s.library.value, s.library.evidence[0]]).toEqual([
      'numpy',
      'the crashing line works on M (numpy.ndarray), v (numpy.ndarray) in the replay: numpy values, with no library frame in the traceback',
    ]);
    expect(suggestLabels(broadcast).library.value).toBe('None');
  });

  it('a decision made by a library frame stands', () => {
    const p = { library: 'pandas' as const, confidence: 0.9, rule: 'library.entry-same' as const, evidence: ['x'] };
    expect(refineWithReplay(p, broadcast, { fileOrder: true, names: [{ name: 'a', type: 'numpy.ndarray' }] })).toBe(p);
  });

  it('a crash a top-to-bottom replay reproduced is not put down to out-of-order cells', () => {
    const input = {
      ename: 'KeyError',
      evalue: "'age'",
      traceback: [
        'KeyError                                  Traceback (most recent call last)',
        "<ipython-input-4-1a2b> in <module>\n----> 1 df['age']\n",
        '/usr/lib/python3/dist-packages/pandas/core/frame.py in __getitem__(self, key)\n-> 3505   indexer = self.columns.get_loc(key)\n',
        "KeyError: 'age'",
      ],
      cell: "df['age']",
      executionCount: 4,
      cellsBefore: ["import pandas as pd\ndf = pd.read_csv('x.csv')"],
      executionCountsBefore: [1],
      cellsAfter: ['df.head()'],
      executionCountsAfter: [2],
    };
    expect(suggestLabels(input).library.value).toBe('None');
    expect(suggestLabels({ ...input, replay: { fileOrder: true } }).library.value).toBe('pandas');
  });
});

describe('a misspelt import name is the notebook typo', () => {
  it('cannot import name LabelEncoderder from sklearn.preprocessing → None', () => {
    const s = suggestLabels({
      ename: 'ImportError',
      evalue:
        "cannot import name 'LabelEncoderder' from 'sklearn.preprocessing' (/usr/lib/python3/dist-packages/sklearn/preprocessing/__init__.py)",
      traceback: [
        'ImportError                               Traceback (most recent call last)',
        '<ipython-input-8-1a2b> in <module>\n----> 1 from sklearn.preprocessing import LabelEncoderder\n',
        "ImportError: cannot import name 'LabelEncoderder' from 'sklearn.preprocessing' (/usr/lib/python3/dist-packages/sklearn/preprocessing/__init__.py)",
      ],
    });
    expect([s.library.value, s.library.evidence[0]]).toEqual([
      'None',
      "sklearn.preprocessing.LabelEncoderder is a misspelling of sklearn.preprocessing.LabelEncoder: the notebook's typo, not sklearn's doing",
    ]);
  });
});
