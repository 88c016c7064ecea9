// Real Jupyter kernels (the local runtime): every outcome class of docs/formats.md
// with a purpose-made notebook, execution-count replay, caching and flakiness.
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '@junobench/runtime';
import { createLocalRuntime } from '@junobench/runtime';
import { checkSchema, hashTree, type VerificationReport } from '@junobench/core';
import { verifyInstanceDir, verifyInstances } from './verify-instances.js';
import { writeVerificationReport } from './write-verification-report.js';
import { writeTestInstance } from '../test-helpers/make-test-instance.js';

let runtime: Runtime;
let dir: string;
let report: VerificationReport;
const ve = { ename: 'ValueError', evalue: 'bad value', match: 'exact' as const };

beforeAll(async () => {
  runtime = await createLocalRuntime();
  dir = await mkdtemp(path.join(os.tmpdir(), 'jb-verify-'));
  const raise = "raise ValueError('bad value')";
  await writeTestInstance(dir, {
    id: 'ok',
    reproduced: ['x = 1', raise, 'y = 2'],
    fixed: ['x = 1', 'y = 2'],
    crash: { ...ve, cell: 1 },
  });
  await writeTestInstance(dir, {
    id: 'wrong-exception',
    reproduced: ['x = 1', "raise TypeError('bad value')"],
    fixed: ['x = 1'],
    crash: { ...ve, cell: 1 },
  });
  await writeTestInstance(dir, {
    id: 'other-cell',
    reproduced: [raise, 'x = 1'],
    fixed: ['x = 1'],
    crash: { ...ve, cell: 1 },
  });
  await writeTestInstance(dir, {
    id: 'no-crash',
    reproduced: ['x = 1', 'y = 2'],
    fixed: ['x = 1'],
    crash: { ...ve, cell: 1 },
  });
  await writeTestInstance(dir, {
    id: 'fixed-crashes',
    reproduced: ['x = 1', raise],
    fixed: ['x = 1', 'import json; json.loads("{")'],
    crash: { ...ve, cell: 1 },
  });
  await writeTestInstance(dir, {
    id: 'loop',
    reproduced: ['x = 1', 'while True:\n    pass'],
    fixed: ['x = 1'],
    crash: { ...ve, cell: 1 },
    cellTimeoutSeconds: 3,
  });
  await writeTestInstance(dir, {
    id: 'dies',
    reproduced: ['import os', 'os._exit(1)'],
    fixed: ['x = 1'],
    crash: { ...ve, cell: 1 },
  });
  await writeTestInstance(dir, {
    id: 'missing-module',
    reproduced: ['import numpy_that_does_not_exist'],
    fixed: ['x = 1'],
    crash: { ename: 'ModuleNotFoundError', evalue: 'x', match: 'prefix', cell: 0 },
    requires: ['numpy_that_does_not_exist'],
  });
  // Only crashes when cells run in their saved execution-count order: `df` is
  // deleted (count 3) before the cell that uses it (count 4) runs.
  await writeTestInstance(dir, {
    id: 'out-of-order',
    order: 'execution-count',
    reproduced: [
      { source: "df = {'a': 1}", count: 1 },
      { source: "print(df['a'])", count: 4 },
      { source: 'del df', count: 3 },
      { source: 'never = 1', count: null },
    ],
    fixed: [
      { source: "df = {'a': 1}", count: 1 },
      { source: "print(df['a'])", count: 2 },
      { source: 'del df', count: 3 },
    ],
    crash: { ename: 'NameError', evalue: "name 'df' is not defined", match: 'exact', cell: 1 },
  });
  await writeTestInstance(dir, {
    id: 'reads-data',
    reproduced: ["rows = open('data/t.csv').read().splitlines()", "int(rows[1].split(',')[1])"],
    fixed: ["rows = open('data/t.csv').read().splitlines()", "float(rows[1].split(',')[1])"],
    crash: { ename: 'ValueError', evalue: "invalid literal for int() with base 10: '2.5'", match: 'exact', cell: 1 },
    data: { 't.csv': 'a,b\n1,2.5\n' },
  });
  // checks.py: the fixed notebook must do what the fix does, and hide nothing.
  const yChecks = "def check_y():\n    '''y is 2: the value the fix computes'''\n    assert y == 2, y\n";
  await writeTestInstance(dir, {
    id: 'checks-pass',
    reproduced: ['x = 1', raise],
    fixed: ['x = 1', 'y = 2'],
    crash: { ...ve, cell: 1 },
    checks: yChecks,
  });
  await writeTestInstance(dir, {
    id: 'checks-fail',
    reproduced: ['x = 1', raise],
    fixed: ['x = 1', 'y = 3'],
    crash: { ...ve, cell: 1 },
    checks: yChecks,
  });
  await writeTestInstance(dir, {
    id: 'fixed-hides',
    reproduced: ['x = 1', raise],
    fixed: ['x = 1', "exec('try:\\n    raise ValueError(1)\\nexcept Exception:\\n    pass')\ny = 2"],
    crash: { ...ve, cell: 1 },
    checks: yChecks,
  });
  report = await verifyInstances({ instancesDir: dir, runtime, jobs: 2, cacheDir: path.join(dir, '.cache') });
}, 300_000);

afterAll(async () => {
  await runtime?.close();
});

describe('verify with a real kernel', () => {
  const outcome = (id: string) => report.instances.find((v) => v.instance === id)!;

  it.each([
    ['ok', 'crash-reproduced', 'fixed-ok', 'verified'],
    ['wrong-exception', 'crash-mismatch', 'fixed-ok', 'not-verified'],
    ['other-cell', 'crash-mismatch', 'fixed-ok', 'not-verified'],
    ['no-crash', 'no-crash', 'fixed-ok', 'not-verified'],
    ['fixed-crashes', 'crash-reproduced', 'fixed-crashed', 'not-verified'],
    ['loop', 'timeout', 'fixed-ok', 'not-verified'],
    ['dies', 'kernel-died', 'fixed-ok', 'not-verified'],
    ['missing-module', 'skipped-env', 'skipped-env', 'skipped'],
    ['out-of-order', 'crash-reproduced', 'fixed-ok', 'verified'],
    ['reads-data', 'crash-reproduced', 'fixed-ok', 'verified'],
    ['checks-pass', 'crash-reproduced', 'fixed-ok', 'verified'],
    ['checks-fail', 'crash-reproduced', 'checks-failed', 'not-verified'],
    ['fixed-hides', 'crash-reproduced', 'checks-failed', 'not-verified'],
  ])('%s: reproduced %s, fixed %s → %s', (id, rep, fix, status) => {
    const v = outcome(id);
    expect(v.reproduced.outcome, v.reproduced.reason).toBe(rep);
    expect(v.fixed.outcome, v.fixed.reason).toBe(fix);
    expect(v.status).toBe(status);
  });

  it('summarizes the run', () => {
    expect(report.summary).toEqual({ total: 13, verified: 4, notVerified: 8, skipped: 1, flaky: 0 });
  });

  it('runs checks.py after the fixed notebook: a failed check is named with its reason, a swallowed crash is evidence', () => {
    expect(outcome('checks-pass').fixed.checks).toEqual([
      { name: 'check_y', reason: 'y is 2: the value the fix computes', passed: true },
    ]);
    expect(outcome('checks-fail').fixed.reason).toBe(
      'check_y failed: y is 2: the value the fix computes (AssertionError: 3)',
    );
    expect(outcome('fixed-hides').fixed.evidence).toEqual([
      { kind: 'swallowed', what: 'ValueError: 1 was raised and swallowed', ename: 'ValueError', cell: 1, line: 2 },
    ]);
    expect(outcome('fixed-hides').fixed.reason).toMatch(/^ValueError: 1 was raised and swallowed in code cell 1/);
  });

  it('writes the real report as verify --json does: valid against verification', async () => {
    const file = path.join(dir, 'verification.json');
    await writeVerificationReport(file, report);
    const json = JSON.parse(await readFile(file, 'utf8'));
    expect(checkSchema('verification', json)).toEqual([]);
    expect(json).toEqual(JSON.parse(JSON.stringify(report)));
  });

  it('names the missing module in the skip reason', () => {
    expect(outcome('missing-module').reproduced.reason).toMatch(/numpy_that_does_not_exist not importable/);
  });

  it('explains mismatches and records what happened', () => {
    expect(outcome('wrong-exception').reproduced.reason).toContain('exception TypeError instead of ValueError');
    expect(outcome('other-cell').reproduced.observed).toMatchObject({ cell: 0 });
    expect(outcome('fixed-crashes').fixed.observed).toMatchObject({ ename: 'JSONDecodeError' });
    expect(outcome('loop').reproduced.cells[1]).toMatchObject({ status: 'timeout' });
    expect(outcome('ok').reproduced.runtime).toMatchObject({ kind: 'local' });
  });

  it('replays execution-count order, skipping never-run cells', () => {
    const cells = outcome('out-of-order').reproduced.cells;
    expect(cells.map((c) => [c.index, c.status])).toEqual([
      [0, 'ok'],
      [2, 'ok'],
      [1, 'error'],
    ]);
  });

  it('never changes the instance folder (notebooks run in a scratch copy)', async () => {
    const before = await hashTree(path.join(dir, 'reads-data'));
    await writeTestInstance(dir, {
      id: 'writer',
      reproduced: ["open('data/t.csv', 'w').write('overwritten')", "raise ValueError('bad value')"],
      fixed: ["open('new-file.txt', 'w').write('x')"],
      crash: { ...ve, cell: 1 },
      data: { 't.csv': 'a,b\n1,2.5\n' },
    });
    const writerBefore = await hashTree(path.join(dir, 'writer'));
    const v = await verifyInstanceDir(path.join(dir, 'writer'), { runtime });
    expect(v.status).toBe('verified');
    expect(await hashTree(path.join(dir, 'writer'))).toBe(writerBefore);
    expect(await readdir(path.join(dir, 'writer'))).not.toContain('new-file.txt');
    expect(await hashTree(path.join(dir, 'reads-data'))).toBe(before);
  }, 300_000);

  it('serves unchanged instances from the cache and re-runs changed ones', async () => {
    const again = await verifyInstances({
      instancesDir: dir,
      ids: ['ok', 'no-crash'],
      runtime,
      cacheDir: path.join(dir, '.cache'),
    });
    expect(again.instances.map((v) => v.cached)).toEqual([true, true]);
    const nb = path.join(dir, 'no-crash', 'reproduced.ipynb');
    await writeFile(nb, (await readFile(nb, 'utf8')).replace('y = 2', "raise ValueError('bad value')"));
    const changed = await verifyInstances({
      instancesDir: dir,
      ids: ['ok', 'no-crash'],
      runtime,
      cacheDir: path.join(dir, '.cache'),
    });
    expect(changed.instances.map((v) => [v.instance, v.cached, v.status])).toEqual([
      ['ok', true, 'verified'],
      ['no-crash', false, 'verified'],
    ]);
    const forced = await verifyInstances({
      instancesDir: dir,
      ids: ['ok'],
      runtime,
      cacheDir: path.join(dir, '.cache'),
      useCache: false,
    });
    expect(forced.instances[0]!.cached).toBe(false);
  }, 300_000);

  it('does not trust a cache entry whose status disagrees with its outcomes: it is discarded and the instance re-run', async () => {
    const cacheDir = path.join(dir, '.cache');
    const entry = report.instances.find((v) => v.instance === 'fixed-crashes')!;
    const file = path.join(cacheDir, 'verify', `${entry.contentHash}.json`);
    const stored = JSON.parse(await readFile(file, 'utf8'));
    expect(stored.fixed.outcome).toBe('fixed-crashed');
    await writeFile(file, JSON.stringify({ ...stored, status: 'verified', verified: true }));
    const events: string[] = [];
    const again = await verifyInstances({
      instancesDir: dir,
      ids: ['fixed-crashes'],
      runtime,
      cacheDir,
      onProgress: (e) => e.message && events.push(e.message),
    });
    expect(again.instances[0]).toMatchObject({ status: 'not-verified', verified: false, cached: false });
    expect(events.join('\n')).toMatch(/fixed-crashes: cached result discarded .*says verified/);
    // The re-run replaced the bad entry.
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({ status: 'not-verified', verified: false });
  }, 300_000);

  it('flags an instance whose outcomes differ between repeats as flaky', async () => {
    // Crashes on the first run only: the state lives outside the scratch copy, in /tmp, which in the
    // local runtime's sandbox is the run folder's (it lasts as long as the runtime).
    const flag = `/tmp/jb-flaky-state-${process.pid}-${Date.now()}`;
    const crashOnce = `import os\nif not os.path.exists(${JSON.stringify(flag)}):\n    open(${JSON.stringify(flag)}, 'w').close()\n    raise ValueError('bad value')`;
    await writeTestInstance(dir, {
      id: 'flaky',
      reproduced: ['x = 1', crashOnce],
      fixed: ['x = 1'],
      crash: { ...ve, cell: 1 },
    });
    const r = await verifyInstances({ instancesDir: dir, ids: ['flaky'], runtime, repeat: 2, jobs: 1 });
    expect(r.instances[0]).toMatchObject({
      status: 'flaky',
      flaky: true,
      verified: false,
      repeats: { reproduced: ['crash-reproduced', 'no-crash'] },
    });
  }, 300_000);

  it('refuses a crash.evalue pattern that needs a backtracking engine (a lookahead), naming the field, before running anything', async () => {
    const bad = await mkdtemp(path.join(os.tmpdir(), 'jb-verify-regex-'));
    await writeTestInstance(bad, {
      id: 'lookahead',
      reproduced: ['x = 1', "raise ValueError('bad value')"],
      fixed: ['x = 1'],
      crash: { ...ve, evalue: '(?=bad)bad', match: 'regex', cell: 1 },
    });
    const err = await verifyInstances({ instancesDir: bad, runtime }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'E_INSTANCE', location: { field: 'crash.evalue' } });
    expect((err as Error).message).toMatch(/not a regular expression the linear-time engine runs/);
    await rm(bad, { recursive: true, force: true });
  });

  it('refuses a folder with no instance in it (0/0 verified is no success)', async () => {
    const empty = await mkdtemp(path.join(os.tmpdir(), 'jb-verify-empty-'));
    await expect(verifyInstances({ instancesDir: empty, runtime })).rejects.toMatchObject({
      code: 'E_INPUT_NOT_FOUND',
      exitCode: 2,
      message: expect.stringMatching(/^no instances in /),
    });
    await rm(empty, { recursive: true, force: true });
  });

  it('rejects an unknown instance id with the list of known ones', async () => {
    await expect(verifyInstances({ instancesDir: dir, ids: ['nope'], runtime })).rejects.toThrow(
      /no instance named "nope"/,
    );
  });
});
