// The local runtime leaves no process of a notebook behind. A child detached
// from the kernel (its own session, ignoring SIGTERM and SIGHUP) or a daemon
// made by a double fork escaped the kill of the kernel's process group and
// kept running after the run had ended. The runner now runs
// under junobench_reaper.py, a child subreaper that kills them when the runner
// ends: after a normal end, and after a cancel (the runner is killed).
import { readFileSync, readdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalRuntime } from './local-runtime.js';
import type { Runtime } from './runtime.js';

let dir: string;

/** Marks every detached process in its command line, where the host sees it (a sandboxed one has other pids inside). */
const MARK = `jb-detached-${process.pid}`;

/** Host pids of the live processes whose command line holds `MARK-<tag>` (zombies, which run nothing, do not count). */
function detachedPids(tag = ''): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (cmdline.includes(`${MARK}-${tag}`) && stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z')
        found.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

const DETACH = (tag: string, cellAfter: string) => [
  [
    'import os, subprocess, sys, time',
    // The child ignores the polite signals and sleeps: only SIGKILL ends it. It says so in its working folder.
    'CHILD = \'import os, signal, sys, time\\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\\nsignal.signal(signal.SIGHUP, signal.SIG_IGN)\\nopen(sys.argv[1] + ".pid", "w").write(str(os.getpid()))\\ntime.sleep(900)\'',
    `subprocess.Popen([sys.executable, '-c', CHILD, '${MARK}-${tag}-session'], start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)`,
    // A classic daemon: fork, setsid, fork again; the middle process exits at once, so the grandchild is an orphan now.
    'if os.fork() == 0:',
    '    os.setsid()',
    '    if os.fork() == 0:',
    `        os.execv(sys.executable, [sys.executable, "-c", CHILD, "${MARK}-${tag}-daemon"])`,
    '    os._exit(0)',
    `while not all(os.path.exists('${MARK}-${tag}-' + k + '.pid') for k in ('session', 'daemon')):`,
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
      source,
      execution_count: null,
      outputs: [],
    })),
  };
  await writeFile(path.join(dir, name), JSON.stringify(nb));
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'jb-local-detached-'));
  await writeNotebook('fork.ipynb', DETACH('fork', 'x = 1'));
  await writeNotebook('launch.ipynb', DETACH('launch', 'x = 1'));
  await writeNotebook('unsandboxed.ipynb', DETACH('unsandboxed', 'x = 1'));
  await writeNotebook('cancel.ipynb', DETACH('cancel', 'import time\ntime.sleep(600)'));
}, 60_000);

afterAll(async () => {
  // Whatever survived a failing test must not run on for 15 minutes on a shared machine.
  for (const pid of detachedPids()) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone, as it should be
    }
  }
  await rm(dir, { recursive: true, force: true });
});

describe.each([
  ['forked from a zygote, in the sandbox (its pid namespace ends them)', 'fork', true, true],
  ['started as a new interpreter, in the sandbox', 'launch', false, true],
  ['forked from a zygote, unsandboxed (the reaper ends them)', 'unsandboxed', true, false],
])('local runtime, kernels %s', (_name, tag, fork, sandbox) => {
  let rt: Runtime;
  beforeAll(async () => {
    rt = await createLocalRuntime({ fork, sandbox });
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
    // The cell waited for both to be up and ignoring SIGTERM.
    expect(r!.status, r!.reason).toBe('completed');
    // run() returns once the runner's reaper has exited, which it does only after they are dead.
    expect(detachedPids(tag)).toEqual([]);
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
      if (detachedPids('cancel').length === 2) ctl.abort();
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
    expect(detachedPids('cancel')).toEqual([]);
  }, 600_000);
});
