import { describe, expect, it } from 'vitest';
import { describeExecution, renderDetectPrompt, renderRepairPrompt } from './render-prompt.js';
import { makeNotebook } from '../test-helpers/score.js';

const nb = makeNotebook(['import pandas as pd', "df = pd.read_csv('data/prices.csv')", "df['price'].sum()"]);
const error = { cell: 2, ename: 'KeyError', evalue: "'price'", traceback: ["KeyError: 'price'"] };

describe('repair prompt', () => {
  const prompt = renderRepairPrompt(nb, error, { order: 'file', cellTimeoutSeconds: 120, timeoutSeconds: 600 }, [
    'data/prices.csv',
  ]);

  it('says where and how the repair runs, and that nothing can be installed there', () => {
    expect(prompt).toContain(
      'with its folder as working directory (holding data/prices.csv), every code cell from top to bottom; at most 120 s per cell and 600 s in all.',
    );
    // A language model's usual repair for a missing module is `!pip install`: it fails in the sandbox, so say so.
    expect(prompt).toContain(
      'It has no network access and nothing can be installed: use the libraries that are there (those the notebook imports).',
    );
  });

  it('states the rules of "resolved" and both answer forms', () => {
    expect(prompt).toContain('every code cell above is still there and runs, the crashing cell included');
    expect(prompt).toMatch(
      /do not add exception handlers \(try\/except, contextlib\.suppress\) or guards such as `if False:`/,
    );
    expect(prompt).toContain('{"cells": [');
    expect(prompt).toContain('{"notebook": <the repaired notebook as nbformat 4 JSON>}');
  });

  it('describes each execution order', () => {
    expect(describeExecution({ order: 'execution-count' })).toBe(
      'code cells in the order of their execution counts; a code cell without an execution count is not run, so give every code cell one (the cells that never ran, such as those after the crash, have none)',
    );
    expect(describeExecution({ order: 'file', cells: [0, 2, 1] })).toBe(
      'code cells in this order: 0, 2, 1 (so keep the number of code cells)',
    );
  });
});

describe('detect prompt', () => {
  it('numbers the cells from 1 with the target last', () => {
    const p = renderDetectPrompt(['import pandas as pd'], "df['price'].sum()");
    expect(p).toContain('Cell 1 ran without raising an exception; cell 2 is executed next.');
    expect(renderDetectPrompt(['a = 1', 'b = 2'], 'c = a + b')).toContain(
      'Cells 1 to 2 ran without raising an exception; cell 3 is executed next.',
    );
    expect(p).toContain('### Cell 2 (executed next)');
    expect(renderDetectPrompt([], 'x = 1')).toContain('It is cell 1.');
  });
});
