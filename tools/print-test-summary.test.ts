// The summary line CI reads must never hide a failure: a file that fails in
// beforeAll (vitest marks its tests skipped), a file that fails to load, a
// failed test, or a missing report all make it non-zero.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error a plain ES module of the tools, without types
import { addFileDurations, mergeVitestReports } from './run-test-lanes.mjs';

const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'print-test-summary.mjs');
let dir: string | undefined;

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

function run(
  report: unknown | undefined,
  extra: string[] = [],
): Promise<{ code: number; stdout: string; stderr: string }> {
  return (async () => {
    dir ??= await mkdtemp(path.join(tmpdir(), 'junobench-summary-'));
    const file = path.join(dir, `${Math.random().toString(36).slice(2)}.json`);
    if (report !== undefined) await writeFile(file, typeof report === 'string' ? report : JSON.stringify(report));
    return new Promise((resolve) =>
      execFile(process.execPath, [script, file, ...extra], (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
      ),
    );
  })();
}

const lastLine = (s: string) => s.trimEnd().split('\n').at(-1);

type Status = 'passed' | 'failed' | 'skipped' | 'pending' | 'todo';
// The shape of vitest 4's JSON reporter, as it wrote it for a real run of such files.
function file(name: string, status: 'passed' | 'failed', tests: Status[], message = '') {
  return {
    name,
    status,
    message,
    assertionResults: tests.map((s, i) => ({ title: `t${i}`, fullName: `t${i}`, status: s, failureMessages: [] })),
  };
}
function report(files: ReturnType<typeof file>[]) {
  const all = files.flatMap((f) => f.assertionResults.map((a) => a.status));
  return {
    numTotalTestSuites: files.length,
    numFailedTestSuites: files.filter((f) => f.status === 'failed').length,
    numTotalTests: all.length,
    numPassedTests: all.filter((s) => s === 'passed').length,
    numFailedTests: all.filter((s) => s === 'failed').length,
    numPendingTests: all.filter((s) => s === 'skipped' || s === 'pending').length,
    numTodoTests: all.filter((s) => s === 'todo').length,
    success: files.every((f) => f.status === 'passed'),
    testResults: files,
  };
}

describe('print-test-summary', () => {
  it.each([
    ['all passed', [file('a.test.ts', 'passed', ['passed', 'passed'])], '2 passed, 0 failed, 0 skipped', 0],
    [
      'a skipped test is counted, and is not a failure',
      [file('a.test.ts', 'passed', ['passed', 'skipped', 'todo'])],
      '1 passed, 0 failed, 2 skipped',
      0,
    ],
    ['a failed test', [file('a.test.ts', 'failed', ['passed', 'failed'])], '1 passed, 1 failed, 0 skipped', 1],
    [
      'a file failing in beforeAll (its tests marked skipped) counts as failed',
      [file('a.test.ts', 'failed', ['skipped', 'skipped']), file('b.test.ts', 'passed', ['passed'])],
      '1 passed, 1 failed, 2 skipped',
      1,
    ],
    [
      'a file that fails to load (no tests at all)',
      [file('c.test.ts', 'failed', [], "Cannot find module './x.js'"), file('b.test.ts', 'passed', ['passed'])],
      '1 passed, 1 failed, 0 skipped',
      1,
    ],
    [
      'failed tests and failed files add up',
      [
        file('a.test.ts', 'failed', ['skipped']),
        file('b.test.ts', 'failed', ['passed', 'skipped', 'failed']),
        file('c.test.ts', 'failed', []),
      ],
      '1 passed, 3 failed, 2 skipped',
      1,
    ],
  ])('%s', async (_name, files, line, code) => {
    const r = await run(report(files));
    expect(lastLine(r.stdout)).toBe(line);
    expect(r.code).toBe(code);
  });

  it('names the files that failed outside their tests', async () => {
    const r = await run(report([file('/repo/a.test.ts', 'failed', ['skipped'], 'boom in beforeAll')]));
    expect(r.stderr + r.stdout).toContain('a.test.ts');
  });

  it('a run vitest reports as unsuccessful is a failure even when no test or file failed (an unhandled error)', async () => {
    const r = await run({ ...report([file('a.test.ts', 'passed', ['passed'])]), success: false });
    expect(lastLine(r.stdout)).toBe('1 passed, 1 failed, 0 skipped');
    expect(r.code).toBe(1);
  });

  it('a test command that exited non-zero is a failure even when its report says success (vitest 4 and an unhandled error)', async () => {
    const ok = report([file('a.test.ts', 'passed', ['passed', 'passed'])]);
    const failed = await run(ok, ['--exit-status', '1']);
    expect(lastLine(failed.stdout)).toBe('2 passed, 1 failed, 0 skipped');
    expect(failed.stderr).toContain('exited with status 1');
    expect(failed.code).toBe(1);
    const passed = await run(ok, ['--exit-status', '0']);
    expect(lastLine(passed.stdout)).toBe('2 passed, 0 failed, 0 skipped');
    expect(passed.code).toBe(0);
  });

  it.each([
    ['missing', undefined],
    ['not JSON', '{"numPassedTests": 3'],
  ])('a %s report is a failure', async (_name, content) => {
    const r = await run(content);
    expect(lastLine(r.stdout)).toBe('0 passed, 1 failed, 0 skipped');
    expect(r.code).toBe(1);
  });

  it('lists the ten slowest files above the summary line, longest first', async () => {
    const files = Array.from({ length: 12 }, (_, i) => ({
      ...file(`/repo/f${i}.test.ts`, 'passed', ['passed']),
      startTime: 1000,
      endTime: 1000 + (i + 1) * 1500,
    }));
    const r = await run(report(files));
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.at(-1)).toBe('12 passed, 0 failed, 0 skipped');
    expect(lines[0]).toBe('the 10 slowest test files:');
    expect(lines.slice(1, 11).map((l) => l.trim())).toEqual(
      Array.from({ length: 10 }, (_, k) => `${((12 - k) * 1.5).toFixed(1)} s  /repo/f${11 - k}.test.ts`),
    );
  });
});

describe('the slowest files, hooks included', () => {
  it('ranks a file by its whole time where the lanes recorded it, not by its tests alone', async () => {
    // b's tests are short, its beforeAll is not (a whole build there): its whole time ranks it first.
    const files = [
      { ...file('/repo/a.test.ts', 'passed', ['passed']), startTime: 0, endTime: 9000 },
      { ...file('/repo/b.test.ts', 'passed', ['passed']), startTime: 0, endTime: 500 },
      { ...file('/repo/c.test.ts', 'passed', ['passed']), startTime: 0, endTime: 2000 },
    ];
    const merged = addFileDurations(report(files), { '/repo/a.test.ts': 9100, '/repo/b.test.ts': 274_000 });
    const lines = (await run(merged)).stdout.trimEnd().split('\n');
    expect(lines.slice(1, 4).map((l) => l.trim())).toEqual([
      '274.0 s  /repo/b.test.ts',
      '9.1 s  /repo/a.test.ts',
      '2.0 s  /repo/c.test.ts',
    ]);
  });

  it("the reporter counts a file's beforeAll, which vitest's JSON report leaves out", async () => {
    dir ??= await mkdtemp(path.join(tmpdir(), 'junobench-summary-'));
    const root = await mkdtemp(path.join(dir, 'hooks-'));
    // Globals: the file imports nothing, so it runs from a folder outside the repository.
    await writeFile(
      path.join(root, 'slow-hook.test.js'),
      "beforeAll(() => new Promise((r) => setTimeout(r, 1500)));\nit('is quick', () => {});\n",
    );
    await writeFile(path.join(root, 'vitest.config.mjs'), 'export default {};\n');
    const durations = path.join(root, 'durations.json');
    const jsonReport = path.join(root, 'report.json');
    const vitest = path.join(path.dirname(script), '..', 'node_modules', 'vitest', 'vitest.mjs');
    const reporter = path.join(path.dirname(script), 'file-durations-reporter.mjs');
    await new Promise<void>((resolve, reject) =>
      execFile(
        process.execPath,
        [
          vitest,
          'run',
          '--root',
          root,
          '--config',
          path.join(root, 'vitest.config.mjs'),
          '--globals',
          `--reporter=${reporter}`,
          '--reporter=json',
          `--outputFile.json=${jsonReport}`,
        ],
        { cwd: root, env: { ...process.env, JUNOBENCH_TEST_DURATIONS: durations } },
        (error, _stdout, stderr) => (error ? reject(new Error(stderr)) : resolve()),
      ),
    );
    const merged = addFileDurations(
      JSON.parse(await readFile(jsonReport, 'utf8')),
      JSON.parse(await readFile(durations, 'utf8')),
    );
    const [entry] = merged.testResults as { durationMs: number; startTime: number; endTime: number }[];
    expect(entry!.endTime - entry!.startTime).toBeLessThan(1000);
    expect(entry!.durationMs).toBeGreaterThanOrEqual(1500);
  }, 60_000);
});

describe('the lanes of a full run', () => {
  it('merge into one report: every file of each, success only when every lane succeeded', async () => {
    const a = report([file('a.test.ts', 'passed', ['passed', 'skipped'])]);
    const b = report([file('b.test.ts', 'failed', ['failed'])]);
    const merged = mergeVitestReports([a, b]);
    expect(merged.testResults.map((f: { name: string }) => f.name)).toEqual(['a.test.ts', 'b.test.ts']);
    expect(merged).toMatchObject({ success: false, numTotalTests: 3, numPassedTests: 1, numFailedTests: 1 });
    expect(mergeVitestReports([a, a]).success).toBe(true);
    const r = await run(merged);
    expect(lastLine(r.stdout)).toBe('1 passed, 1 failed, 1 skipped');
  });

  it('a lane without a report makes the run fail', async () => {
    const r = await run(mergeVitestReports([report([file('a.test.ts', 'passed', ['passed'])]), { success: false }]));
    expect(lastLine(r.stdout)).toBe('1 passed, 1 failed, 0 skipped');
  });
});
