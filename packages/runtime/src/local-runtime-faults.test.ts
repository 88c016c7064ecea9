// The local runtime against a runner that speaks its protocol badly, a caller
// whose onResult throws, a run folder that disappears and file operations that
// never complete: each must end as an outcome (a result with a reason, or a
// rejected run), never as a run() that does not return. The runner is a real
// process (test-helpers/fake-runner.ts), the file system the real one.
import { execFileSync } from 'node:child_process';
import { closeSync, constants, existsSync, openSync } from 'node:fs';
import { mkdtemp, open, readFile, rm, type FileHandle } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '@junobench/core';
import { writeFakeInstance, writeFakeRunner, type FakeBehaviour } from '../test-helpers/fake-runner.js';
import { createLocalRuntime, type LocalRuntimeOptions } from './local-runtime.js';
import type { NotebookRun, RunStream, Runtime } from './runtime.js';

const BEHAVIOURS: FakeBehaviour[] = [
  'ok',
  'silent',
  'unanswered',
  'unknown-id',
  'twice',
  'dies',
  'malformed',
  'invalid',
  'rejected-no-id',
  'remove-run-folder',
];
let dir: string;
let instance: string;
let python: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'jb-rt-faults-'));
  instance = path.join(dir, 'instance');
  execFileSync('mkdir', [instance]);
  await writeFakeInstance(instance, BEHAVIOURS);
  python = await writeFakeRunner(dir);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

// Short limits: a plan may take 2 s, a kernel 1 s to start, the watchdog 1 s of grace.
const limits: Partial<LocalRuntimeOptions> = { startupTimeoutSeconds: 1, watchdogGraceSeconds: 1 };
const run = (behaviour: FakeBehaviour, id: string = behaviour): NotebookRun => ({
  id,
  instanceDir: instance,
  notebook: `${behaviour}.ipynb`,
  cells: [],
  cellTimeoutSeconds: 2,
  timeoutSeconds: 2,
});

let counter = 0;
async function withRuntime<T>(
  fn: (rt: Runtime, scratchRoot: string) => Promise<T>,
  extra: Partial<LocalRuntimeOptions> = {},
): Promise<T> {
  const scratchRoot = path.join(dir, `scratch-${counter++}`);
  execFileSync('mkdir', [scratchRoot]);
  // The protocol handling alone: a fake interpreter, no sandbox around it.
  const rt = await createLocalRuntime({ python, scratchRoot, sandbox: false, ...limits, ...extra });
  try {
    return await fn(rt, scratchRoot);
  } finally {
    await rt.close();
  }
}

const brief = (r: RunResult) => `${r.id} ${r.status}${r.reason ? `: ${r.reason}` : ''}`;

// Concurrent: most of these wait for the watchdog's limits, not for a core.
describe('local runtime: a runner that misbehaves gives outcomes', () => {
  it.concurrent.each([
    ['answers well', ['ok'], 1, [/^ok completed$/]],
    ['answers twice: the first result counts', ['twice', 'ok'], 1, [/^twice completed$/, /^ok completed$/]],
    [
      'starts a plan and goes silent: a timeout, and the runner is killed',
      ['silent'],
      1,
      [/^silent timeout: the notebook ran past its 2 s limit and the runner did not stop it; the runner was killed$/],
    ],
    [
      'a silent plan does not take the others down with it',
      ['ok', 'silent', 'ok'],
      1,
      [/^ok completed$/, /^silent timeout/, /^ok completed$/],
    ],
    [
      'prints a broken line instead of the result: a timeout',
      ['malformed'],
      1,
      [/^malformed timeout: the notebook ran past its 2 s limit/],
    ],
    [
      'prints a result that breaks the schema: failed, naming it',
      ['invalid'],
      1,
      [/^invalid failed: the runner printed an invalid message: /],
    ],
    [
      'dies mid-plan: failed with its last words',
      ['dies', 'ok'],
      1,
      [
        /^dies failed: the runner process ended unexpectedly: fake runner: dying on purpose \(while this notebook ran\)$/,
        /^ok completed$/,
      ],
    ],
    // Plans the runner never answers: killed for silence each time, then given up after the restart limit.
    [
      'never answers a plan',
      ['unanswered'],
      1,
      [
        /^unanswered failed: the runner process ended 4 times before this notebook could start: .*printed nothing for \d+ s; runner killed$/,
      ],
    ],
    [
      'answers an id it was never given',
      ['unknown-id'],
      1,
      [/^unknown-id failed: the runner process ended 4 times before this notebook could start/],
    ],
    [
      'rejects a plan without naming it',
      ['rejected-no-id'],
      1,
      [/^rejected-no-id failed: the runner process ended 4 times before this notebook could start/],
    ],
  ] as const)(
    '%s',
    async (_name, behaviours, jobs, expected) => {
      const results = await withRuntime((rt) =>
        rt.run(
          behaviours.map((b, i) => run(b, `${b}${(behaviours as readonly string[]).indexOf(b) === i ? '' : `#${i}`}`)),
          { jobs },
        ),
      );
      expect(results.map(brief).map((s) => s.replace(/#\d+/, ''))).toEqual(
        expected.map((e) => expect.stringMatching(e)),
      );
    },
    120_000,
  );
});

describe('local runtime: a stream of runs', () => {
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  /** A runtime whose fake runner logs each start; `starts()` counts them so far. */
  async function withStartLog(fn: (rt: Runtime, starts: () => Promise<number>) => Promise<void>): Promise<void> {
    const log = path.join(dir, `stream-${counter}.log`);
    const starts = async () =>
      (await readFile(log, 'utf8').catch(() => '')).split('\n').filter((l) => l.startsWith('runner ')).length;
    await withRuntime((rt) => fn(rt, starts), { env: { ...process.env, FAKE_RUNNER_LOG: log } });
  }

  it('runs that arrive one at a time, with pauses, are served by one runner', async () => {
    await withStartLog(async (rt, runnerStarts) => {
      const stream = rt.stream!({ jobs: 1 });
      const answers: Promise<RunResult>[] = [];
      for (const id of ['a', 'b', 'c']) {
        answers.push(stream.submit(run('ok', id)));
        // Longer than the runner's silence limit would allow were idling counted as silence.
        await sleep(1500);
      }
      expect((await Promise.all(answers)).map(brief)).toEqual(['a completed', 'b completed', 'c completed']);
      await sleep(7000);
      answers.push(stream.submit(run('ok', 'd')));
      expect(brief(await answers[3]!)).toBe('d completed');
      await stream.end();
      expect(stream.runners).toBe(1);
      expect(await runnerStarts()).toBe(1);
      // Once ended, a stream takes nothing more.
      expect(brief(await stream.submit(run('ok', 'late')))).toBe('late failed: cancelled');
    });
  }, 60_000);

  it('a runner idle past idleSeconds ends; the next run starts another', async () => {
    await withStartLog(async (rt, runnerStarts) => {
      const stream = rt.stream!({ jobs: 1, idleSeconds: 1 });
      expect(brief(await stream.submit(run('ok', 'before')))).toBe('before completed');
      // The watchdog looks once a second: after 1 s idle the runner is told to end.
      await sleep(3500);
      expect(await runnerStarts()).toBe(1);
      expect(brief(await stream.submit(run('ok', 'after')))).toBe('after completed');
      await stream.end();
      expect(stream.runners).toBe(2);
      expect(await runnerStarts()).toBe(2);
    });
  }, 60_000);

  it('a runner that dies on one run: that run is blamed, later runs get a new runner', async () => {
    await withStartLog(async (rt, runnerStarts) => {
      const stream = rt.stream!({ jobs: 1 });
      const first = stream.submit(run('dies', 'dies'));
      expect(brief(await first)).toMatch(/^dies failed: the runner process ended unexpectedly: fake runner: dying/);
      expect(brief(await stream.submit(run('ok', 'after')))).toBe('after completed');
      await stream.end();
      expect(stream.runners).toBe(2);
      expect(await runnerStarts()).toBe(2);
    });
  }, 60_000);

  it('closing the runtime ends an open stream: runs not answered yet are not left waiting', async () => {
    let stream!: RunStream;
    const { late } = await withRuntime(async (rt) => {
      stream = rt.stream!({ jobs: 1 });
      expect(brief(await stream.submit(run('ok', 'a')))).toBe('a completed');
      // A plan the runner never answers: the run is in flight when the runtime closes.
      // (In an object: returning the promise itself would wait for it before the runtime closes.)
      return { late: stream.submit(run('unanswered', 'stuck')) };
    });
    expect(brief(await late)).toBe('stuck failed: cancelled');
    await stream.end();
  }, 60_000);
});

describe('local runtime: failures around the runner are outcomes, not hangs', () => {
  it('an onResult that throws: run() rejects with that error and the runner is gone', async () => {
    await withRuntime(async (rt, scratchRoot) => {
      const seen: string[] = [];
      const outcome = await rt
        .run([run('ok', 'a'), run('ok', 'b'), run('ok', 'c')], {
          onResult: (r) => {
            seen.push(r.id);
            throw new Error(`the caller could not take ${r.id}`);
          },
        })
        .then(
          () => 'resolved',
          (e: Error) => e.message,
        );
      expect(outcome).toBe('the caller could not take a');
      expect(seen).toEqual(['a']);
      // Nothing of the runner is left: its scratch folders went with it.
      expect(runnerLeftovers(scratchRoot)).toEqual([]);
    });
  }, 60_000);

  it('the run folder removed mid-run (a temp cleaner): the runs not yet copied fail naming why, the others complete', async () => {
    const results = await withRuntime((rt) =>
      rt.run([run('remove-run-folder', 'first'), run('ok', 'second'), run('ok', 'third'), run('ok', 'fourth')], {
        jobs: 1,
      }),
    );
    // The runner has the first two plans (two per job are sent ahead) when it removes the folder; the next copy fails.
    // The second may be answered before or after that copy fails (or its own copy may be the one that fails, when the
    // removal overtakes it on a busy machine); the later ones cannot run at all.
    const why = /^the local runtime could not go on: ENOENT: no such file or directory, mkdtemp /;
    const copyFailed = /cannot copy \S+ to a scratch folder: ENOENT: no such file or directory/;
    expect(results.map(brief)).toEqual([
      'first completed',
      expect.stringMatching(
        new RegExp(`^second (completed|failed: ${why.source.slice(1)}|failed: ${copyFailed.source})`),
      ),
      expect.stringMatching(new RegExp(`^third failed: ${why.source.slice(1)}`)),
      expect.stringMatching(new RegExp(`^fourth failed: ${why.source.slice(1)}`)),
    ]);
  }, 60_000);

  it('file operations that never complete (every libuv thread blocked): the watchdog still kills an overdue runner and run() returns', async () => {
    const fifo = path.join(dir, 'block.fifo');
    execFileSync('mkfifo', [fifo]);
    // Each open of a FIFO with no writer holds one of libuv's threads, which
    // every fs promise (mkdtemp, rm, copy) needs: they stop completing.
    const threads = Number(process.env.UV_THREADPOOL_SIZE ?? 4);
    const blockers: Promise<FileHandle>[] = [];
    try {
      const results = await withRuntime((rt) =>
        // The runner gets both plans before it answers the second: only then does the file system stop.
        rt.run([run('silent', 'second'), run('ok', 'first')], {
          jobs: 1,
          onResult: (r) => {
            if (r.id === 'first') for (let i = 0; i < threads; i++) blockers.push(open(fifo, 'r'));
          },
        }),
      );
      expect(results.map(brief)).toEqual([
        expect.stringMatching(/^second timeout: the notebook ran past its 2 s limit/),
        'first completed',
      ]);
      expect(blockers).toHaveLength(threads);
    } finally {
      // A writer releases every blocked open.
      const w = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
      for (const h of await Promise.all(blockers)) await h.close();
      closeSync(w);
    }
  }, 120_000);
});

function runnerLeftovers(scratchRoot: string): string[] {
  const out: string[] = [];
  for (const name of execFileSync('ls', [scratchRoot], { encoding: 'utf8' }).split('\n').filter(Boolean)) {
    const folder = path.join(scratchRoot, name);
    // The run folder holds its owner file and the sandbox's folder (box), with a home and a /tmp of its own.
    for (const entry of execFileSync('ls', [path.join(folder, 'box')], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)) {
      if (!['home', 'tmp'].includes(entry) && existsSync(path.join(folder, 'box', entry)))
        out.push(`${name}/box/${entry}`);
    }
  }
  return out;
}
