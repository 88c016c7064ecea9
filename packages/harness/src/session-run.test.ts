import { describe, expect, it } from 'vitest';
import type { RunResult } from '@junobench/core';
import type { Notebook } from '@junobench/notebook';
import { planDetectNotebook, planReplay } from './harness-task.js';
import { parseRunCellProbe, planRunNotebook } from './session-run.js';

const nb = (cells: [string, number | null][]): Notebook => ({
  nbformat: 4,
  nbformat_minor: 5,
  metadata: {},
  cells: [
    { cell_type: 'markdown', source: '# title', metadata: {} },
    ...cells.map(([source, n]) => ({
      cell_type: 'code' as const,
      source,
      execution_count: n,
      metadata: {},
      outputs: [],
    })),
  ],
});

describe('planReplay', () => {
  it.each([
    ['file order: the cells above the target', 'file' as const, undefined, 2, [0, 1]],
    ['execution counts: the cells run before the target', 'execution-count' as const, undefined, 1, [2, 0]],
    ['an explicit list, up to the first run of the target', 'file' as const, [0, 1, 0, 2, 1], 2, [0, 1, 0]],
  ])('%s', (_name, order, explicit, target, expected) => {
    const notebook = nb([
      ['a = 1', 2],
      ['b = a', 3],
      ['c = b', 1],
    ]);
    expect(planReplay(notebook, order, explicit, target)).toEqual(expected);
  });
});

describe('planRunNotebook', () => {
  it("runs the replay, then the accepted cells after the notebook's code cells, without outputs", () => {
    const planned = planRunNotebook(planDetectNotebook(['a = 1', 'b = 2'], 'a / 0'), [0, 1], ['c = 3']);
    expect(planned.cells).toEqual([0, 1, 3]);
    expect(planned.notebook.cells.map((c) => c.source)).toEqual(['a = 1', 'b = 2', 'a / 0', 'c = 3']);
  });
});

describe('parseRunCellProbe', () => {
  const result = (over: Partial<RunResult>): RunResult => ({
    id: 's',
    status: 'completed',
    cells: [{ index: 0, status: 'ok', durationMs: 1 }],
    durationMs: 1,
    ...over,
  });
  it('reads the report the code printed', () => {
    const stdout = `noise\n__junobench_run_cell__:${JSON.stringify({ status: 'ok', output: 'hi\n', result: '42' })}\n`;
    expect(parseRunCellProbe(result({ probe: { finish: { status: 'ok', stdout, durationMs: 1 } } }))).toEqual({
      status: 'ok',
      output: 'hi\n',
      result: '42',
    });
  });
  it('says which replayed cell failed when the new code never ran', () => {
    const r = result({
      status: 'error',
      cells: [{ index: 3, status: 'error', ename: 'KeyError', evalue: "'x'", traceback: ['KeyError'], durationMs: 1 }],
    });
    expect(parseRunCellProbe(r)).toMatchObject({ status: 'replay-failed', replay: { cell: 3, ename: 'KeyError' } });
  });
  it('reports a timeout of the new code', () => {
    const r = result({ probe: { finish: { status: 'timeout', stdout: '', durationMs: 1 } } });
    expect(parseRunCellProbe(r).status).toBe('timeout');
  });
});
