// The local runtime leaves no process of a notebook behind. A child detached
// from the kernel (its own session, ignoring SIGTERM and SIGHUP) or a daemon
// made by a double fork escaped the kill of the kernel's process group and
// kept running after the run had ended. The runner now runs
// under junobench_reaper.py, a child subreaper that kills them when the runner
// ends: after a normal end, and after a cancel (the runner is killed).
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalRuntime } from './local-runtime.js';
import type { Runtime } from './runtime.js';

let dir: string;
let pidDir: string;

/** Pids the notebooks' detached processes wrote (each writes its own file once it ignores SIGTERM/SIGHUP). */
async function detachedPids(): Promise<number[]> {
  const names = await readdir(pidDir);
  return names.filter((n) => n.endsWith('.pid')).map((n) => Number(readFileSync(path.join(pidDir, n), 'utf8')));
}

/** A live process (zombies, which run nothing, count as gone). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

const DETACH = (tag: string, cellAfter: string) => [
  [
    'import os, subprocess, sys, time',
    `PIDS = ${JSON.stringify('__PIDDIR__')}`,
    // The child ignores the polite signals and sleeps: only SIGKILL ends it.
    'CHILD = \'import os, signal, sys, time\\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\\nsignal.signal(signal.SIGHUP, signal.SIG_IGN)\\nopen(os.path.join(sys.argv[1], sys.argv[2] + ".pid"), "w").write(str(os.getpid()))\\ntime.sleep(900)\'',
    `subprocess.Popen([sys.executable, '-c', CHILD, PIDS, '${tag}-session'], start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)`,
    // A classic daemon: fork, setsid, fork again; the middle process exits at once, so the grandchild is an orphan now.
    'if os.fork() == 0:',
    '    os.setsid()',
    '    if os.fork() == 0:',
    '        os.execv(sys.executable, [sys.executable, "-c", CHILD, PIDS, "' + tag + '-daemon"])',
    '    os._exit(0)',
    `while not all(os.path.exists(os.path.join(PIDS, '${tag}-' + k + '.pid')) for k in ('session', 'daemon')):`,
    '    time.sleep(0.1)',
  ].join('\n'),
  cellAfter,
];

async function writeNotebook(name: string, cells: string[]): Promise<void> {
  const nb = {
    nbformat: 4,
    nbformat_minor: 4,
    metadata: {},
    cells: cells.map((source) => ({
      cell_type: 'code',
      metadata: {},
      source: source.replace('__PIDDIR__', pidDir),
      execution_count: null,
      outputs: [],
    })),
  };
  await writeFile(path.join(dir, name), JSON.stringify(nb));
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'jb-local-detached-'));
  pidDir = await mkdtemp(path.join(os.tmpdir(), 'jb-local-detached-pids-'));
  await writeNotebook('fork.ipynb', DETACH('fork', 'x = 1'));
  await writeNotebook('launch.ipynb', DETACH('launch', 'x = 1'));
  await writeNotebook('cancel.ipynb', DETACH('cancel', 'import time\ntime.sleep(600)'));
}, 60_000);

afterAll(async () => {
  // Whatever survived a failing test must not run on for 15 minutes on a shared machine.
  for (const pid of await detachedPids().catch(() => [])) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone, as it should be
    }
  }
  await rm(dir, { recursive: true, force: true });
  await rm(pidDir, { recursive: true, force: true });
});

describe.each([
  ['forked from a zygote', 'fork', true],
  ['started as a new interpreter', 'launch', false],
])('local runtime, kernels %s', (_name, tag, fork) => {
  let rt: Runtime;
  beforeAll(async () => {
    rt = await createLocalRuntime({ fork });
  }, 120_000);
  afterAll(async () => {
    await rt?.close();
  });

  it('a child in its own session and a double-forked daemon, both ignoring SIGTERM, are gone when the run has ended', async () => {
    const [r] = await rt.run([
      {
        id: tag,
        instanceDir: dir,
        notebook: `${tag}.ipynb`,
        cells: [0, 1],
        cellTimeoutSeconds: 120,
        timeoutSeconds: 300,
      },
    ]);
    expect(r!.status).toBe('completed');
    const pids = (await readdir(pidDir))
      .filter((n) => n.startsWith(`${tag}-`))
      .map((n) => Number(readFileSync(path.join(pidDir, n), 'utf8')));
    expect(pids).toHaveLength(2);
    // run() returns once the runner's reaper has exited, which it does only after they are dead.
    expect(pids.filter(running)).toEqual([]);
  }, 600_000);
});

describe('local runtime, a cancelled run', () => {
  let rt: Runtime;
  afterAll(async () => {
    await rt?.close();
  });

  it('kills the runner and what its notebook detached', async () => {
    rt = await createLocalRuntime({});
    const ctl = new AbortController();
    const watch = setInterval(() => {
      if (['cancel-session.pid', 'cancel-daemon.pid'].every((f) => existsSync(path.join(pidDir, f)))) ctl.abort();
    }, 200);
    const [r] = await rt
      .run(
        [
          {
            id: 'cancel',
            instanceDir: dir,
            notebook: 'cancel.ipynb',
            cells: [0, 1],
            cellTimeoutSeconds: 900,
            timeoutSeconds: 900,
          },
        ],
        { signal: ctl.signal },
      )
      .finally(() => clearInterval(watch));
    expect(ctl.signal.aborted).toBe(true);
    expect(r!.reason).toMatch(/cancel/);
    const pids = ['cancel-session.pid', 'cancel-daemon.pid'].map((f) =>
      Number(readFileSync(path.join(pidDir, f), 'utf8')),
    );
    expect(pids.filter(running)).toEqual([]);
  }, 600_000);
});
