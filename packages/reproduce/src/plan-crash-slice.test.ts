import { describe, expect, it } from 'vitest';
import { cellFacts } from '../test-helpers/facts.js';
import { cellsOutsideSlice, crashSlice } from './plan-crash-slice.js';
import { commentOutLines, planPackages } from './plan-packages.js';

// import pandas as pd, tensorflow as tf | data = pd.read_csv(...) | t = tf.constant(data['x']) | plt-like use of t |
// data.dropna(inplace=True) | crash: model(data)
const notebook = () => [
  cellFacts(0, { defines: ['pd', 'tf'], imports: [imp('pandas', 'pd', 1), imp('tensorflow', 'tf', 2)] }),
  cellFacts(1, { defines: ['data'], undefined: ['pd'], loads: ['pd'], mutates: ['pd'] }),
  cellFacts(2, { defines: ['t'], undefined: ['tf', 'data'], loads: ['tf', 'data'], mutates: ['tf'] }),
  cellFacts(3, { undefined: ['t'], loads: ['t'], mutates: [] }),
  cellFacts(4, { undefined: ['data'], loads: ['data'], mutates: ['data'] }),
  cellFacts(5, { undefined: ['data', 'pd'], loads: ['data', 'pd'], mutates: ['pd'] }),
];

function imp(module: string, alias: string, line: number) {
  return { module, alias, line, endLine: line, top: true };
}

describe('crashSlice', () => {
  it('holds the cells that bind or change what the crashing cell uses, and not the others', () => {
    expect([...crashSlice(notebook(), 5)].sort()).toEqual([0, 1, 4, 5]);
  });

  it('counts every used name as changed when the analyser gave no mutates', () => {
    const facts = notebook().map((f) => {
      const { mutates: _m, ...rest } = f;
      return rest;
    });
    expect(crashSlice(facts, 5).has(2)).toBe(true);
  });
});

describe('cellsOutsideSlice', () => {
  it('leaves out the users of a missing module and the cells that use what only they bind', () => {
    expect([...cellsOutsideSlice(notebook(), 5, [2])!.keys()]).toEqual([2, 3]);
  });

  it('leaves out nothing when the crash needs one of them', () => {
    expect(cellsOutsideSlice(notebook(), 5, [4])).toBeUndefined();
    const facts = notebook();
    facts[5] = cellFacts(5, { undefined: ['t'], loads: ['t'] });
    expect(cellsOutsideSlice(facts, 5, [2])).toBeUndefined();
  });
});

describe('planPackages with a missing module the crash does not need', () => {
  it('comments out the cells that use it and its import, and records why', () => {
    const sources = [
      'import pandas as pd\nimport tensorflow as tf',
      'data = 1',
      't = tf.constant(data)',
      'for x in t:\n    print(x)',
      '',
      '',
    ];
    const p = planPackages(notebook(), 5, { pandas: true, tensorflow: false }, [], sources);
    expect(p.missing).toEqual([]);
    expect(p.drop.map((d) => [d.cell, d.line, !!d.whole])).toEqual([
      [2, 1, true],
      [3, 1, true],
      [0, 2, false],
    ]);
    expect(p.edits[0]!.why).toMatch(
      /tf \(tensorflow, which this runtime cannot import\), and the crash does not depend/,
    );
    expect(p.edits[1]!.why).toMatch(/uses t, which code cell 2 \(left out\) binds/);
    expect(commentOutLines(sources[3]!, [p.drop[1]!])).toBe(
      '# junobench: for x in t:\n# junobench:     print(x)\n# junobench: (left out: the crash does not depend on it)',
    );
  });

  it('still reports the module when the crash needs a cell that uses it', () => {
    const facts = notebook();
    facts[5] = cellFacts(5, { undefined: ['t'], loads: ['t'] });
    const p = planPackages(facts, 5, { pandas: true, tensorflow: false }, [], ['', '', '', '', '', '']);
    expect(p.missing.map((m) => [m.module, m.usedBeforeCrash])).toEqual([['tensorflow', true]]);
    expect(p.drop).toEqual([]);
  });
});
