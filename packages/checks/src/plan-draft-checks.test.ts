import { describe, expect, it } from 'vitest';
import { planDraftChecks } from './plan-draft-checks.js';
import { parseChecks } from './read-checks.js';

describe('planDraftChecks', () => {
  it('asks that what the crash cell binds, names and columns, exists after the last cell', () => {
    const file = planDraftChecks(
      'pandas_9',
      "# cast\ndf['units'] = df['units'].astype(int)\nrevenue, n = f(df)\nfor _x in range(3):\n    inner = 1\n",
    )!;
    expect(parseChecks(file)).toEqual([
      { name: 'check_df_units', reason: "`df['units']` exists after the last cell" },
      { name: 'check_revenue_defined', reason: '`revenue` exists after the last cell: the crash cell ran through' },
      { name: 'check_n_defined', reason: '`n` exists after the last cell: the crash cell ran through' },
    ]);
    expect(file).toContain('assert "units" in df, "no column units"');
    expect(file).toContain('`junobench checks suggest pandas_9 --write --force`');
  });

  it('writes nothing for a cell that binds nothing', () => {
    expect(planDraftChecks('x_1', 'model.fit(X, y)\nprint(1)')).toBeUndefined();
  });
});
