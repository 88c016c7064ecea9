import { spawn } from 'node:child_process';
import { access, mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkBuildSources } from '@junobench/build-lock';
import { runStages, type Stage } from './run-build.js';

async function project() {
  const root = await mkdtemp(path.join(os.tmpdir(), 'jb-build-'));
  await mkdir(path.join(root, 'raw'));
  await writeFile(path.join(root, 'raw', 'in.txt'), 'a');
  return root;
}

function stages(runs: string[]): Stage[] {
  return [
    {
      name: 'upper',
      description: 'upper-case the input',
      inputs: ['raw/in.txt'],
      outputs: ['out/upper.txt'],
      async run(io) {
        runs.push('upper');
        const text = await readFile(io.abs('raw/in.txt'), 'utf8');
        await mkdir(io.abs('out'), { recursive: true });
        await writeFile(io.abs('out/upper.txt'), text.toUpperCase());
        return { summary: `${text.length} chars` };
      },
    },
    {
      name: 'double',
      description: 'double it',
      inputs: ['out/upper.txt'],
      outputs: ['out/double.txt'],
      async run(io) {
        runs.push('double');
        const text = await readFile(io.abs('out/upper.txt'), 'utf8');
        await writeFile(io.abs('out/double.txt'), text + text);
        return { summary: 'doubled' };
      },
    },
  ];
}

describe('runStages', () => {
  it('runs every stage once, then nothing until something changes, then only what depends on it', async () => {
    const root = await project();
    const runs: string[] = [];
    const opts = { root, lockFile: 'out/.lock.json', codeFingerprint: 'c1' };
    const first = await runStages(stages(runs), opts);
    expect(first.stages.map((s) => s.action)).toEqual(['run', 'run']);
    expect(await readFile(path.join(root, 'out/double.txt'), 'utf8')).toBe('AA');

    const second = await runStages(stages(runs), opts);
    expect(second.stages.map((s) => [s.action, s.summary])).toEqual([
      ['skip', '1 chars'],
      ['skip', 'doubled'],
    ]);
    expect(runs).toEqual(['upper', 'double']);

    // The same upstream output: the downstream stage stays up to date.
    await writeFile(path.join(root, 'raw', 'in.txt'), 'A');
    const third = await runStages(stages(runs), opts);
    expect(third.stages.map((s) => s.action)).toEqual(['run', 'skip']);

    await writeFile(path.join(root, 'raw', 'in.txt'), 'b');
    expect((await runStages(stages(runs), opts)).stages.map((s) => s.action)).toEqual(['run', 'run']);

    await rm(path.join(root, 'out/double.txt'));
    expect((await runStages(stages(runs), opts)).stages.map((s) => [s.action, s.reason])).toEqual([
      ['skip', 'up to date'],
      ['run', 'outputs missing'],
    ]);

    expect((await runStages(stages(runs), { ...opts, codeFingerprint: 'c2' })).stages.map((s) => s.action)).toEqual([
      'run',
      'run',
    ]);
  });

  it('does not record a stage that found failures, so the next build looks again', async () => {
    const root = await project();
    const failing: Stage = {
      name: 'check',
      description: 'x',
      inputs: ['raw/in.txt'],
      outputs: ['raw/in.txt'],
      run: async () => ({ summary: 'bad', failed: true }),
    };
    const r1 = await runStages([failing], { root, lockFile: 'lock.json', codeFingerprint: 'c' });
    expect(r1.failed).toBe(true);
    const r2 = await runStages([failing], { root, lockFile: 'lock.json', codeFingerprint: 'c' });
    expect(r2.stages[0]!.action).toBe('run');
  });

  it('rejects an unknown --only stage with the list of stages', async () => {
    const root = await project();
    await expect(
      runStages(stages([]), { root, lockFile: 'l.json', codeFingerprint: 'c', only: ['nope'] }),
    ).rejects.toThrow(/unknown build stage "nope"/);
  });
});

describe('checkBuildSources', () => {
  it("names each source changed since the build and the stages that read it, never the build's own outputs", async () => {
    const root = await project();
    const opts = { root, lockFile: 'out/.lock.json', codeFingerprint: 'c1' };
    const check = () => checkBuildSources({ root, lockFile: 'out/.lock.json', derivedDir: 'out' });
    expect(await check()).toEqual({ lock: 'missing', changed: [], unrecorded: [] });
    await runStages(stages([]), opts);
    expect(await check()).toEqual({ lock: 'ok', changed: [], unrecorded: [] });
    // An output edited by hand is the build's business (the next build redoes it), not a source change.
    await writeFile(path.join(root, 'out', 'upper.txt'), 'edited');
    expect((await check()).changed).toEqual([]);
    await writeFile(path.join(root, 'raw', 'in.txt'), 'b');
    expect(await check()).toEqual({ lock: 'ok', changed: [{ path: 'raw/in.txt', stages: ['upper'] }], unrecorded: [] });
    await rm(path.join(root, 'raw', 'in.txt'));
    expect((await check()).changed).toEqual([{ path: 'raw/in.txt', stages: ['upper'] }]);
    // Rebuilt: up to date again.
    await writeFile(path.join(root, 'raw', 'in.txt'), 'c');
    await runStages(stages([]), opts);
    expect((await check()).changed).toEqual([]);
  });
});

describe('one build at a time per output folder', () => {
  const blocking = (gate: Promise<void>, started: () => void): Stage => ({
    name: 'slow',
    description: 'waits',
    inputs: ['raw/in.txt'],
    outputs: ['out/slow.txt'],
    async run(io) {
      started();
      await gate;
      await mkdir(io.abs('out'), { recursive: true });
      await writeFile(io.abs('out/slow.txt'), 'x');
      return { summary: 'slow' };
    },
  });

  it('refuses a second build while one runs, naming the holder; the lock goes when the first ends', async () => {
    const root = await project();
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    const opts = { root, lockFile: 'out/.build-lock.json', codeFingerprint: 'c' };
    const first = runStages([blocking(gate, started)], opts);
    await running;
    const err = await runStages(stages([]), opts).catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'E_STATE',
      location: { file: path.join(root, 'out', '.build-in-progress.json') },
    });
    expect((err as Error).message).toMatch(
      new RegExp(`out is being built by another junobench build \\(pid ${process.pid} on ${os.hostname()}, started `),
    );
    expect((err as { hint: string }).hint).toMatch(/wait for it to finish/);
    open();
    expect((await first).stages[0]!.action).toBe('run');
    await expect(access(path.join(root, 'out', '.build-in-progress.json'))).rejects.toThrow();
    // Free again.
    expect((await runStages(stages([]), opts)).failed).toBe(false);
  });

  it('releases the lock when a stage throws', async () => {
    const root = await project();
    const boom: Stage = {
      name: 'boom',
      description: 'x',
      inputs: [],
      outputs: ['out/x'],
      run: async () => Promise.reject(new Error('stage crashed')),
    };
    await expect(runStages([boom], { root, lockFile: 'out/.build-lock.json', codeFingerprint: 'c' })).rejects.toThrow(
      /stage crashed/,
    );
    await expect(access(path.join(root, 'out', '.build-in-progress.json'))).rejects.toThrow();
  });

  it('takes over a stale lock (its process is gone) and says so', async () => {
    const root = await project();
    // A real pid that no longer runs: a process that has exited.
    const child = spawn(process.execPath, ['-e', '']);
    const deadPid = child.pid!;
    await new Promise((r) => child.on('exit', r));
    await mkdir(path.join(root, 'out'));
    await writeFile(
      path.join(root, 'out', '.build-in-progress.json'),
      JSON.stringify({
        pid: deadPid,
        host: os.hostname(),
        startedAt: '2020-01-01T00:00:00.000Z',
        command: 'junobench build',
      }),
    );
    const warnings: string[] = [];
    const report = await runStages(stages([]), {
      root,
      lockFile: 'out/.build-lock.json',
      codeFingerprint: 'c',
      onWarning: (w) => warnings.push(w),
    });
    expect(report.stages.map((s) => s.action)).toEqual(['run', 'run']);
    expect(warnings).toEqual([
      expect.stringMatching(new RegExp(`stale build lock .*pid ${deadPid} on ${os.hostname()}.*no longer running`)),
    ]);
    await expect(access(path.join(root, 'out', '.build-in-progress.json'))).rejects.toThrow();
  });

  it('a lock held on another machine is not taken over (its process cannot be checked from here)', async () => {
    const root = await project();
    await mkdir(path.join(root, 'out'));
    await writeFile(
      path.join(root, 'out', '.build-in-progress.json'),
      JSON.stringify({
        pid: 1,
        host: 'elsewhere.example',
        startedAt: new Date().toISOString(),
        command: 'junobench build',
      }),
    );
    await expect(
      runStages(stages([]), { root, lockFile: 'out/.build-lock.json', codeFingerprint: 'c' }),
    ).rejects.toMatchObject({
      code: 'E_STATE',
      message: expect.stringMatching(/pid 1 on elsewhere\.example/),
      hint: expect.stringMatching(/remove .*\.build-in-progress\.json/),
    });
  });
});

describe('a corrupt build lock', () => {
  it.each([
    ['not JSON', '{"version": 1, "stages": {'],
    ['the wrong shape', JSON.stringify({ version: 1, stages: { upper: 'x' } })],
    ['another version', JSON.stringify({ version: 7, stages: {} })],
  ])('(%s) rebuilds every stage and says so', async (_name, text) => {
    const root = await project();
    const runs: string[] = [];
    const opts = { root, lockFile: 'out/.build-lock.json', codeFingerprint: 'c' };
    await runStages(stages(runs), opts);
    await writeFile(path.join(root, 'out/.build-lock.json'), text);
    const warnings: string[] = [];
    const report = await runStages(stages(runs), { ...opts, onWarning: (w) => warnings.push(w) });
    expect(report.stages.map((s) => [s.action, s.reason])).toEqual([
      ['run', 'never built'],
      ['run', 'never built'],
    ]);
    expect(warnings).toEqual([
      expect.stringMatching(
        /out\/\.build-lock\.json is not a valid build lock \(.+\): ignored, every stage runs again/,
      ),
    ]);
    expect(report.warnings).toEqual(warnings);
    // Rewritten whole: the next build is quiet and skips.
    const quiet: string[] = [];
    expect(
      (await runStages(stages(runs), { ...opts, onWarning: (w) => quiet.push(w) })).stages.map((s) => s.action),
    ).toEqual(['skip', 'skip']);
    expect(quiet).toEqual([]);
  });
});
