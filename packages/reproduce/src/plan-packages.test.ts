import { describe, expect, it } from 'vitest';
import { cellFacts } from '../test-helpers/facts.js';
import { moduleTheCrashLacks, planPackages } from './plan-packages.js';

describe('planPackages and the module whose absence is the crash', () => {
  it.each<[string, string, string | undefined]>([
    ['ModuleNotFoundError', "No module named 'xgboost'", 'xgboost'],
    ['ModuleNotFoundError', "No module named 'tensorflow.keras'", 'tensorflow.keras'],
    ['ImportError', "cannot import name 'plot_confusion_matrix' from 'sklearn.metrics'", undefined],
    ['KeyError', "'No module named x'", undefined],
  ])('moduleTheCrashLacks(%s: %s) = %s', (ename, evalue, module) => {
    expect(moduleTheCrashLacks({ ename, evalue })).toBe(module);
  });

  it('keeps the import that is the crash (to fail as it did) while an unused missing one is left out', () => {
    const imp = (module: string, line: number) => ({ module, alias: module, line, endLine: line, top: true });
    const facts = [cellFacts(0, { imports: [imp('numpy', 1), imp('not_here', 2), imp('tqdm', 3)], loads: [] })];
    const p = planPackages(
      facts,
      0,
      { numpy: true, not_here: false, tqdm: false },
      [],
      ['import numpy\nimport not_here\nimport tqdm'],
      'not_here',
    );
    expect(p.drop.map((d) => d.line)).toEqual([3]);
    expect(p.missing).toEqual([]);
  });

  it('a submodule the installed package lacks is missing too: left out when unused, else reported with the package', () => {
    const imp = (module: string, alias: string, line: number) => ({ module, alias, line, endLine: line, top: true });
    const facts = [
      cellFacts(0, {
        imports: [imp('pandas.tools.plotting', 'scatter_matrix', 1), imp('pandas.io.data', 'DataReader', 2)],
        loads: [],
      }),
      cellFacts(1, { loads: ['DataReader'] }),
    ];
    const importable = { pandas: true, 'pandas.tools.plotting': false, 'pandas.io.data': false };
    const p = planPackages(facts, 1, importable, [], ['', '']);
    expect(p.drop.map((d) => d.line)).toEqual([1]);
    expect(p.missing).toEqual([
      { module: 'pandas.io.data', installed: 'pandas', cell: 0, usedBeforeCrash: true, profiles: [], platform: false },
    ]);
  });

  it('an import cell below the crash that the saved counts run before it: planned by the order the replay runs', () => {
    const imp = (module: string, alias: string, line: number) => ({ module, alias, line, endLine: line, top: true });
    // Code cell 0 is the crash (In [6]); code cell 1 (In [2], after a restart) imports a missing module no cell uses.
    const facts = [
      cellFacts(0, { undefined: ['train_skew'], loads: ['train_skew'] }),
      cellFacts(1, { imports: [imp('lightgbm', 'LGBMRegressor', 1)], defines: ['LGBMRegressor'] }),
      cellFacts(2, { loads: ['LGBMRegressor'] }),
    ];
    const sources = ['train_skew.drop("x")', 'from lightgbm import LGBMRegressor', 'LGBMRegressor()'];
    const byFile = planPackages(facts, 0, { lightgbm: false }, [], sources);
    expect(byFile.drop).toEqual([]);
    const byRun = planPackages(facts, 0, { lightgbm: false }, [], sources, undefined, [1, 0, 2]);
    expect(byRun.drop.map((d) => [d.cell, d.line])).toEqual([[1, 1]]);
    expect(byRun.edits[0]?.why).toContain('no cell up to the crash uses LGBMRegressor');
    expect(byRun.missing).toEqual([]);
  });
});
