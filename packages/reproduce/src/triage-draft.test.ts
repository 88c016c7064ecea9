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
      'ran to the end without the expected KeyError — on synthetic data (data/a.csv), which lacks what made the crash: the message quotes "price", which no derived file holds (a value or a name of the real data the code never shows); the saved session also ran 3 cells before the crash that the notebook no longer holds (In [5]–In [7]: deleted, or re-run later), whose state the replay cannot have',
    );
  });

  it.each<[{ ename: string; evalue: string }, string[], string]>([
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
    [[1, 2, 9, null], 10, { count: 6, from: 3, to: 8 }],
    [[2, 5], 7, { count: 4, from: 3, to: 4 }],
    [[1], null, undefined],
  ])('findUnseenRuns(%j, %j)', (counts, crash, unseen) => {
    expect(findUnseenRuns(counts, crash)).toEqual(unseen);
  });
});
