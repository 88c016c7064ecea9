import { describe, expect, it } from 'vitest';
import { planCandidateChecks, renderChecksFile, type CandidateCheck } from './plan-candidate-checks.js';
import { parseChecks } from './read-checks.js';
import type { ChecksVerdict, RunSnapshot } from './read-checks-probe.js';
import { selectChecks } from './select-checks.js';

const snapshot: RunSnapshot = {
  from: 6,
  reached: true,
  names: {
    df: {
      type: 'pandas.core.frame.DataFrame',
      shape: [99988, 3],
      columns: ['units', 'revenue', 'region'],
      dtypes: { units: 'int64', revenue: 'float64', region: 'object' },
      missing: { units: 0, revenue: 0, region: 2 },
      stats: { units: { missing: 0, infinite: 0, mean: 2.5 }, revenue: { missing: 0, infinite: 0, mean: 110.25 } },
    },
    model: {
      type: 'sklearn.linear_model._ridge.Ridge',
      estimator: true,
      fitted: ['coef_', 'n_features_in_'],
      nFeatures: 26,
    },
    losses: { type: 'list', length: 30, sum: 12.5 },
    cm: { type: 'numpy.ndarray', shape: [3, 3], dtype: 'int64', sum: 53, missing: 0, infinite: 0, mean: 5.9 },
  },
  figures: [
    {
      position: 6,
      suptitle: '',
      axes: [
        {
          title: 'Elbow method',
          xlabel: 'k',
          ylabel: '',
          lines: [9],
          patches: 0,
          collections: [],
          images: 0,
          texts: 0,
        },
        { title: '', xlabel: 'tenure', ylabel: '', lines: [], patches: 30, collections: [], images: 0, texts: 0 },
      ],
    },
  ],
  printed: [{ position: 7, text: 'accuracy: 0.93\n"quoted" \\ line\n' }],
  shown: [],
};

describe('planCandidateChecks', () => {
  const candidates = planCandidateChecks(snapshot);
  const byName = new Map(candidates.map((c) => [c.name, c]));

  it('derives properties of what the fix produced, general ones first', () => {
    expect(byName.get('check_df_units_dtype')).toEqual({
      name: 'check_df_units_dtype',
      reason: "`df['units']` is an integer column",
      body: ['assert df["units"].dtype.kind in "iu", str(df["units"].dtype)'],
      rank: 1,
    });
    expect(byName.get('check_df_rows')!.body[0]).toBe('assert abs(len(df) - 99988) <= max(1, 0.01 * 99988), len(df)');
    expect(byName.get('check_model_fitted')!.body).toEqual(['assert hasattr(model, "n_features_in_")']);
    expect(byName.get('check_cm_total')!.reason).toBe('the values of `cm` add up to 53');
    expect(byName.get('check_plot_elbow_method_line_9')!.body[0]).toBe(
      'assert any(len(line.get_xdata()) == 9 for ax in jb.axes(title="Elbow method") for line in ax.lines)',
    );
    expect(byName.get('check_plot_tenure_bars')!.body[0]).toBe(
      'assert any(len(ax.patches) > 0 for ax in jb.axes(xlabel="tenure"))',
    );
    expect(byName.has('check_df_region_complete')).toBe(false);
    expect(candidates.map((c) => c.rank)).toEqual([...candidates.map((c) => c.rank)].sort());
    expect(new Set(candidates.map((c) => c.name)).size).toBe(candidates.length);
  });

  it('renders a checks.py that reads back with the same names and reasons, quotes and backslashes included', () => {
    const file = renderChecksFile('pandas_3', candidates);
    expect(parseChecks(file)).toEqual(candidates.map((c) => ({ name: c.name, reason: c.reason })));
    expect(file).toMatch(/^"""What a fix of pandas_3 must achieve/);
  });
});

describe('selectChecks', () => {
  const c = (name: string, rank: CandidateCheck['rank']): CandidateCheck => ({
    name,
    reason: name,
    body: ['pass'],
    rank,
  });
  const verdict = (failing: string[], all: string[]): ChecksVerdict => ({
    status: 'ok',
    evidence: [],
    checks: all.map((name) => ({ name, passed: !failing.includes(name) })),
  });
  const all = ['check_general', 'check_exact', 'check_flaky', 'check_other'];
  const candidates = [c('check_general', 1), c('check_exact', 3), c('check_flaky', 1), c('check_other', 2)];

  it('keeps what passes both fixed runs and covers the completed mutants, general checks first', () => {
    const s = selectChecks(
      candidates,
      [verdict([], all), verdict(['check_flaky'], all)],
      [
        {
          id: 'm1',
          completed: true,
          hiding: false,
          verdict: verdict(['check_general', 'check_exact', 'check_flaky'], all),
        },
        { id: 'm2', completed: true, hiding: false, verdict: verdict(['check_exact'], all) },
        { id: 'm3', completed: false, hiding: false, verdict: verdict(all, all) },
        { id: 'm4', completed: true, hiding: true, verdict: verdict([], all) },
      ],
    );
    expect(s.dropped).toEqual(['check_flaky']);
    expect(s.selected.map((x) => x.name)).toEqual(['check_general', 'check_exact']);
    expect(s.uncovered).toEqual(['m4']);
  });

  it('proposes the most general checks when every mutant crashes by itself', () => {
    const s = selectChecks(
      candidates,
      [verdict([], all)],
      [{ id: 'm', completed: false, hiding: false, verdict: verdict(all, all) }],
    );
    expect(s.selected.map((x) => x.name)).toEqual(['check_general', 'check_flaky', 'check_other']);
    expect(s.uncovered).toEqual([]);
  });
});
