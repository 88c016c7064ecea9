import { describe, expect, it } from 'vitest';
import { emptyLock, planBuild, type BuildLock } from './plan-build.js';

const lock: BuildLock = { version: 1, stages: { pool: { fingerprint: 'f1', outputs: 'o1', summary: '12 kept' } } };

describe('planBuild', () => {
  it.each([
    ['never built', emptyLock(), { fingerprint: 'f1', outputs: 'o1' }, {}, 'run', 'never built'],
    ['unchanged', lock, { fingerprint: 'f1', outputs: 'o1' }, {}, 'skip', 'up to date'],
    ['inputs changed', lock, { fingerprint: 'f2', outputs: 'o1' }, {}, 'run', 'inputs changed'],
    ['outputs deleted', lock, { fingerprint: 'f1', outputs: undefined }, {}, 'run', 'outputs missing'],
    [
      'outputs edited by hand',
      lock,
      { fingerprint: 'f1', outputs: 'oX' },
      {},
      'run',
      'outputs changed since the last build',
    ],
    ['forced', lock, { fingerprint: 'f1', outputs: 'o1' }, { force: true }, 'run', 'forced'],
  ])('%s', (_name, l, state, opts, action, reason) => {
    const [d] = planBuild([{ name: 'pool', ...state }], l, opts);
    expect(d).toMatchObject({ stage: 'pool', action, reason });
  });

  it('shows the last summary for a skipped stage', () => {
    expect(planBuild([{ name: 'pool', fingerprint: 'f1', outputs: 'o1' }], lock)[0]).toMatchObject({
      summary: '12 kept',
    });
  });
});
