import { describe, expect, it } from 'vitest';
import { cellFacts } from '../test-helpers/facts.js';
import { findCellsThatRan, findDefinedAfterCrash } from './find-session-state.js';

describe('findDefinedAfterCrash: names the crash met that only later runs define', () => {
  // Cell 1 builds temp_df but ran at In [213]; the crash (cell 3) ran at In [96]. Cell 0's import re-ran at In [300].
  const facts = new Map([
    [
      0,
      cellFacts(0, { defines: ['pd'], imports: [{ module: 'pandas', alias: 'pd', line: 1, endLine: 1, top: true }] }),
    ],
    [1, cellFacts(1, { defines: ['temp_df'], undefined: ['pd'], undefinedNow: ['pd'] })],
    [2, cellFacts(2, { defines: ['df'] })],
    [3, cellFacts(3, { undefined: ['temp_df', 'df', 'pd'], undefinedNow: ['temp_df', 'df', 'pd'] })],
  ]);
  const counts = new Map<number, number | null>([
    [0, 300],
    [1, 213],
    [2, 5],
    [3, 96],
  ]);

  it('names temp_df with its definer, not df (defined before) nor pd (an import)', () => {
    expect(findDefinedAfterCrash(facts, counts, { cell: 3, count: 96 })).toEqual([
      { name: 'temp_df', definers: [{ cell: 1, count: 213 }] },
    ]);
  });

  it('finds nothing without the crash count, or when a definer ran before the crash', () => {
    expect(findDefinedAfterCrash(facts, counts, { cell: 3, count: null })).toEqual([]);
    expect(findDefinedAfterCrash(facts, new Map([...counts, [1, 50]]), { cell: 3, count: 96 })).toEqual([]);
  });
});

describe('findCellsThatRan', () => {
  it('keeps the cells with a count and no saved error', () => {
    expect(
      findCellsThatRan([
        { executionCount: 1, hasError: false },
        { executionCount: null, hasError: false },
        { executionCount: 3, hasError: true },
        { executionCount: 4, hasError: false },
      ]),
    ).toEqual([0, 3]);
  });
});
