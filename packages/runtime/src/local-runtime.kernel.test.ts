// The local runtime with real kernels, both ways of starting them: forked from
// a zygote (default) and as new interpreters (--no-fork). A forked kernel must
// be indistinguishable from a launched one to the notebook.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '@junobench/core';
import { createLocalRuntime } from './local-runtime.js';
import type { NotebookRun, Runtime } from './runtime.js';

let dir: string;

async function notebook(name: string, cells: string[]): Promise<string> {
  const nb = {
    nbformat: 4,
    nbformat_minor: 4,
    metadata: {},
    cells: cells.map((source) => ({ cell_type: 'code', metadata: {}, source, execution_count: null, outputs: [] })),
  };
  await writeFile(path.join(dir, name), JSON.stringify(nb));
  return name;
}

const run = (id: string, nb: string, cells: number[], extra: Partial<NotebookRun> = {}): NotebookRun => ({
  id,
  instanceDir: dir,
  notebook: nb,
  cells,
  cellTimeoutSeconds: 30,
  timeoutSeconds: 120,
  ...extra,
});

/** The value printed by the last cell, read back from a deliberate error message. */
const reported = (r: RunResult) =>
  r.cells.find((c) => c.status === 'error')?.evalue ?? `no error: ${r.status} ${r.reason ?? ''}`;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'jb-local-rt-'));
  await writeFile(path.join(dir, 'marker.txt'), 'here');
  // A notebook importing a module that sits beside it, as Kaggle notebooks do with utility scripts.
  await writeFile(path.join(dir, 'helper.py'), 'VALUE = 42\n');
  await notebook('env.ipynb', [
    "import os, sys, numpy, helper\nstate = dict(helper=helper.VALUE, runner_globals_leak=hasattr(sys.modules['__main__'], 'zygote_main'), cwd_has_marker=os.path.exists('marker.txt'), argv1=sys.argv[1], name=__name__, seed=int(numpy.random.randint(0, 2**31)), path0_is_cwd=bool(sys.path) and sys.path[0] == os.getcwd(), hashseed=os.environ.get('PYTHONHASHSEED'), parent='JPY_PARENT_PID=' + os.environ.get('JPY_PARENT_PID', ''))",
    'raise RuntimeError(repr(sorted(state.items())))',
  ]);
  // pandas is prewarmed but never imported by the notebook: `pd` must not exist.
  await notebook('unbound.ipynb', ['x = 1', 'pd.DataFrame()']);
  await notebook('loop.ipynb', ['while True:\n    pass']);
  await notebook('dies.ipynb', ['import os\nos._exit(3)']);
  // Kills the kernel's parent: the zygote that forked it, or the runner itself.
  await notebook('patricide.ipynb', [
    'import os, signal\nos.kill(os.getppid(), signal.SIGKILL)',
    'import time\ntime.sleep(1.5)',
  ]);
}, 60_000);

describe.each([
  ['forked from a zygote', true],
  ['started as a new interpreter', false],
])('local runtime, kernels %s', (_name, fork) => {
  let rt: Runtime;
  beforeAll(async () => {
    rt = await createLocalRuntime({ fork });
  });
  afterAll(async () => {
    await rt?.close();
  });

  it('runs in the working directory, with a normal kernel argv, __main__, hash seed 0, and its own numpy seed', async () => {
    const [a, b] = await rt.run(
      [run('a', 'env.ipynb', [0, 1], { prewarm: ['numpy'] }), run('b', 'env.ipynb', [0, 1], { prewarm: ['numpy'] })],
      { jobs: 2 },
    );
    for (const r of [a!, b!]) {
      expect(reported(r)).toContain("('argv1', '-f')");
      expect(reported(r)).toContain("('cwd_has_marker', True)");
      expect(reported(r)).toContain("('name', '__main__')");
      expect(reported(r)).toContain("('hashseed', '0')");
      expect(reported(r)).toContain("('path0_is_cwd', True)");
      expect(reported(r)).toContain("('helper', 42)");
      expect(reported(r)).toContain("('runner_globals_leak', False)");
    }
    const seed = (r: RunResult) => /'seed', (\d+)/.exec(reported(r))?.[1];
    expect(seed(a!)).toBeDefined();
    expect(seed(a!)).not.toBe(seed(b!));
  }, 300_000);

  it('prewarm imports bind no names', async () => {
    const [r] = await rt.run([run('u', 'unbound.ipynb', [0, 1], { prewarm: ['pandas'] })]);
    expect(r!.cells[1]).toMatchObject({ status: 'error', ename: 'NameError', evalue: "name 'pd' is not defined" });
  }, 300_000);

  it('interrupts a cell past its limit and reports a dead kernel', async () => {
    const [loop, dies] = await rt.run(
      [run('l', 'loop.ipynb', [0], { cellTimeoutSeconds: 1 }), run('d', 'dies.ipynb', [0])],
      { jobs: 2 },
    );
    expect(loop).toMatchObject({ status: 'timeout' });
    expect(dies).toMatchObject({ status: 'kernel-died' });
  }, 300_000);

  it('a limit of years on one side does not overflow anything: the other limit still ends the run', async () => {
    // Node timers overflow past 2^31-1 ms (24.8 days); the runner and its watchdog must not depend on one.
    const [cell, total] = await rt.run(
      [
        run('cy', 'loop.ipynb', [0], { cellTimeoutSeconds: 3, timeoutSeconds: 1e9 }),
        run('ty', 'loop.ipynb', [0], { cellTimeoutSeconds: 1e9, timeoutSeconds: 3 }),
      ],
      { jobs: 2 },
    );
    expect(cell).toMatchObject({ status: 'timeout', reason: expect.stringMatching(/^cell exceeded 3 s/) });
    expect(total).toMatchObject({
      status: 'timeout',
      reason: expect.stringMatching(/^the notebook exceeded its 3 s limit/),
    });
  }, 300_000);

  it('a notebook that kills its parent process takes no other notebook with it', async () => {
    const numpy = { prewarm: ['numpy'] };
    const results = await rt.run(
      [
        run('k', 'patricide.ipynb', [0, 1], numpy),
        run('n1', 'unbound.ipynb', [0, 1], numpy),
        run('n2', 'unbound.ipynb', [0, 1], numpy),
      ],
      { jobs: 1 },
    );
    for (const r of results.slice(1)) expect(r!.cells[1]).toMatchObject({ status: 'error', ename: 'NameError' });
  }, 300_000);

  it('leaves no runner, zygote or kernel process behind, even when the runner is killed mid-run', async () => {
    // Only this test file's own processes (descendants of this process):
    // other runs on the machine come and go and are none of its business.
    expect(await ownProcesses()).toEqual([]);
    // The notebook says when its loop runs, in its scratch folder (the one place it can write): the runner
    // is killed mid-cell, not before.
    const mark = `looping-${fork ? 'forked' : 'launched'}`;
    await notebook('signal-loop.ipynb', [`open(${JSON.stringify(mark)}, 'w').close()\nwhile True:\n    pass`]);
    const pending = rt.run([run('l', 'signal-loop.ipynb', [0], { cellTimeoutSeconds: 60, prewarm: ['numpy'] })]);
    const looping = () =>
      readdirSync(os.tmpdir())
        .filter((n) => n.startsWith(`junobench-${process.pid}-`))
        .some((n) =>
          readdirSync(path.join(os.tmpdir(), n, 'box')).some((s) =>
            existsSync(path.join(os.tmpdir(), n, 'box', s, mark)),
          ),
        );
    for (let i = 0; i < 600 && !looping(); i++) await sleep(100);
    expect(looping()).toBe(true);
    const running = await ownProcesses();
    const serve = running.find((p) => p.args.includes(' serve'));
    expect(serve).toBeDefined();
    // The scope sees the kernel side too, so "none left" below means something.
    expect(running.some((p) => p.args.includes(fork ? ' zygote ' : 'ipykernel_launcher'))).toBe(true);
    process.kill(serve!.pid, 'SIGKILL');
    const [r] = await pending;
    expect(r!.status).toBe('failed');
    expect(r!.reason).toMatch(/runner process ended unexpectedly/);
    let left = await ownProcesses();
    for (let i = 0; i < 50 && left.length > 0; i++) {
      await sleep(200);
      left = await ownProcesses();
    }
    expect(left).toEqual([]);
  }, 300_000);

  it('when a notebook kills the runner, it is blamed: not a notebook whose kernel was started ahead, not one running beside it', async () => {
    // JPY_PARENT_PID is the runner, for forked and launched kernels alike.
    await notebook('kill-runner.ipynb', [
      'import os, signal, time\ntime.sleep(3)\nos.kill(int(os.environ["JPY_PARENT_PID"]), signal.SIGKILL)\ntime.sleep(60)',
    ]);
    await notebook('ok.ipynb', ['x = 1']);
    await notebook('slow-ok.ipynb', ['import time\ntime.sleep(8)']);
    // Two jobs: one worker runs the killer with the next plan's kernel started
    // ahead, the other runs slow-ok; the runner dies while both execute.
    const results = await rt.run(
      [
        run('killer', 'kill-runner.ipynb', [0]),
        run('ahead', 'ok.ipynb', [0]),
        run('beside', 'slow-ok.ipynb', [0]),
        run('last', 'ok.ipynb', [0]),
      ],
      { jobs: 2 },
    );
    expect(results.map((r) => [r.id, r.status])).toEqual([
      ['killer', 'failed'],
      ['ahead', 'completed'],
      ['beside', 'completed'],
      ['last', 'completed'],
    ]);
    expect(results[0]!.reason).toMatch(/runner process ended unexpectedly.*\(while this notebook ran\)/);
  }, 300_000);

  it('a stream: runs that arrive apart are served by one runner, whose idle wait is not silence', async () => {
    const stream = rt.stream!({ jobs: 1 });
    const first = await stream.submit(run('s1', 'env.ipynb', [0, 1]));
    await sleep(2000);
    const second = await stream.submit(run('s2', 'env.ipynb', [0, 1]));
    await stream.end();
    // The kernel's parent (JPY_PARENT_PID) is the runner: the same one for both, and a fresh kernel each time.
    const parent = (r: RunResult) => /JPY_PARENT_PID=(\d+)/.exec(reported(r))?.[1];
    expect(parent(first), reported(first)).toBeDefined();
    expect(parent(second)).toBe(parent(first));
    expect(stream.runners).toBe(1);
  }, 300_000);

  it('a notebook cannot read the input history of one run before it: each kernel keeps its own in memory', async () => {
    // The marker is only ever joined at run time, so the reader's own cell does not contain it.
    await notebook('history-write.ipynb', ["secret = 'HISTORY' + '_MARKER'", "print('HISTORY_MARKER_WRITTEN')"]);
    await notebook('history-read.ipynb', [
      "import io, contextlib\nbuf = io.StringIO()\nwith contextlib.redirect_stdout(buf):\n    get_ipython().run_line_magic('history', '-g ' + 'HISTORY' + '_MARKER_WRITTEN')\nfound = [l for l in buf.getvalue().splitlines() if 'HISTORY' + '_MARKER_WRITTEN' in l]",
      'raise RuntimeError(repr((found, get_ipython().history_manager.hist_file)))',
    ]);
    const [, r] = await rt.run([run('hw', 'history-write.ipynb', [0, 1]), run('hr', 'history-read.ipynb', [0, 1])], {
      jobs: 1,
    });
    expect(reported(r!)).toBe("([], ':memory:')");
  }, 300_000);

  it("returns results in the order of the runs, with the runs' ids", async () => {
    const runs = Array.from({ length: 5 }, (_, i) => run(`r${i}`, 'unbound.ipynb', [0, 1]));
    const results = await rt.run(runs, { jobs: 2 });
    expect(results.map((r) => r.id)).toEqual(['r0', 'r1', 'r2', 'r3', 'r4']);
  }, 300_000);
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runner processes (serve, zygotes, the kernels forked from them) and kernels
 * it launched, among this process's descendants. A zygote or kernel whose
 * runner died is reparented away from us, so it is also looked for by the
 * runner's temporary folder on its command line or in its environment.
 */
async function ownProcesses(): Promise<{ pid: number; args: string }[]> {
  const out = await new Promise<string>((resolve, reject) =>
    execFile('ps', ['-eo', 'pid=,ppid=,args='], (e, stdout) => (e ? reject(e) : resolve(stdout))),
  );
  const rows = out
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), args: m[3]! }));
  const mine = new Set([process.pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const r of rows) {
      if (!mine.has(r.pid) && mine.has(r.ppid)) {
        mine.add(r.pid);
        grew = true;
      }
    }
  }
  return rows
    .filter((r) => r.pid !== process.pid && /junobench_runner\.py|ipykernel_launcher/.test(r.args))
    .filter((r) => mine.has(r.pid) || startedHere(r.pid))
    .map(({ pid, args }) => ({ pid, args }));
}

/** A process (orphaned or not) whose kernel connection file or zygote socket is in this test's run folders. */
function startedHere(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(`${os.tmpdir()}/junobench-${process.pid}-`);
  } catch {
    return false;
  }
}
