import { describe, expect, it } from 'vitest';
import { listCodeCells } from '@junobench/notebook';
import { buildRepairedNotebook } from './score-predictions.js';
import { checkRepair } from './check-repair.js';
import { makeNotebook } from '../test-helpers/score.js';

describe('buildRepairedNotebook', () => {
  const crashing = makeNotebook(['import pandas as pd', "df = pd.DataFrame({'a': [1]})\ndf['b']"]);

  it('joins a cell given as a list of lines as nbformat does, so it is the same repair as the string form', () => {
    const lines = buildRepairedNotebook(
      { cells: [['import pandas as pd'], ["df = pd.DataFrame({'a': [1]})\n", "df['a']"]] },
      { crashing, execution: { order: 'file', cellTimeoutSeconds: 60, timeoutSeconds: 600 } },
    );
    const text = buildRepairedNotebook(
      { cells: ['import pandas as pd', "df = pd.DataFrame({'a': [1]})\ndf['a']"] },
      { crashing, execution: { order: 'file', cellTimeoutSeconds: 60, timeoutSeconds: 600 } },
    );
    expect(lines).toEqual(text);
    const check = checkRepair(crashing, lines, { order: 'file' });
    expect(check.failure).toBeUndefined();
    expect(listCodeCells(check.notebook!).map((c) => c.source)).toEqual([
      'import pandas as pd',
      "df = pd.DataFrame({'a': [1]})\ndf['a']",
    ]);
  });

  it('numbers the cells 1, 2, … for an execution-count instance', () => {
    const nb = buildRepairedNotebook(
      { cells: [['x = 1'], 'x'] },
      { crashing, execution: { order: 'execution-count', cellTimeoutSeconds: 60, timeoutSeconds: 600 } },
    ) as { cells: { execution_count: number | null }[] };
    expect(nb.cells.map((c) => c.execution_count)).toEqual([1, 2]);
  });
});
