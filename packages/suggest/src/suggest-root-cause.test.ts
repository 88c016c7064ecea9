import { describe, expect, it } from 'vitest';
import type { RootCause } from '@junobench/core';
import { collectCrashFacts, type SuggestInput } from './crash-facts.js';
import { cell, crash, lib } from '../test-helpers/crash.js';
import { suggestRootCause } from './suggest-root-cause.js';

const nameError = (name: string, line: string) => crash('NameError', `name '${name}' is not defined`, [cell(line)]);

describe('suggestRootCause', () => {
  it.each<[string, SuggestInput, RootCause, RegExp]>([
    [
      'a NameError with only the traceback: most often a cell not run',
      nameError('X', 'm.fit(X)'),
      'NB specific',
      /cell that was not run/,
    ],
    [
      'a name defined only in a later cell',
      { ...nameError('X', 'm.fit(X)'), cell: 'm.fit(X)', cellsBefore: ['m = Model()'], cellsAfter: ['X = load()'] },
      'NB specific',
      /defined only in a later cell/,
    ],
    [
      'a name defined in an earlier cell that did not run',
      { ...nameError('X', 'm.fit(X)'), cell: 'm.fit(X)', cellsBefore: ['X, y = load()'], cellsAfter: [] },
      'NB specific',
      /earlier cell/,
    ],
    [
      'a name never defined anywhere',
      { ...nameError('X', 'm.fit(X)'), cell: 'm.fit(X)', cellsBefore: ['m = Model()'], cellsAfter: [] },
      'implementation error',
      /never defined anywhere/,
    ],
    [
      'a name that differs from a defined one by case: a typo',
      {
        ...nameError('x_train', 'm.fit(x_train)'),
        cell: 'm.fit(x_train)',
        cellsBefore: ['X_train = load()'],
        cellsAfter: [],
      },
      'implementation error',
      /typo/,
    ],
    [
      'a column an earlier cell already dropped',
      {
        ...crash('KeyError', `"['Id'] not found in axis"`, [cell("df = df.drop(['Id'], axis=1)")]),
        cell: "df = df.drop(['Id'], axis=1)",
        cellsBefore: ["df = pd.read_csv('t.csv')", "df.drop(columns='Id', inplace=True)"],
      },
      'NB specific',
      /ran again/,
    ],
    [
      'cells run out of order',
      {
        ...crash('KeyError', "'total'", [cell("df['total'].mean()")]),
        cell: "df['total'].mean()",
        // Every count below the crash's is another cell's: the cell making the column cannot have run before it.
        executionCount: 3,
        cellsBefore: ['df = load()', "df['total'] = df.a + df.b"],
        executionCountsBefore: [1, 9],
        cellsAfter: ['x = 1'],
        executionCountsAfter: [2],
      },
      'NB specific',
      /out of order/,
    ],
    [
      'a cell above only re-run after the crash (its first run fits a free count): not out of order',
      {
        ...crash('KeyError', "'total'", [cell("df['total'].mean()")]),
        cell: "df['total'].mean()",
        executionCount: 4,
        cellsBefore: ['df = load()', "df['total'] = df.a + df.b"],
        executionCountsBefore: [1, 9],
      },
      'data confusion',
      /not in the data|column/,
    ],
    [
      'some of the columns the crashing statement drops missing: misnamed or never there, not a re-run',
      {
        ...crash('KeyError', `"['Id'] not found in axis"`, [cell("df = df.drop(['Id', 'Name'], axis=1)")]),
        cell: "df = df.drop(['Id', 'Name'], axis=1)",
        cellsBefore: ["df = pd.read_csv('t.csv')"],
      },
      'data confusion',
      /not in the data/,
    ],
    [
      'a column a later line of the crashing cell drops, traceback only: a re-run',
      crash('KeyError', "'Amount'", [
        cell("x = df['Amount'] * 2", 5, [], ["df = df.drop(['Amount'], axis=1)"]),
        lib('pandas/core/frame.py', 'DataFrame.__getitem__(self, key)', 'indexer = self.columns.get_loc(key)'),
      ]),
      'NB specific',
      /running again/,
    ],
    [
      'every column the crashing statement drops from the frame it rebinds already gone, traceback only: a re-run',
      crash('KeyError', `"['Id'] not found in axis"`, [cell("df = df.drop(['Id'], axis=1)")]),
      'NB specific',
      /already gone/,
    ],
    [
      'a missing column, traceback only',
      crash('KeyError', "'price'", [
        cell("df['price']"),
        lib('pandas/core/frame.py', 'DataFrame.__getitem__(self, key)', 'indexer = self.columns.get_loc(key)'),
      ]),
      'data confusion',
      /not in the data/,
    ],
    [
      'strings where numbers are expected',
      crash('ValueError', "could not convert string to float: 'male'", [
        cell('m.fit(X, y)'),
        lib('sklearn/base.py', 'fit(self, X)', 'X = check_array(X)'),
      ]),
      'data confusion',
      /could not convert/,
    ],
    [
      'a library called the wrong way',
      crash('TypeError', "fit() got an unexpected keyword argument 'epoch'", [
        cell('m.fit(X, epoch=3)'),
        lib('sklearn/base.py', 'fit(self, X)', 'return self._fit(X)'),
      ]),
      'API misuse',
      /unexpected keyword/,
    ],
    [
      'a submodule the library removed',
      crash('ModuleNotFoundError', "No module named 'keras.wrappers'", [
        cell('from keras.wrappers.scikit_learn import KerasClassifier'),
      ]),
      'library cause',
      /moved or removed/,
    ],
    [
      "a None of the notebook's own",
      crash('TypeError', "'NoneType' object is not subscriptable", [cell("res['a']")]),
      'implementation error',
      /is None/,
    ],
    [
      'a missing file: no environment class in the vocabulary',
      crash('FileNotFoundError', "[Errno 2] No such file or directory: 'a.csv'", [cell("pd.read_csv('a.csv')")]),
      'implementation error',
      /no environment class/,
    ],
  ])('%s', (_name, input, cause, evidence) => {
    const d = suggestRootCause(collectCrashFacts(input));
    expect(d.value).toBe(cause);
    expect(d.evidence.join(' ')).toMatch(evidence);
  });
});
