import { describe, expect, it } from 'vitest';
import { matchSameFailureSite } from './match-failure-site.js';

// Tracebacks as IPython 5 under Python 2 saved them (frame headers `path in f(args)`, `.pyc` files) and as this
// runtime's IPython 8 reports them (`Cell In[n], line k`, `File path:line, in f()`), ANSI escapes removed.
const old = (statement: string, frames: string[], last: string) => [
  '---------------------------------------------------------------------------',
  `${last.split(':')[0]}                                 Traceback (most recent call last)`,
  `<ipython-input-12-3f2a9c> in <module>()\n----> 1 ${statement}\n`,
  ...frames,
  last,
];
const now = (statement: string, frames: string[], last: string) => [
  '---------------------------------------------------------------------------',
  `${last.split(':')[0]}                                 Traceback (most recent call last)`,
  `Cell In[3], line 2\n      1 k = 1\n----> 2 ${statement}\n`,
  ...frames,
  last,
];
const crash = (ename: string, evalue: string) => ({ ename, evalue, match: 'exact' as const, cell: 4 });
const ISIN = "df[df['period'].isin(df.period.value_counts().max())]";

describe('matchSameFailureSite: the same statement, the same library raising, another wording', () => {
  it('matches either wording when a newer pandas names the type otherwise', () => {
    const savedMsg = 'only list-like objects are allowed to be passed to isin(), you passed a [int64]';
    const nowMsg = 'only list-like objects are allowed to be passed to isin(), you passed a [int]';
    const m = matchSameFailureSite(
      crash('TypeError', savedMsg),
      {
        evalue: savedMsg,
        traceback: old(
          ISIN,
          [
            '/usr/local/lib/python2.7/dist-packages/pandas/core/series.pyc in isin(self, values)\n-> 2555         result = algorithms.isin(self, values)\n',
            '/usr/local/lib/python2.7/dist-packages/pandas/core/algorithms.pyc in isin(comps, values)\n--> 393         raise TypeError(msg)\n',
          ],
          `TypeError: ${savedMsg}`,
        ),
      },
      {
        ename: 'TypeError',
        evalue: nowMsg,
        cell: 4,
        traceback: now(
          ISIN,
          [
            'File /usr/lib/python3/dist-packages/pandas/core/series.py:5563, in Series.isin(self, values)\n-> 5563 result = algorithms.isin(self._values, values)\n',
            'File /usr/lib/python3/dist-packages/pandas/core/algorithms.py:457, in isin(comps, values)\n    456 if not is_list_like(values):\n--> 457     raise TypeError(\n',
          ],
          `TypeError: ${nowMsg}`,
        ),
      },
    )!;
    expect(m).toMatchObject({
      library: 'pandas',
      statement: ISIN,
      crash: { ename: 'TypeError', cell: 4, match: 'regex' },
    });
    expect(new RegExp(m.crash.evalue).test(nowMsg)).toBe(true);
    expect(new RegExp(m.crash.evalue).test(savedMsg)).toBe(true);
    expect(new RegExp(m.crash.evalue).test('only list-like objects are allowed')).toBe(false);
  });

  it('matches when another module of the same library raises, the quoted name kept', () => {
    const stmt = "sns.countplot(x='job', hue='accepted', data=df)";
    const savedMsg = 'Could not interpret value `job` for `x`. An entry with this name does not appear in `data`.';
    const nowMsg = "Could not interpret input 'job'";
    const m = matchSameFailureSite(
      crash('ValueError', savedMsg),
      {
        evalue: savedMsg,
        traceback: [
          'ValueError   Traceback (most recent call last)',
          `/tmp/ipykernel_17/2264.py in <cell line: 0>()\n     26 plt.show()\n---> 27 ${stmt}\n`,
          '/usr/local/lib/python3.12/dist-packages/seaborn/_core/data.py in _assign_variables(self, data, variables)\n--> 232                 raise ValueError(err)\n',
          `ValueError: ${savedMsg}`,
        ],
      },
      {
        ename: 'ValueError',
        evalue: nowMsg,
        cell: 4,
        traceback: now(
          stmt,
          [
            'File /usr/lib/python3/dist-packages/seaborn/_oldcore.py:1016, in VectorPlotter._assign_variables_longform(self, data, **kwargs)\n-> 1016 raise ValueError(err)\n',
          ],
          `ValueError: ${nowMsg}`,
        ),
      },
    );
    expect(m).toMatchObject({ library: 'seaborn' });
    expect(new RegExp(m!.crash.evalue).test(nowMsg)).toBe(true);
  });

  it('keeps a saved side already made a pattern (numbers of synthetic data generalised)', () => {
    const stmt = 'model.fit(X, y)';
    const frames = (dir: string) => [
      `File ${dir}/sklearn/utils/validation.py:397, in check_consistent_length(*arrays)\n--> 397 raise ValueError(\n`,
    ];
    const m = matchSameFailureSite(
      {
        ename: 'ValueError',
        evalue: '^Found input variables with inconsistent numbers of samples: \\[[^\\]]*\\]$',
        match: 'regex',
        cell: 4,
      },
      {
        evalue: 'Found input variables with inconsistent numbers of samples: [100, 80]',
        traceback: now(stmt, frames('/opt/conda/lib/python3.7/site-packages'), 'ValueError: x'),
      },
      {
        ename: 'ValueError',
        evalue: 'Found input variables with inconsistent sample counts: [10, 8]',
        cell: 4,
        traceback: now(stmt, frames('/usr/lib/python3/dist-packages'), 'ValueError: y'),
      },
    )!;
    expect(
      m.crash.evalue.startsWith('^(?:Found input variables with inconsistent numbers of samples: \\[[^\\]]*\\]|'),
    ).toBe(true);
    expect(new RegExp(m.crash.evalue).test('Found input variables with inconsistent numbers of samples: [3, 2]')).toBe(
      true,
    );
  });
});

describe('matchSameFailureSite: another failure stays another failure', () => {
  const site = (stmt: string, file: string, fn: string) =>
    now(stmt, [`File /usr/lib/python3/dist-packages/${file}:10, in ${fn}\n--> 10 raise X\n`], 'E: m');
  const run = (evalue: string, traceback: string[], ename = 'KeyError') => ({ ename, evalue, cell: 4, traceback });

  it('a quoted name of the shorter message missing from the other: another column, another value', () => {
    const tb = site("df[['Age', 'Gender']]", 'pandas/core/indexes/base.py', 'Index._raise_if_missing(self, key)');
    expect(
      matchSameFailureSite(
        crash('KeyError', `"['Gender'] not in index"`),
        { evalue: `"['Gender'] not in index"`, traceback: tb },
        run(`"['Age'] not in index"`, tb),
      ),
    ).toBeNull();
  });

  it('another library raising from the same statement (a sparse matrix then, a DataFrame now)', () => {
    const stmt = 'data = enc.fit_transform(data.to_array())';
    expect(
      matchSameFailureSite(
        crash('AttributeError', 'to_array not found'),
        { evalue: 'to_array not found', traceback: site(stmt, 'scipy/sparse/_base.py', '__getattr__(self, attr)') },
        run(
          "'DataFrame' object has no attribute 'to_array'",
          site(stmt, 'pandas/core/generic.py', 'NDFrame.__getattr__(self, name)'),
          'AttributeError',
        ),
      ),
    ).toBeNull();
  });

  it('another library raising the same words from the same statement', () => {
    const stmt = 'model.fit(X, y)';
    const msg = 'Input contains NaN, infinity or a value too large.';
    expect(
      matchSameFailureSite(
        crash('ValueError', msg),
        { evalue: msg, traceback: site(stmt, 'sklearn/utils/validation.py', '_assert_all_finite(X)') },
        run(`${msg} Check the input.`, site(stmt, 'xgboost/core.py', '_check_call(ret)'), 'ValueError'),
      ),
    ).toBeNull();
  });

  it('another statement, another cell, another exception, or messages that say other things', () => {
    const a = site('model.fit(X, y)', 'sklearn/base.py', 'fit(self, X, y)');
    const b = site('model.predict(X)', 'sklearn/base.py', 'predict(self, X)');
    const saved = { evalue: 'could not convert string to float: abc', traceback: a };
    const expected = crash('ValueError', saved.evalue);
    expect(
      matchSameFailureSite(expected, saved, run('could not convert string to float: xyz', b, 'ValueError')),
    ).toBeNull();
    expect(
      matchSameFailureSite(expected, saved, {
        ...run('could not convert string to float: xyz', a, 'ValueError'),
        cell: 5,
      }),
    ).toBeNull();
    expect(
      matchSameFailureSite(expected, saved, run('could not convert string to float: xyz', a, 'TypeError')),
    ).toBeNull();
    expect(matchSameFailureSite(expected, saved, run('Input contains NaN.', a, 'ValueError'))).toBeNull();
    expect(
      matchSameFailureSite(expected, saved, run('could not convert string to float: xyz', a, 'ValueError')),
    ).not.toBeNull();
  });

  it('no library frame (Python itself raised), or no traceback to compare', () => {
    const tb = now("total += row['n']", [], "TypeError: unsupported operand type(s) for +=: 'int' and 'str'");
    const saved = { evalue: "unsupported operand type(s) for +=: 'int' and 'str'", traceback: tb };
    expect(
      matchSameFailureSite(
        crash('TypeError', saved.evalue),
        saved,
        run("unsupported operand type(s) for +=: 'int' and 'str' now", tb, 'TypeError'),
      ),
    ).toBeNull();
    const lib = site('model.fit(X, y)', 'sklearn/base.py', 'fit(self, X, y)');
    expect(
      matchSameFailureSite(
        crash('ValueError', 'bad input here'),
        { evalue: 'bad input here', traceback: lib },
        {
          ename: 'ValueError',
          evalue: 'bad input there',
          cell: 4,
        },
      ),
    ).toBeNull();
  });
});
