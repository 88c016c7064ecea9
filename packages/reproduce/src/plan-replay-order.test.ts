import { execaRunner } from '@junobench/runtime';
import { describe, expect, it } from 'vitest';
import { cellFacts } from '../test-helpers/facts.js';
import { analyzeCells } from './analyze-cells.js';
import { chooseReplayOrder, findUnboundUses, leaveOutIdleUses, leaveOutOrphanUses } from './plan-replay-order.js';

const crash = { cell: 3, ename: 'ValueError', evalue: 'bad' };

describe('findUnboundUses', () => {
  it('names a name used before the cell that defines it, not one no cell defines nor the crash NameError', () => {
    const facts = new Map([
      [0, cellFacts(0, { defines: ['pd'] })],
      [1, cellFacts(1, { undefined: ['df', 'pd', 'display_helper'] })],
      [2, cellFacts(2, { defines: ['df'], undefined: ['pd'] })],
      [3, cellFacts(3, { undefined: ['df', 'model'] })],
    ]);
    expect(
      findUnboundUses([0, 1, 2, 3], facts, { cell: 3, ename: 'NameError', evalue: "name 'model' is not defined" }),
    ).toEqual([{ name: 'df', usedIn: 1, definedIn: [2] }]);
  });

  it('a use inside a function body (undefinedNow leaves it out) is no order problem', () => {
    const facts = new Map([
      [0, cellFacts(0, { undefined: ['model'], undefinedNow: [], defines: ['f'] })],
      [1, cellFacts(1, { defines: ['model'] })],
    ]);
    expect(findUnboundUses([0, 1], facts, crash)).toEqual([]);
  });
});

describe('chooseReplayOrder', () => {
  // The import cell was re-run after the crash: its saved count puts it after the cell that uses np.
  const facts = new Map([
    [0, cellFacts(0, { defines: ['np'] })],
    [1, cellFacts(1, { defines: ['x'], undefined: ['np'] })],
    [2, cellFacts(2, { undefined: ['x', 'y'] })],
    [3, cellFacts(3, { defines: ['y'], undefined: ['x'] })],
  ]);

  it('keeps the saved order when it binds every name', () => {
    const c = chooseReplayOrder({ order: 'execution-count', sequence: [0, 1, 3] }, [0, 1, 3], facts, crash);
    expect(c).toMatchObject({ chosen: 'execution-count', unbound: [] });
  });

  it('falls back to file order when the saved counts cannot have produced the crash', () => {
    const c = chooseReplayOrder({ order: 'execution-count', sequence: [1, 0, 3] }, [0, 1, 3], facts, crash);
    expect(c.chosen).toBe('file');
    expect(c.sequence).toEqual([0, 1, 3]);
    expect(c.why).toContain('np');
  });

  it('moves a defining cell before its first use when file order does not bind it either', () => {
    const c = chooseReplayOrder({ order: 'file', sequence: [0, 1, 2, 3] }, [0, 1, 2, 3], facts, { ...crash, cell: 2 });
    expect(c.chosen).toBe('needed');
    expect(c.sequence).toEqual([0, 1, 3, 2]);
  });

  it('reports the names when no order binds them', () => {
    const f = new Map([
      [0, cellFacts(0, { undefined: ['z'] })],
      [1, cellFacts(1, { defines: ['z'], undefined: ['w'] })],
      [2, cellFacts(2, { defines: ['w'], undefined: ['z'] })],
    ]);
    const c = chooseReplayOrder({ order: 'file', sequence: [0, 1] }, [0, 1], f, { ...crash, cell: 1 });
    expect(c.unbound.map((u) => u.name)).toEqual(['z', 'w']);
    expect(c.chosen).toBe('file');
  });
});

describe('chooseReplayOrder: cells that never ran in this form', () => {
  // Cell 1 is prose kept in a code cell (no count, no output); cell 2 an unfinished exercise that did run once.
  const facts = new Map([
    [0, cellFacts(0, { defines: ['df'] })],
    [1, cellFacts(1, { parsed: false, syntaxError: 'invalid syntax (line 1)' })],
    [2, cellFacts(2, { parsed: false, syntaxError: "expected an indented block after 'for' (line 3)" })],
    [3, cellFacts(3, { undefined: ['df'] })],
  ]);
  const counts = new Map<number, number | null>([
    [0, 1],
    [1, null],
    [2, 2],
    [3, 3],
  ]);

  it('leaves out a cell before the crash that does not parse and has no execution count, and says why', () => {
    const c = chooseReplayOrder({ order: 'file', sequence: [0, 1, 2, 3] }, [0, 1, 2, 3], facts, crash, counts);
    expect(c.sequence).toEqual([0, 2, 3]);
    expect(c.leftOut).toEqual([{ cell: 1, names: ['invalid syntax (line 1)'], reason: 'never-ran' }]);
    expect(c.why).toContain('code cell 1 does not parse and has no execution count (never ran in this form)');
  });

  it('keeps every cell when the saved counts are not given', () => {
    const c = chooseReplayOrder({ order: 'file', sequence: [0, 1, 2, 3] }, [0, 1, 2, 3], facts, crash);
    expect(c.sequence).toEqual([0, 1, 2, 3]);
    expect(c.leftOut).toBeUndefined();
  });
});

describe('leaveOutIdleUses: the saved order kept when only cells the crash cannot depend on break it', () => {
  // In [1] load, In [2] a cell below the crash drops a column, In [3] shows y (whose defining cell re-ran after the
  // crash), In [4] the crash. File order would lose In [2].
  const facts = new Map([
    [0, cellFacts(0, { defines: ['df'] })],
    [1, cellFacts(1, { undefined: ['df'], loads: ['df'], mutates: ['df'] })],
    [2, cellFacts(2, { undefined: ['df'], loads: ['df'] })],
    [3, cellFacts(3, { undefined: ['y'], loads: ['y'] })],
    [4, cellFacts(4, { defines: ['y'], undefined: ['df'], loads: ['df'] })],
  ]);
  const crashAt2 = { cell: 2, ename: 'KeyError', evalue: "'col'" };

  it('leaves nothing out when the saved counts define the name first', () => {
    const c = chooseReplayOrder({ order: 'execution-count', sequence: [0, 4, 3, 1, 2] }, [0, 1, 2], facts, crashAt2);
    expect(c).toMatchObject({ chosen: 'execution-count', sequence: [0, 4, 3, 1, 2], unbound: [] });
    expect(c.leftOut).toBeUndefined();
  });

  it('leaves out the idle cell, not the one that changes what the crash reads', () => {
    const c = chooseReplayOrder({ order: 'execution-count', sequence: [0, 3, 1, 2] }, [0, 1, 2], facts, crashAt2);
    expect(c.chosen).toBe('execution-count');
    expect(c.sequence).toEqual([0, 1, 2]);
    expect(c.leftOut).toEqual([{ cell: 3, names: ['y'], reason: 'unbound' }]);
    expect(c.why).toContain('code cell 3 (y)');
  });

  it('does not leave out a cell whose result a later cell up to the crash loads', () => {
    const f = new Map([
      [0, cellFacts(0, { defines: ['df'] })],
      [1, cellFacts(1, { defines: ['z'], undefined: ['y'], loads: ['y'] })],
      [2, cellFacts(2, { undefined: ['df', 'z'], loads: ['df', 'z'] })],
      [3, cellFacts(3, { defines: ['y'] })],
    ]);
    expect(leaveOutIdleUses([0, 1, 2], f, crashAt2)).toBeNull();
  });

  it('does not leave out a cell that changes, in place, a name a later cell loads', () => {
    const f = new Map([
      [0, cellFacts(0, { defines: ['df'] })],
      [1, cellFacts(1, { undefined: ['df', 'cols'], loads: ['df', 'cols'], mutates: ['df'] })],
      [2, cellFacts(2, { undefined: ['df'], loads: ['df'] })],
      [3, cellFacts(3, { defines: ['cols'] })],
    ]);
    expect(leaveOutIdleUses([0, 1, 2], f, crashAt2)).toBeNull();
  });

  it('never leaves out the crashing cell, and says null when nothing is unbound', () => {
    const f = new Map([
      [0, cellFacts(0, { undefined: ['y'], loads: ['y'] })],
      [1, cellFacts(1, { defines: ['y'] })],
    ]);
    expect(leaveOutIdleUses([0], f, { cell: 0, ename: 'KeyError', evalue: "'a'" })).toBeNull();
    expect(leaveOutIdleUses([1, 0], f, { cell: 0, ename: 'KeyError', evalue: "'a'" })).toBeNull();
  });
});

describe('leaveOutIdleUses on a notebook the analyser reads (Debian python3, pyflakes)', () => {
  it('leaves out a cell that only shows y_train, not one that drops a column in place', async () => {
    // Saved counts: load, drop (a cell below the crash), show y_train (defined by a cell re-run after the crash), crash.
    const cells = [
      "import pandas as pd\ndf = pd.DataFrame({'a': [1], 'b': [2]})",
      "df.drop(columns=['b'], inplace=True)",
      "df['b'] + 1",
      'y_train[:10]',
      "y_train = df['a']",
    ];
    const facts = await analyzeCells(
      cells.map((source, index) => ({ index, source })),
      { python: '/usr/bin/python3', run: execaRunner },
    );
    const byIndex = new Map(facts.cells.map((f) => [f.index, f]));
    const c = chooseReplayOrder({ order: 'execution-count', sequence: [0, 1, 3, 2] }, [0, 1, 2], byIndex, {
      cell: 2,
      ename: 'KeyError',
      evalue: "'b'",
    });
    expect(c).toMatchObject({
      chosen: 'execution-count',
      sequence: [0, 1, 2],
      leftOut: [{ cell: 3, names: ['y_train'] }],
    });
  }, 60_000);
});

describe('leaveOutOrphanUses: a name no cell defines, in a cell the crash does not need', () => {
  const crash = { cell: 3 };
  it('leaves out an idle cell that uses a name no cell defines, before the crash only', () => {
    const f = new Map([
      [0, cellFacts(0, { defines: ['df'] })],
      [1, cellFacts(1, { defines: ['fig', 'ax'], undefined: ['stray'], loads: ['stray'] })],
      [2, cellFacts(2, { undefined: ['df'], loads: ['df'] })],
      [3, cellFacts(3, { undefined: ['df'], loads: ['df'] })],
      [4, cellFacts(4, { undefined: ['gone'], loads: ['gone'] })],
    ]);
    expect(leaveOutOrphanUses([0, 1, 2, 3, 4], f, crash)).toEqual({
      sequence: [0, 2, 3, 4],
      leftOut: [{ cell: 1, names: ['stray'], reason: 'undefined' }],
    });
  });

  it('keeps a cell whose result the crash loads, and any cell after a star import', () => {
    const needed = new Map([
      [0, cellFacts(0, { defines: ['df'], undefined: ['helper'], loads: ['helper'] })],
      [3, cellFacts(3, { undefined: ['df'], loads: ['df'] })],
    ]);
    expect(leaveOutOrphanUses([0, 3], needed, crash)).toBeNull();
    const star = new Map([
      [0, cellFacts(0, { star: true })],
      [1, cellFacts(1, { undefined: ['helper'], loads: ['helper'] })],
      [3, cellFacts(3, {})],
    ]);
    expect(leaveOutOrphanUses([0, 1, 3], star, crash)).toBeNull();
  });

  it('chooseReplayOrder reports it with the order it chose', () => {
    const f = new Map([
      [0, cellFacts(0, { defines: ['df'] })],
      [1, cellFacts(1, { undefined: ['stray'], loads: ['stray'] })],
      [3, cellFacts(3, { undefined: ['df'], loads: ['df'] })],
    ]);
    const c = chooseReplayOrder({ order: 'file', sequence: [0, 1, 3] }, [0, 1, 3], f, {
      ...crash,
      ename: 'ValueError',
      evalue: 'x',
    });
    expect(c).toMatchObject({ chosen: 'file', sequence: [0, 3], leftOut: [{ cell: 1, reason: 'undefined' }] });
    expect(c.why).toContain('code cell 1 (stray) uses a name no cell of the notebook defines');
  });

  it('on a notebook the analyser reads: a plotting cell ending in a stray name goes, display() does not count', async () => {
    const cells = [
      "import pandas as pd\nimport matplotlib.pyplot as plt\ndf = pd.DataFrame({'a': [1, 2]})",
      'fig, ax = plt.subplots(figsize=(4, 3))\na',
      'display(df.head())',
      "df.reset_index(level='a')",
    ];
    const facts = await analyzeCells(
      cells.map((source, index) => ({ index, source })),
      { python: '/usr/bin/python3', run: execaRunner },
    );
    const byIndex = new Map(facts.cells.map((x) => [x.index, x]));
    expect(leaveOutOrphanUses([0, 1, 2, 3], byIndex, crash)).toEqual({
      sequence: [0, 2, 3],
      leftOut: [{ cell: 1, names: ['a'], reason: 'undefined' }],
    });
  }, 60_000);
});
