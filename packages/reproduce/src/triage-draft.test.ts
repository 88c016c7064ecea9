import { describe, expect, it } from 'vitest';
import { triageDraft, type ReproductionFindings, type RunEvidence } from './triage-draft.js';

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
    ['no crash', run({ outcome: 'no-crash' }), {}, 'no-crash'],
    ['out of time', run({ outcome: 'timeout', reason: 'cell 3 ran over 120 s' }), {}, 'timeout'],
  ])('%s → %s', (_name, evidence, found, cause) => {
    const t = triageDraft(evidence, { ...none, ...found });
    expect(t?.cause).toBe(cause);
    expect(t?.next.length).toBeGreaterThan(10);
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
});
