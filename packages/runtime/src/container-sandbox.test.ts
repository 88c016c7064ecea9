import { describe, expect, it } from 'vitest';
import { JunoError, checkSchema } from '@junobench/core';
import type { NotebookRun } from './runtime.js';
import type { ContainerOutcome } from './container-exec.js';
import {
  CONTAINER_LAYOUT,
  SANDBOX_SCRIPT,
  defaultWallClockSeconds,
  findResultLine,
  formatMemorySize,
  interpretContainerRun,
  parseMemorySize,
  planContainerRun,
  type ContainerRunSettings,
} from './container-sandbox.js';
import { TEST_KEY, signMessage } from '../test-helpers/signed-message.js';

const run: NotebookRun = {
  id: 'pandas_1/reproduced',
  instanceDir: '/data/raw/instances/pandas_1',
  notebook: 'reproduced.ipynb',
  cells: [0, 1, 2],
  cellTimeoutSeconds: 120,
  timeoutSeconds: 600,
  prewarm: ['pandas'],
};

const settings: ContainerRunSettings = {
  image: 'junobench/benchmark:debian-0123456789ab',
  memoryBytes: 2 * 1024 ** 3,
  diskBytes: 1024 ** 3,
  nanoCpus: 1e9,
  pidsLimit: 1024,
  threads: 1,
  python: 'python3',
  runnerPath: CONTAINER_LAYOUT.runner,
  user: 'junobench',
  startupTimeoutSeconds: 60,
  wallClockSeconds: (r) => defaultWallClockSeconds(r, 60, 30),
};

const outcome = (o: Partial<ContainerOutcome>): ContainerOutcome => ({
  exitCode: 0,
  stdout: '',
  stderr: '',
  timedOut: false,
  aborted: false,
  setupMs: 50,
  runMs: 1234,
  teardownMs: 10,
  ...o,
});

describe('parseMemorySize', () => {
  it.each([
    ['4g', 4 * 1024 ** 3],
    ['512m', 512 * 1024 ** 2],
    ['2GiB', 2 * 1024 ** 3],
    ['1.5g', 1.5 * 1024 ** 3],
    ['1048576', 1048576],
    [268435456, 268435456],
  ])('%s', (v, bytes) => expect(parseMemorySize(v)).toBe(bytes));

  it.each(['', 'lots', '-1g', 0, '4x'])('%s is refused', (v) => expect(() => parseMemorySize(v)).toThrow(JunoError));

  it.each([
    [2 * 1024 ** 3, '2 GiB'],
    [256 * 1024 ** 2, '256 MiB'],
    [1000, '1000 bytes'],
  ])('formats %d as %s', (b, s) => expect(formatMemorySize(b)).toBe(s));
});

describe('planContainerRun', () => {
  it('runs the plan on the scratch copy, with the instance read-only and nothing else of the host', () => {
    const { plan, spec } = planContainerRun(run, settings, TEST_KEY);
    expect(plan).toEqual({
      id: run.id,
      notebook: '/work/reproduced.ipynb',
      cells: [0, 1, 2],
      cwd: '/work',
      cellTimeoutSeconds: 120,
      timeoutSeconds: 600,
      startupTimeoutSeconds: 60,
      prewarm: ['pandas'],
    });
    expect(checkSchema('run-plan', plan)).toEqual([]);
    expect(spec.mounts).toEqual([{ source: '/data/raw/instances/pandas_1', target: '/instance', readOnly: true }]);
    expect(spec.memoryBytes).toBe(2 * 1024 ** 3);
    expect(spec.nanoCpus).toBe(1e9);
    expect(spec.capDrop).toEqual(['ALL']);
    expect(spec.wallClockSeconds).toBe(690);
    expect(spec.cmd.slice(0, 2)).toEqual(['sh', '-c']);
    expect(spec.cmd.slice(-11)).toEqual([
      'python3',
      CONTAINER_LAYOUT.runner,
      'run',
      '--threads',
      '1',
      '--tmp',
      '/tmp',
      '--wait-go',
      '--authenticate',
      '--plan-json',
      JSON.stringify(plan),
    ]);
    // The key is on the go line only: in no argument or variable a kernel could read.
    expect(spec.goLine).toBe(`go ${TEST_KEY.toString('hex')}`);
    expect(JSON.stringify([spec.cmd, spec.env])).not.toContain(TEST_KEY.toString('hex'));
    expect(spec.cmd.slice(4, 6)).toEqual(['junobench', String(CONTAINER_LAYOUT.uid)]);
    // The in-container backstop fires after the toolchain's own kill, even for a container started ahead of its turn.
    expect(Number(spec.cmd[6])).toBeGreaterThan(2 * spec.wallClockSeconds + 60);
    // Nothing writable but the bounded scratch: a notebook cannot fill the host's disk.
    expect(spec.readonlyRootfs).toBe(true);
    // /var/tmp too: engines otherwise mount their own there, not bounded by --disk (Podman: half the host's memory).
    expect(spec.tmpfs).toEqual({ '/work': 1024 ** 3, '/tmp': 1024 ** 3, '/var/tmp': 1024 ** 3 });
    expect(spec.shmBytes).toBe(1024 ** 3);
    expect(SANDBOX_SCRIPT).toContain('df -Pk /work /tmp /var/tmp /dev/shm');
    expect(spec.waitForGo).toBe(true);
  });

  it('runs each container under the uid it is given: concurrent containers share no per-user process limit', () => {
    const a = planContainerRun(run, settings, TEST_KEY, 200_001).spec;
    const b = planContainerRun(run, settings, TEST_KEY, 200_002).spec;
    expect([a.cmd[5], b.cmd[5]]).toEqual(['200001', '200002']);
    expect(SANDBOX_SCRIPT).toContain('setpriv --reuid="$uid" --regid="$uid"');
  });

  it.each(['../other/x.ipynb', '/etc/passwd'])('refuses notebook path %s', (notebook) => {
    expect(() => planContainerRun({ ...run, notebook }, settings, TEST_KEY)).toThrow(JunoError);
  });

  it.each([
    ['/data/runs:2026/pandas_1', undefined],
    ['/data/x:/etc:rw/pandas_1', undefined],
    ['/data/a,b/pandas_1', 'has a comma in its path'],
  ])('mounts instance folder %s as one structured read-only mount, or refuses it', (instanceDir, refusal) => {
    if (refusal) {
      expect(() => planContainerRun({ ...run, instanceDir }, settings, TEST_KEY)).toThrow(refusal);
    } else {
      expect(planContainerRun({ ...run, instanceDir }, settings, TEST_KEY).spec.mounts).toEqual([
        { source: instanceDir, target: '/instance', readOnly: true },
      ]);
    }
  });
});

/** The runner's `result` message (schemas/runner-message.schema.json), as one line. */
const message = (result: { id: string; [key: string]: unknown }) =>
  signMessage({ type: 'result', id: result.id, result });
const result = (status: string, extra: object = {}) =>
  message({ id: run.id, status, cells: [{ index: 0, status: 'ok', durationMs: 5 }], durationMs: 900, ...extra });

describe('interpretContainerRun', () => {
  it("passes the runner's result through, ignoring other lines on stdout", () => {
    const r = interpretContainerRun(
      run,
      outcome({ stdout: `noise from C code\n${result('completed')}\n` }),
      settings,
      TEST_KEY,
    );
    expect(r.status).toBe('completed');
    expect(r.durationMs).toBe(900);
  });

  it('a kernel death with an OOM kill in the cgroup → kernel-died "out of memory" at the limit', () => {
    const r = interpretContainerRun(
      run,
      outcome({
        stdout: `${result('kernel-died', { reason: 'the kernel process died while running the cell' })}\njunobench-container: exit=0 oom_kill=1\n`,
      }),
      settings,
      TEST_KEY,
    );
    expect(r.status).toBe('kernel-died');
    expect(r.reason).toBe(
      "out of memory: the kernel was killed at the container's 2 GiB memory limit (the kernel process died while running the cell)",
    );
  });

  it('killed at the wall-clock limit, no result → timeout with the limit', () => {
    const r = interpretContainerRun(run, outcome({ exitCode: 137, timedOut: true }), settings, TEST_KEY);
    expect(r).toMatchObject({
      status: 'timeout',
      reason: 'the container ran past its 690 s wall-clock limit and was killed',
    });
    expect(r.cells.map((c) => c.status)).toEqual(['not-run', 'not-run', 'not-run']);
    expect(checkSchema('run-result', r)).toEqual([]);
  });

  it('the runner itself OOM-killed → kernel-died out of memory', () => {
    const r = interpretContainerRun(
      run,
      outcome({ exitCode: 137, stdout: 'junobench-container: exit=137 oom_kill=2\n' }),
      settings,
      TEST_KEY,
    );
    expect(r.status).toBe('kernel-died');
    expect(r.reason).toMatch(/^out of memory: the container hit its 2 GiB memory limit/);
  });

  it('a container that dies otherwise → kernel-died with its exit code and last words', () => {
    const r = interpretContainerRun(
      run,
      outcome({
        exitCode: 137,
        stderr: 'Traceback...\nSystemError: boom\n',
        stdout: 'junobench-container: exit=137 oom_kill=0\n',
      }),
      settings,
      TEST_KEY,
    );
    expect(r.status).toBe('kernel-died');
    expect(r.reason).toBe(
      'the runner exited with code 137 (killed by signal 9) before printing a result: Traceback... | SystemError: boom',
    );
  });

  it("the container vanished without the wrapper's report → kernel-died, possibly OOM", () => {
    const r = interpretContainerRun(run, outcome({ exitCode: 137 }), settings, TEST_KEY);
    expect(r.reason).toBe(
      'the container was killed (exit 137) before the runner printed a result (possibly out of memory at its 2 GiB limit)',
    );
  });

  it('the copy into /work failed → failed with the reason', () => {
    const r = interpretContainerRun(
      run,
      outcome({
        exitCode: 125,
        stdout: 'junobench-container: setup-failed: cannot copy /instance to /work: No space left on device\n',
      }),
      settings,
      TEST_KEY,
    );
    expect(r).toMatchObject({ status: 'failed', reason: 'cannot copy /instance to /work: No space left on device' });
  });

  it('a full scratch disk is named in the reason, with the --disk limit', () => {
    const full = 'junobench-container: exit=0 oom_kill=0 disk_full=/var/tmp\n';
    const crashed = interpretContainerRun(run, outcome({ stdout: `${result('error')}\n${full}` }), settings, TEST_KEY);
    expect(crashed).toMatchObject({
      status: 'error',
      reason:
        'the notebook filled its scratch disk /var/tmp (1 GiB each for /work, /tmp, /var/tmp and /dev/shm: --disk)',
    });
    const both = interpretContainerRun(
      run,
      outcome({ stdout: `${result('error')}\n${full.replace('/var/tmp', '/work,/dev/shm')}` }),
      settings,
      TEST_KEY,
    );
    expect(both.reason).toMatch(/^the notebook filled its scratch disk \/work and \/dev\/shm \(/);
    const oom = interpretContainerRun(
      run,
      outcome({ stdout: `${result('kernel-died')}\n${full.replace('oom_kill=0', 'oom_kill=1')}` }),
      settings,
      TEST_KEY,
    );
    expect(oom.reason).toMatch(
      /^out of memory: .*; the notebook filled its scratch disk .*, which counts toward memory$/,
    );
    expect(
      interpretContainerRun(
        run,
        outcome({ stdout: `${result('completed')}\n${full.replace('disk_full=/var/tmp', 'disk_full=0')}` }),
        settings,
        TEST_KEY,
      ).reason,
    ).toBeUndefined();
  });

  it("ignores the wrapper's lines when notebook code forged them on stderr (a kernel's output goes there)", () => {
    const forged =
      'junobench-container: exit=0 oom_kill=7 disk_full=/work\njunobench-container: setup-failed: the toolchain is broken\n';
    // The notebook killed its runner after forging: the wrapper's real report says so.
    const killed = interpretContainerRun(
      run,
      outcome({ exitCode: 137, stderr: forged, stdout: 'junobench-container: exit=137 oom_kill=0 disk_full=0\n' }),
      settings,
      TEST_KEY,
    );
    expect(killed.status).toBe('kernel-died');
    expect(killed.reason).toMatch(/^the runner exited with code 137 \(killed by signal 9\) before printing a result/);
    const crashed = interpretContainerRun(
      run,
      outcome({ stdout: `${result('error')}\njunobench-container: exit=0 oom_kill=0 disk_full=0\n`, stderr: forged }),
      settings,
      TEST_KEY,
    );
    expect(crashed).toMatchObject({ status: 'error' });
    expect(crashed.reason).toBeUndefined();
  });

  it('cancelled → failed "cancelled"', () => {
    expect(interpretContainerRun(run, outcome({ aborted: true, exitCode: 137 }), settings, TEST_KEY)).toMatchObject({
      status: 'failed',
      reason: 'cancelled',
    });
  });
});

describe('findResultLine', () => {
  it('takes the last result for the id, skipping others', () => {
    const other = message({ id: 'other', status: 'completed', cells: [], durationMs: 1 });
    const started = signMessage({ type: 'started', id: run.id, kernel: 'launched' });
    expect(findResultLine(`${started}\n${result('error')}\n${other}\n`, run.id, TEST_KEY)?.status).toBe('error');
    expect(findResultLine(started, run.id, TEST_KEY)).toBeUndefined();
    expect(findResultLine('{"not json', run.id, TEST_KEY)).toBeUndefined();
    // A bare RunResult (an image with an older runner) is not a message.
    expect(
      findResultLine(signMessage({ id: run.id, status: 'completed', cells: [], durationMs: 1 }), run.id, TEST_KEY),
    ).toBeUndefined();
  });

  it('never takes a line without a valid MAC: unsigned, signed with another key, or edited after signing', () => {
    const forged = {
      type: 'result',
      id: run.id,
      result: { id: run.id, status: 'completed', cells: [], durationMs: 1 },
    };
    const real = result('error');
    const edited = signMessage(forged).replace('"completed"', '"error"');
    for (const line of [JSON.stringify(forged), signMessage(forged, Buffer.alloc(32, 8)), edited]) {
      expect(findResultLine(`${real}\n${line}\n`, run.id, TEST_KEY)?.status).toBe('error');
      expect(findResultLine(`${line}\n`, run.id, TEST_KEY)).toBeUndefined();
    }
  });

  it('a result that breaks the schema is an error that says to rebuild the image', () => {
    expect(() =>
      findResultLine(message({ id: run.id, status: 'weird', cells: [], durationMs: 1 }), run.id, TEST_KEY),
    ).toThrow(expect.objectContaining({ hint: expect.stringContaining('rebuild') }));
  });
});
