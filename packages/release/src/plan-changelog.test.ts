import { describe, expect, it } from 'vitest';
import type { ReleaseInstance, ReleaseManifest } from '@junobench/core';
import { formatChangelog, planChangelog } from './plan-changelog.js';

const file = (path: string, sha: string) => ({ path, bytes: 1, sha256: sha.repeat(64).slice(0, 64) });
const inst = (id: string, over: Partial<ReleaseInstance> = {}): ReleaseInstance => ({
  id,
  status: 'verified',
  labels: { library: 'pandas', crashType: 'key error', rootCause: 'API misuse', pipelineStage: 'training' },
  verification: { reproduced: 'crash-reproduced', fixed: 'fixed-ok' },
  syntheticData: false,
  files: [file(`instances/${id}/fixed.ipynb`, 'a'), file(`instances/${id}/data/x.csv`, 'b')],
  ...over,
});
function manifest(version: string, instances: ReleaseInstance[], over: Partial<ReleaseManifest> = {}): ReleaseManifest {
  return {
    formatVersion: 1,
    name: 'JunoBench',
    version,
    tag: `v${version}`,
    createdAt: '2026-01-01T00:00:00.000Z',
    sourceDateEpoch: 0,
    toolchain: { name: 'junobench', version: '0.1.0', commit: null, dirty: null },
    previous: null,
    image: { profile: 'debian', recipe: [] },
    verification: { runtime: 'local', total: 0, verified: 0, skippedEnv: 0 },
    agreement: { minKappa: 0.9, dimensions: [] },
    instances,
    deprecated: [],
    files: [file('benchmark.csv', 'c'), file('README.md', 'd')],
    totals: { instances: 0, verified: 0, skippedEnv: 0, deprecated: 0, files: 0, bytes: 0 },
    ...over,
  };
}

describe('planChangelog', () => {
  it('first release: every instance added', () => {
    const log = planChangelog(null, manifest('0.1.0', [inst('b_1'), inst('a_1')]), []);
    expect(log).toMatchObject({ previous: null, added: ['a_1', 'b_1'], removed: [], changed: [] });
    expect(formatChangelog(log)).toBe(
      '# Changelog\n\n## JunoBench 0.1.0\n\nFirst release: 2 instances.\n\n- a_1\n- b_1\n',
    );
  });

  it('added, removed (deprecated or not), changed files, labels and verification, image and other files', () => {
    const prev = manifest('0.1.0', [inst('a_1'), inst('b_1'), inst('c_1'), inst('d_1')], {
      image: { profile: 'debian', recipe: [], tag: 'junobench/benchmark:debian-1' },
    });
    const cur = manifest(
      '0.2.0',
      [
        inst('a_1', { files: [file('instances/a_1/fixed.ipynb', 'e'), file('instances/a_1/data/y.csv', 'f')] }),
        inst('b_1', {
          labels: { library: 'pandas', crashType: 'value error', rootCause: 'API misuse', pipelineStage: 'training' },
          status: 'skipped-env',
          verification: { reproduced: 'skipped-env', fixed: 'skipped-env' },
        }),
        inst('e_1'),
      ],
      {
        files: [file('benchmark.csv', '9'), file('README.md', '8'), file('report/index.html', '7')],
        image: { profile: 'debian', recipe: [], tag: 'junobench/benchmark:debian-2' },
      },
    );
    const dep = [{ id: 'c_1', deprecatedIn: '0.2.0', reason: 'dataset\nwithdrawn' }];
    const log = planChangelog(prev, cur, dep);
    expect(log.added).toEqual(['e_1']);
    expect(log.removed).toEqual([{ id: 'c_1', deprecated: dep[0] }, { id: 'd_1' }]);
    expect(log.changed).toEqual([
      {
        id: 'a_1',
        files: { added: ['data/y.csv'], removed: ['data/x.csv'], modified: ['fixed.ipynb'] },
        labels: [],
        verification: [],
      },
      {
        id: 'b_1',
        files: { added: [], removed: [], modified: [] },
        labels: [{ dimension: 'crashType', from: 'key error', to: 'value error' }],
        verification: [
          { what: 'status', from: 'verified', to: 'skipped-env' },
          { what: 'reproduced', from: 'crash-reproduced', to: 'skipped-env' },
          { what: 'fixed', from: 'fixed-ok', to: 'skipped-env' },
        ],
      },
    ]);
    expect(log.image).toEqual({ from: 'junobench/benchmark:debian-1', to: 'junobench/benchmark:debian-2' });
    // README.md changes every release; it is not news.
    expect(log.otherFiles).toEqual({ added: ['report/index.html'], removed: [], modified: ['benchmark.csv'] });
    const text = formatChangelog(log);
    expect(text).toContain('Compared with 0.1.0.');
    expect(text).toContain('### Added\n\n- e_1\n');
    expect(text).toContain('- c_1 — deprecated in 0.2.0: dataset withdrawn\n- d_1\n');
    expect(text).toContain('- a_1: files modified: fixed.ipynb; files added: data/y.csv; files removed: data/x.csv\n');
    expect(text).toContain(
      '- b_1: crashType: key error → value error; verification: verified → skipped-env; reproduced: crash-reproduced → skipped-env; fixed: fixed-ok → skipped-env\n',
    );
  });

  it('an unchanged release says so', () => {
    const m = manifest('0.1.0', [inst('a_1')]);
    expect(formatChangelog(planChangelog(m, { ...m, version: '0.1.1' }, []))).toContain(
      'No instance was added, removed or changed.',
    );
  });
});
