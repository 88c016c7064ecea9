import { describe, expect, it } from 'vitest';
import { cellFacts } from '../test-helpers/facts.js';
import { chooseReplayOrder, findUnboundUses } from './plan-replay-order.js';

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
