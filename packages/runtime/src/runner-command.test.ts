import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SANDBOX_LAYOUT } from './local-sandbox.js';
import { planRunnerCommand, planRunnerPlan, planStepLimitSeconds, type RunnerSettings } from './runner-command.js';
import { RUNNER_DIR } from './runner-path.js';
import type { NotebookRun } from './runtime.js';

const settings: RunnerSettings = {
  python: '/usr/bin/python3',
  env: {},
  startupSeconds: 60,
  graceSeconds: 30,
  fork: true,
  threads: 2,
  scratchRoot: '/tmp',
};

const run: NotebookRun = {
  id: 'inst/nb',
  instanceDir: '/data/inst',
  notebook: 'nb.ipynb',
  cells: [0, 1],
  cellTimeoutSeconds: 120,
  timeoutSeconds: 600,
};

describe('planRunnerCommand', () => {
  it('starts the runner through the reaper, unsandboxed, with host paths', () => {
    const c = planRunnerCommand(settings, 3, '/box/runner-1', '/box');
    expect(c.file).toBe('/usr/bin/python3');
    expect(c.args).toEqual([
      path.join(RUNNER_DIR, 'junobench_reaper.py'),
      '/usr/bin/python3',
      path.join(RUNNER_DIR, 'junobench_runner.py'),
      'serve',
      '--jobs',
      '3',
      '--threads',
      '2',
      '--tmp',
      '/box/runner-1',
      '--authenticate',
    ]);
    expect(c.fd3).toBeUndefined();
    expect(c.inside('/box/scratch-1')).toBe('/box/scratch-1');
  });

  it('launches kernels instead of forking them when fork is off', () => {
    expect(planRunnerCommand({ ...settings, fork: false }, 1, '/box/r', '/box').args.at(-1)).toBe('--no-fork');
  });

  it('wraps the runner in bubblewrap with the seccomp program on fd 3 when sandboxed', () => {
    const sandbox = {
      bwrap: '/usr/bin/bwrap',
      host: { roots: [{ path: '/usr' }], secrets: { files: [], folders: [] }, python: [] },
      seccomp: Buffer.from([1, 2, 3]),
    };
    const c = planRunnerCommand({ ...settings, sandbox }, 1, '/box/runner-1', '/box');
    expect(c.file).toBe('/usr/bin/bwrap');
    expect(c.fd3).toEqual(Buffer.from([1, 2, 3]));
    expect(c.args).toContain(path.join(SANDBOX_LAYOUT.runner, 'junobench_reaper.py'));
    expect(c.inside('/box/scratch-1')).not.toBe('/box/scratch-1');
  });
});

describe('planRunnerPlan', () => {
  it("names the scratch copy's notebook and folder as the runner sees them", () => {
    const plan = planRunnerPlan('7', run, '/box/scratch-1', { inside: (p) => `/in${p}` }, 45);
    expect(plan).toEqual({
      id: '7',
      notebook: '/in/box/scratch-1/nb.ipynb',
      cells: [0, 1],
      cwd: '/in/box/scratch-1',
      cellTimeoutSeconds: 120,
      timeoutSeconds: 600,
      startupTimeoutSeconds: 45,
    });
  });

  it('passes prewarm modules and the probe only when there are some', () => {
    const plan = planRunnerPlan(
      '1',
      { ...run, prewarm: ['numpy'], probe: { setup: 'x = 1' } },
      '/s',
      { inside: (p) => p },
      60,
    );
    expect(plan.prewarm).toEqual(['numpy']);
    expect(plan.probe).toEqual({ setup: 'x = 1' });
    expect(planRunnerPlan('1', { ...run, prewarm: [] }, '/s', { inside: (p) => p }, 60)).not.toHaveProperty('prewarm');
  });
});

describe('planStepLimitSeconds', () => {
  it('allows a file operation five times the start-up and grace limits', () => {
    expect(planStepLimitSeconds(settings)).toBe(450);
  });
});
