import { describe, expect, it } from 'vitest';
import {
  describeDerivationGap,
  findUnseenRuns,
  triageDraft,
  type ReproductionFindings,
  type RunEvidence,
} from './triage-draft.js';

const none: ReproductionFindings = {
  urls: [],
  missingData: [],
  synthetic: [],
  missingModules: [],
  gpu: [],
  unbound: [],
};
const expected = { ename: 'KeyError', evalue: "'price'", cell: 4 };
const run = (over: Partial<RunEvidence>): RunEvidence => ({ outcome: 'crash-mismatch', expected, ...over });

describe('triageDraft: one cause from the fixed vocabulary, with the next step', () => {
  it.each<[string, RunEvidence, Partial<ReproductionFindings>, string]>([
    [
      'offline read of a URL',
      run({
        observed: {
          ename: 'URLError',
          evalue: '<urlopen error [Errno -3] Temporary failure in name resolution>',
          cell: 1,
        },
      }),
      { urls: ['https://x.org/a.csv'] },
      'needs-network',
    ],
    [
      'a missing input file',
      run({
        observed: { ename: 'FileNotFoundError', evalue: "[Errno 2] No such file or directory: 'data/a.csv'", cell: 1 },
      }),
      { missingData: [{ path: 'data/a.csv', cells: [1] }] },
      'needs-data',
    ],
    [
      'a module the runtime lacks',
      run({ outcome: 'skipped-env', reason: 'required module xgboost not importable' }),
      { missingModules: [{ module: 'xgboost', cell: 0, usedBeforeCrash: true, profiles: ['pypi'], platform: false }] },
      'needs-package',
    ],
    [
      'an import error in the run',
      run({ observed: { ename: 'ModuleNotFoundError', evalue: "No module named 'tqdm'", cell: 0 } }),
      {},
      'needs-package',
    ],
    [
      "an API its library removed, kept as a stub that raises (statsmodels' ARIMA since 0.13)",
      run({
        observed: {
          ename: 'NotImplementedError',
          evalue:
            'statsmodels.tsa.arima_model.ARMA and statsmodels.tsa.arima_model.ARIMA have been removed in favor of statsmodels.tsa.arima.model.ARIMA (note: this is no longer the model-fitting API).',
          cell: 13,
        },
      }),
      {},
      'needs-package',
    ],
    [
      'a CUDA-only crash',
      run({
        expected: { ename: 'RuntimeError', evalue: 'CUDA out of memory. Tried to allocate 2 GiB', cell: 3 },
        outcome: 'no-crash',
      }),
      {},
      'needs-gpu',
    ],
    [
      'a GPU the run asks for',
      run({ observed: { ename: 'AssertionError', evalue: 'Torch not compiled with CUDA enabled', cell: 2 } }),
      { gpu: [{ cell: 2, text: 'model.cuda()' }] },
      'needs-gpu',
    ],
    [
      "Apple's GPU (torch's mps device) the run asks for",
      run({
        observed: { ename: 'RuntimeError', evalue: 'PyTorch is not linked with support for mps devices', cell: 13 },
      }),
      { gpu: [{ cell: 13, text: "device = torch.device('mps')" }] },
      'needs-gpu',
    ],
    [
      'a name used before its definition',
      run({ observed: { ename: 'NameError', evalue: "name 'df' is not defined", cell: 1 } }),
      { unbound: [{ name: 'df', usedIn: 1, definedIn: [3] }] },
      'order-dependent',
    ],
    [
      'another exception',
      run({ observed: { ename: 'TypeError', evalue: 'unsupported operand', cell: 4 } }),
      {},
      'different-crash',
    ],
    [
      'an API the installed library removed',
      run({ observed: { ename: 'AttributeError', evalue: "'DataFrame' object has no attribute 'ix'", cell: 2 } }),
      {},
      'needs-package',
    ],
    [
      'a column that is not there is no missing file',
      run({ observed: { ename: 'KeyError', evalue: '"[\'ID\'] not found in axis"', cell: 2 } }),
      { synthetic: ['data/a.csv'] },
      'different-crash',
    ],
    ['no crash', run({ outcome: 'no-crash' }), {}, 'no-crash'],
    ['out of time', run({ outcome: 'timeout', reason: 'cell 3 ran over 120 s' }), {}, 'timeout'],
  ])('%s → %s', (_name, evidence, found, cause) => {
    const t = triageDraft(evidence, { ...none, ...found });
    expect(t?.cause).toBe(cause);
    expect(t?.next.length).toBeGreaterThan(10);
  });

  it('names the URLs a needs-network cause fetches in its detail and its next step', () => {
    const t = triageDraft(
      run({
        observed: {
          ename: 'URLError',
          evalue: '<urlopen error [Errno -3] Temporary failure in name resolution>',
          cell: 3,
        },
      }),
      { ...none, urls: ['https://example.org/data/housing.tgz'] },
    );
    expect(t?.cause).toBe('needs-network');
    expect(t?.detail).toContain('(https://example.org/data/housing.tgz)');
    expect(t?.next).toContain('download https://example.org/data/housing.tgz into');
  });

  it("a library's own words for a failed download are the network; its own wording of another failure is not", () => {
    const downloads: [string, string][] = [
      ['RuntimeError', 'Error downloading train-images-idx3-ubyte.gz'],
      ['Exception', 'URL fetch failure on https://example.org/mnist.npz: None -- [Errno -3] Temporary failure'],
      ['OSError', "We couldn't connect to 'https://huggingface.co' to load this model"],
    ];
    for (const [ename, evalue] of downloads)
      expect(triageDraft(run({ observed: { ename, evalue, cell: 1 } }), none)?.cause, evalue).toBe('needs-network');
    for (const evalue of ['could not convert string to float: abc', 'Unable to parse string "x" at position 3'])
      expect(triageDraft(run({ observed: { ename: 'ValueError', evalue, cell: 1 } }), none)?.cause).toBe(
        'different-crash',
      );
  });

  it("NLTK's data missing: the network its nltk.download needs, the resource named; the message's first words quoted", () => {
    const evalue = [
      '',
      '**********************************************************************',
      '  Resource stopwords not found.',
      '  Please use the NLTK Downloader to obtain the resource:',
      '',
      '  >>> import nltk',
      "  >>> nltk.download('stopwords')",
      '  ',
      '  Searched in:',
      "    - '/run/junobench/home/nltk_data'",
      '**********************************************************************',
    ].join('\n');
    const t = triageDraft(run({ observed: { ename: 'LookupError', evalue, cell: 5 } }), none);
    expect(t).toMatchObject({ cause: 'needs-network', observed: { evalue: 'Resource stopwords not found.' } });
    expect(t?.detail).toContain("NLTK's data 'stopwords' is not here (LookupError in code cell 5)");
    expect(t?.next).toContain('python -m nltk.downloader stopwords');
  });

  it('gives no triage when the crash reproduced', () => {
    expect(triageDraft(run({ outcome: 'crash-reproduced' }), none)).toBeUndefined();
  });

  it('names the module, its importing cell, whether the crash path uses it, and where to get it', () => {
    const t = triageDraft(run({ outcome: 'skipped-env' }), {
      ...none,
      missingModules: [
        {
          module: 'xgboost',
          cell: 0,
          usedBeforeCrash: true,
          pip: 'xgboost==2.1.1',
          profiles: ['pypi'],
          platform: false,
        },
      ],
    });
    expect(t?.modules).toEqual([
      { module: 'xgboost', cell: 0, usedBeforeCrash: true, pip: 'xgboost==2.1.1', profiles: ['pypi'] },
    ]);
    expect(t?.next).toContain('pypi');
  });

  it('a cell that does not parse as saved: edited after the run that crashed', () => {
    const t = triageDraft(
      run({ observed: { ename: 'SyntaxError', evalue: 'unterminated string literal (line 9)', cell: 4 } }),
      none,
    );
    expect([t?.cause, t?.detail]).toEqual([
      'different-crash',
      'code cell 4 of reproduced.ipynb does not parse as saved (SyntaxError: unterminated string literal (line 9) (code cell 4)): the notebook was edited after the run that crashed',
    ]);
  });

  it('a module no package is known for may be a file of the notebook its own; a submodule another version has', () => {
    const t = triageDraft(run({ outcome: 'skipped-env' }), {
      ...none,
      missingModules: [
        { module: 'utils', cell: 0, usedBeforeCrash: true, profiles: [], platform: false },
        { module: 'pandas.tools', installed: 'pandas', cell: 0, usedBeforeCrash: true, profiles: [], platform: false },
      ],
    });
    expect(t?.detail).toContain('pandas.tools is not in the installed pandas: another version of it has it');
    expect(t?.next).toContain('utils: no package of that name is known');
  });

  it('says what the derivation lacked, and which runs of the session the notebook no longer holds', () => {
    const t = triageDraft(run({ outcome: 'no-crash' }), {
      ...none,
      synthetic: ['data/a.csv'],
      derived: ['data/a.csv: 200 rows; columns x (float)'],
      unseenRuns: { count: 3, from: 5, to: 7 },
    });
    expect(t?.detail).toBe(
      'ran to the end without the expected KeyError — on synthetic data (data/a.csv), which lacks what made the crash: the message quotes "price", which no derived file holds (a value or a column of the real data the code never shows); the saved session also ran 3 cells before the crash that the notebook no longer holds (In [5]–In [7]: deleted, or re-run later), whose state the replay cannot have',
    );
  });

  it('a missing module that only downloads data: the obstacle is the network, with what it fetches', () => {
    const t = triageDraft(run({ outcome: 'skipped-env', reason: 'required module kagglehub not importable' }), {
      ...none,
      urls: ['https://www.kaggle.com/datasets/owner/houses'],
      missingModules: [{ module: 'kagglehub', cell: 0, usedBeforeCrash: true, profiles: [], platform: false }],
    });
    expect(t?.cause).toBe('needs-network');
    expect(t?.detail).toBe(
      'the notebook fetches its data with kagglehub, which is not installed here, from the network, which the sandbox does not have (https://www.kaggle.com/datasets/owner/houses)',
    );
    expect(t?.next).toContain('give the files with --data, and replace the kagglehub call');
    // Beside a module the code needs, it stays a package problem.
    const both = triageDraft(run({ outcome: 'skipped-env' }), {
      ...none,
      missingModules: [
        { module: 'kagglehub', cell: 0, usedBeforeCrash: true, profiles: [], platform: false },
        { module: 'xgboost', cell: 0, usedBeforeCrash: true, profiles: [], platform: false },
      ],
    });
    expect(both?.cause).toBe('needs-package');
  });

  it('a crashing line the cell no longer holds: edited after the crash, whatever the run did', () => {
    const edited = { editedCrashLine: { line: 4, text: 'train_x.head()' } };
    const t = triageDraft(run({ outcome: 'no-crash' }), { ...none, ...edited });
    expect(t?.cause).toBe('no-crash');
    expect(t?.detail).toBe(
      'the saved traceback shows line 4 of code cell 4 crashing ("train_x.head()"), and the cell\'s source no longer holds that line: the cell was edited after the crash, so the replay ran to the end without the expected KeyError',
    );
    expect(t?.next).toContain('put the line back into code cell 4');
    const other = triageDraft(run({ observed: { ename: 'TypeError', evalue: 'bad', cell: 4 } }), {
      ...none,
      ...edited,
    });
    expect(other?.cause).toBe('different-crash');
    expect(other?.detail).toContain('so the replay raised TypeError: bad (code cell 4) instead');
  });

  it('the same exception in the same cell after runs just before the crash that no cell holds: the cell re-run', () => {
    const t = triageDraft(
      run({
        expected: { ename: 'AttributeError', evalue: 'to_array not found', cell: 8 },
        observed: { ename: 'AttributeError', evalue: "'DataFrame' object has no attribute 'to_array'", cell: 8 },
      }),
      {
        ...none,
        synthetic: ['data/x.csv'],
        unseenRuns: { count: 61, from: 1, to: 55, justBefore: { from: 64, to: 69 } },
      },
    );
    expect(t?.cause).toBe('different-crash');
    expect(t?.detail).toBe(
      "AttributeError: 'DataFrame' object has no attribute 'to_array' (code cell 8) instead of AttributeError: to_array not found — the same exception in the same cell, with another message; the saved session ran 6 cells just before the crash that the notebook no longer holds (In [64]–In [69]), most likely the crashing cell itself run again on a state it had changed, so the objects it crashed on differ from a replay's (its data is synthetic too: data/x.csv)",
    );
    expect(t?.next).toContain('a repeated index in execution.cells');
    // A newer wording of the same message, or a single unseen run, is no sign of a re-run.
    const worded = triageDraft(
      run({
        expected: { ename: 'TypeError', evalue: 'only list-like objects are allowed, you passed a [int64]', cell: 8 },
        observed: { ename: 'TypeError', evalue: 'only list-like objects are allowed, you passed a [int]', cell: 8 },
      }),
      { ...none, unseenRuns: { count: 30, from: 341, to: 370, justBefore: { from: 341, to: 370 } } },
    );
    expect(worded?.detail).toContain('the same exception in the same cell, with another message: other data');
    const once = triageDraft(
      run({
        expected: { ename: 'KeyError', evalue: "('a', 'c')", cell: 8 },
        observed: { ename: 'KeyError', evalue: "'key of type tuple not found and not a MultiIndex'", cell: 8 },
      }),
      { ...none, unseenRuns: { count: 1, from: 26, to: 26, justBefore: { from: 26, to: 26 } } },
    );
    expect(once?.detail).toContain('the same exception in the same cell, with another message: other data');
  });

  it('a replay that went past the crash cell on data given: another version of the data', () => {
    const t = triageDraft(
      run({
        expected: { ename: 'ValueError', evalue: 'Length mismatch: Expected axis has 8 elements', cell: 6 },
        observed: { ename: 'KeyError', evalue: '"[\'Year\'] not found in axis"', cell: 8 },
      }),
      none,
    );
    expect(t?.cause).toBe('different-crash');
    expect(t?.detail).toContain(
      "code cell 6, where the saved run crashed, ran without that error on the data given, so what it met differs from the saved run's: another version of the data (the saved message: Length mismatch: Expected axis has 8 elements), or of a library",
    );
    expect(t?.next).toContain('give the data the saved run read');
  });

  it('a name the crash cell uses that only later runs define: the value came from a run the notebook lacks', () => {
    const t = triageDraft(run({ outcome: 'no-crash' }), {
      ...none,
      synthetic: ['data/k.csv'],
      definedAfterCrash: [{ name: 'temp_df', definers: [{ cell: 9, count: 213 }] }],
    });
    expect(t?.cause).toBe('no-crash');
    expect(t?.names).toEqual(['temp_df']);
    expect(t?.detail).toBe(
      "code cell 4 uses temp_df (original code cell 9, at In [213]): the notebook's cells that define it ran only after the crash, so the value the crash met came from a run the notebook no longer holds (that cell's earlier run, or a cell since deleted), and the replay's differs: it ran to the end without the expected KeyError (on synthetic data too: data/k.csv)",
    );
    expect(t?.next).toContain('recreate temp_df as the saved session had it before code cell 4');
  });

  it('a cell before the crash that ran in the saved session and raised here: a library version or state', () => {
    const observedEarly = { ename: 'ValueError', evalue: 'Buffer has wrong number of dimensions', cell: 2 };
    const t = triageDraft(run({ observed: observedEarly }), { ...none, ranInSession: [0, 1, 2] });
    expect(t?.detail).toContain(
      "; code cell 2 ran without error in the saved session, so what it met here differs from what it met then: another version of a library (this runtime's may be newer than the notebook's) or state from runs the notebook no longer holds",
    );
    expect(t?.next).toContain("compare code cell 2's saved output with the replay's");
    // On synthetic data the data is the first suspect, as before.
    const syn = triageDraft(run({ observed: observedEarly }), {
      ...none,
      synthetic: ['data/a.csv'],
      ranInSession: [2],
    });
    expect(syn?.detail).not.toContain('ran without error in the saved session');
  });

  it('the same type met in the same cell, another exception: the library version', () => {
    const t = triageDraft(
      run({
        expected: {
          ename: 'AttributeError',
          evalue: "'DatetimeIndex' object has no attribute 'to_timestamp'",
          cell: 32,
        },
        observed: { ename: 'TypeError', evalue: 'unsupported Type DatetimeIndex', cell: 32 },
      }),
      { ...none, synthetic: ['data/a.csv'] },
    );
    expect(t?.detail).toBe(
      "TypeError: unsupported Type DatetimeIndex (code cell 32) instead of AttributeError: 'DatetimeIndex' object has no attribute 'to_timestamp' — the replay met a DatetimeIndex in code cell 32 as the saved run did, and the library answered with another exception: another version of it (this runtime's is likely newer than the notebook's)",
    );
  });

  it('a cell that asks for typed input: no one types in a benchmark run; what the user typed, when the crash quotes it', () => {
    const stdin = {
      ename: 'StdinNotImplementedError',
      evalue: 'raw_input was called, but this frontend does not support input requests.',
      cell: 0,
    };
    const typed = triageDraft(
      run({
        expected: { ename: 'ValueError', evalue: "could not convert string to float: ''", cell: 0 },
        observed: stdin,
      }),
      none,
    );
    expect(typed).toMatchObject({ cause: 'different-crash' });
    expect(typed?.detail).toMatch(
      /^code cell 0 asks for typed input \(input\(\)\), and a benchmark run has no one to type: /,
    );
    expect(typed?.detail).toMatch(
      /the saved ValueError came from what the notebook's user typed \(its message quotes it: ''\)$/,
    );
    expect(typed?.next).toMatch(
      /^put what the user typed in place of the input\(\) call in code cell 0 of reproduced\.ipynb \(''\)/,
    );
    const other = triageDraft(run({ expected: { ename: 'KeyError', evalue: "'x'", cell: 0 }, observed: stdin }), none);
    expect(other?.detail).toMatch(/came from what the notebook's user typed$/);
  });

  it('a timeout in the crash cell says both ways out; elsewhere, the time limit', () => {
    const inCrash = triageDraft(run({ outcome: 'timeout', reason: 'cell exceeded 120 s', timedOutCell: 4 }), none);
    expect(inCrash?.detail).toBe(
      'cell exceeded 120 s in code cell 4, where the saved run crashed with KeyError: the replay ran past the time limit without that crash',
    );
    expect(inCrash?.next).toContain('if it crashed early');
    const before = triageDraft(run({ outcome: 'timeout', reason: 'cell exceeded 120 s', timedOutCell: 2 }), none);
    expect(before?.next).toBe(
      'raise execution.cellTimeoutSeconds in instance.json, or subsample the data (junobench subsample)',
    );
  });

  it.each<[{ ename: string; evalue: string }, string[], string]>([
    [
      { ename: 'AttributeError', evalue: "'DatetimeIndex' object has no attribute 'to_timestamp'" },
      [],
      'the message names "DatetimeIndex", "to_timestamp", a type, attribute or name of Python code, not a value of the data: the crash depends on the types the real data gave (a column\'s dtype, an index\'s kind), on earlier state, or on the library\'s version',
    ],
    [
      { ename: 'TypeError', evalue: "float() argument must be a string or a real number, not 'NAType'" },
      [],
      "pandas' nullable missing values (pd.NA), which a derived CSV does not make",
    ],
    [
      { ename: 'ValueError', evalue: "could not convert string to float: 'INLAND'" },
      ['data/h.csv: columns ocean (category: INLAND|NEAR)'],
      "the message names nothing the derivation can take from the code: the crash depends on the real data's values",
    ],
    [
      { ename: 'ValueError', evalue: 'shapes (5,5) and (6,1) not aligned' },
      [],
      "the real data's shape (the message's sizes come from it)",
    ],
  ])('describeDerivationGap(%j)', (expected, derived, text) => {
    expect(describeDerivationGap(expected, derived)).toBe(text);
  });

  it.each<[(number | null)[], number | null, ReproductionFindings['unseenRuns']]>([
    [[1, 2, 3], 4, undefined],
    [[1, 2, 3, 9], 9, { count: 5, from: 4, to: 8, justBefore: { from: 4, to: 8 } }],
    [[5, 6, 9], 9, { count: 6, from: 1, to: 4, justBefore: { from: 7, to: 8 } }],
    [[1, 2, 9, null], 10, { count: 6, from: 3, to: 8 }],
    [[2, 5], 7, { count: 4, from: 3, to: 4, justBefore: { from: 6, to: 6 } }],
    [[1], null, undefined],
  ])('findUnseenRuns(%j, %j)', (counts, crash, unseen) => {
    expect(findUnseenRuns(counts, crash)).toEqual(unseen);
  });
});
