// The checks harness and the mutation machinery for real: the harness's own tests in an IPython shell (no kernel),
// then `checks test` and `checks suggest` on one tiny instance in real kernels (the local runtime). Mutation testing
// of the embedded benchmark is a CLI run whose figures are in bench/checks, not a test.
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSchema, type ChecksReport, type ChecksSuggestion } from '@junobench/core';
import { createLocalRuntime, findPython, type Runtime } from '@junobench/runtime';
import { HARNESS_FILE } from './plan-checks-probe.js';
import { parseChecks } from './read-checks.js';
import { suggestChecks } from './suggest-checks.js';
import { testChecks } from './mutation-runs.js';
import { writeTinyInstance } from '../test-helpers/tiny-instance.js';

const GOOD = [
  'def check_whole_numbers():',
  '    """`s` holds whole numbers, one per original value"""',
  "    assert s.dtype.kind == 'i', str(s.dtype)",
  '    assert len(s) == 3',
  '',
].join('\n');
const WEAK = ['def check_length():', '    """`s` has three values"""', '    assert len(s) == 3', ''].join('\n');

let runtime: Runtime;
let dir: string;
let report: ChecksReport;
let suggestion: ChecksSuggestion;

beforeAll(async () => {
  runtime = await createLocalRuntime();
  dir = await mkdtemp(path.join(os.tmpdir(), 'jb-checks-'));
  const good = await writeTinyInstance(dir, 'tiny_good', GOOD);
  const weak = await writeTinyInstance(dir, 'tiny_weak', WEAK);
  report = await testChecks([good, weak], { runtime, jobs: 2 });
  suggestion = await suggestChecks(good, { runtime, jobs: 2 });
}, 900_000);

afterAll(async () => {
  await runtime?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('the harness', () => {
  it('passes its own tests in a real IPython shell, and is clean under pyflakes', async () => {
    const python = await findPython();
    const cwd = path.resolve(path.dirname(HARNESS_FILE), '..');
    const tests = spawnSync(python, ['-m', 'unittest', 'discover', '-s', 'tests', '-t', '.'], {
      cwd,
      encoding: 'utf8',
    });
    expect(tests.status, tests.stderr).toBe(0);
    expect(Number(/^Ran (\d+) tests?/m.exec(tests.stderr)?.[1])).toBeGreaterThanOrEqual(10);
    const flakes = spawnSync(python, ['-m', 'pyflakes', 'jbchecks', 'tests'], { cwd, encoding: 'utf8' });
    expect(flakes.stdout + flakes.stderr).toBe('');
  }, 120_000);
});

describe('checks test on a tiny instance', () => {
  const of = (id: string) => report.instances.find((r) => r.instance === id)!;

  it('rejects every mutant with good checks; the fixed notebook passes them on both runs', () => {
    const r = of('tiny_good');
    expect(r.status, r.reason).toBe('complete');
    expect(r.fixed).toEqual({ runs: 2, passed: 2 });
    expect(r.score.generated).toBe(r.mutants.length);
    expect(r.score.rejected).toBe(r.score.generated);
    expect(checkSchema('checks-report', report)).toEqual([]);
  });

  it.each([
    ['guard-if-len@2:2', 'checks-failed'],
    ['statement-print@2:2', 'checks-failed'],
    ['cell-never-called@2', 'checks-failed'],
    ['swallow-exec@2:2', 'hiding'],
    ['swallow-suppress@2:2', 'hiding'],
    ['swallow-decorator@2:2', 'hiding'],
    ['library-patched@1', 'hiding'],
    ['ipython-custom-exc@2', 'crashed'],
  ])('%s → %s', (id, outcome) => {
    const m = of('tiny_good').mutants.find((x) => x.id === id);
    expect(m?.outcome, JSON.stringify(m)).toBe(outcome);
  });

  it('names the survivors of weak checks and says how many survived', () => {
    const r = of('tiny_weak');
    expect(r.status).toBe('survivors');
    expect(r.survivors).toContain('guard-if-len@2:2');
    expect(r.reason).toMatch(/^\d+ mutants survived: /);
    expect(r.score.value).toBeLessThan(1);
  });
});

describe('checks suggest on a tiny instance', () => {
  it('proposes checks that pass the fix and reject every mutant that ran to the end', () => {
    expect(suggestion.status, suggestion.reason).toBe('suggested');
    expect(suggestion.uncovered).toEqual([]);
    expect(suggestion.checks.length).toBeGreaterThan(0);
    expect(parseChecks(suggestion.file!)).toEqual(suggestion.checks);
    expect(suggestion.checks.map((c) => c.name)).toContain('check_s_dtype');
    expect(checkSchema('checks-suggestion', suggestion)).toEqual([]);
  });
});
