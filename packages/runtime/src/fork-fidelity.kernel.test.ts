// A kernel forked from a zygote must be indistinguishable, to the notebook,
// from one launched the ordinary way (docs/verify.md, "Why it is fast"): the same process-wide
// settings (signal dispositions and handlers, signal mask, resource limits,
// environment, umask, session, stdin), the same behaviour of child processes
// (exit codes seen through subprocess, os.system, multiprocessing), and its
// own seeds in every random generator the zygote's imports hold.
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '@junobench/core';
import { createLocalRuntime } from './local-runtime.js';
import type { NotebookRun, Runtime } from './runtime.js';

// Everything a notebook could observe about its process, as JSON. Values that
// must differ between two kernels (seeds) are under "seeds"; the rest must be
// equal between a forked and a launched kernel.
const PROBE = String.raw`
import json, os, sys, signal, resource, subprocess, multiprocessing, random, threading, gc, stat, warnings, faulthandler
import numpy, torch

def handler_name(h):
    if h is None:
        return None
    if isinstance(h, int):
        return int(h)
    return getattr(h, "__module__", "?") + "." + getattr(h, "__qualname__", repr(h))

def fd_kind(fd):
    try:
        m = os.fstat(fd).st_mode
    except OSError as e:
        return "closed:" + e.__class__.__name__
    return "fifo" if stat.S_ISFIFO(m) else "chr" if stat.S_ISCHR(m) else "sock" if stat.S_ISSOCK(m) else "reg" if stat.S_ISREG(m) else "other"

p = multiprocessing.Process(target=os._exit, args=(5,))
p.start(); p.join(30)
umask = os.umask(0o022); os.umask(umask)
env = {k: v for k, v in os.environ.items() if k not in ("JPY_PARENT_PID",)}
same = {
    "subprocess_false": subprocess.run(["false"]).returncode,
    "os_system_exit_3": os.system("exit 3"),
    "multiprocessing_exitcode": p.exitcode,
    "signals": {s.name: handler_name(signal.getsignal(s)) for s in signal.valid_signals() if isinstance(s, signal.Signals)},
    "blocked": sorted(s.name if isinstance(s, signal.Signals) else str(s) for s in signal.pthread_sigmask(signal.SIG_BLOCK, [])),
    "rlimits": {n: list(resource.getrlimit(getattr(resource, n))) for n in dir(resource) if n.startswith("RLIMIT_")},
    "env": env,
    "umask": umask,
    "session_leader": os.getsid(0) == os.getpid(),
    "stdin": fd_kind(0),
    "stdin_eof": os.read(0, 1) == b"" if fd_kind(0) in ("fifo", "chr") else None,
    "sys_path_after_cwd": sys.path[1:],
    "path0_is_cwd": sys.path[0] == os.getcwd(),
    "argv": [os.path.basename(sys.argv[0]), sys.argv[1]],
    "runner_modules": sorted(m for m in sys.modules if m.split(".")[0] in ("jbrunner", "junobench_runner")),
    "gc": [gc.isenabled(), list(gc.get_threshold()), gc.get_freeze_count()],
    "recursionlimit": sys.getrecursionlimit(),
    "switchinterval": sys.getswitchinterval(),
    "faulthandler": faulthandler.is_enabled(),
    "torch_threads": [torch.get_num_threads(), torch.get_num_interop_threads()],
    "mp_start_method": multiprocessing.get_start_method(allow_none=True),
}
seeds = {
    "random": random.getrandbits(64),
    "numpy": int(numpy.random.randint(0, 2**31)),
    "torch_initial_seed": int(torch.initial_seed()),
    "torch_rand": float(torch.rand(1)[0]),
}
`;

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

const run = (id: string): NotebookRun => ({
  id,
  instanceDir: dir,
  notebook: 'probe.ipynb',
  cells: [0, 1],
  cellTimeoutSeconds: 120,
  timeoutSeconds: 300,
  prewarm: ['numpy', 'torch'],
});

interface Probe {
  same: Record<string, unknown>;
  seeds: Record<string, number>;
}

/** The probe's JSON, carried out of the kernel in a deliberate error's message. */
function probeOf(r: RunResult): Probe {
  const cell = r.cells.find((c) => c.status === 'error');
  if (!cell || cell.ename !== 'RuntimeError')
    throw new Error(`the probe did not report: ${r.status} ${r.reason ?? ''} ${JSON.stringify(r.cells)}`);
  return JSON.parse(cell.evalue!) as Probe;
}

let forked: Runtime;
let launched: Runtime;
let f: RunResult[];
let l: RunResult[];

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'jb-fork-fidelity-'));
  await notebook('probe.ipynb', [
    PROBE,
    'raise RuntimeError(json.dumps({"same": same, "seeds": seeds}, sort_keys=True))',
  ]);
  forked = await createLocalRuntime({ fork: true });
  launched = await createLocalRuntime({ fork: false });
  f = await forked.run([run('f1'), run('f2')], { jobs: 2 });
  l = await launched.run([run('l1'), run('l2')], { jobs: 2 });
}, 600_000);

afterAll(async () => {
  await forked?.close();
  await launched?.close();
});

describe('a forked kernel and a launched kernel look the same to the notebook', () => {
  it('children report their exit codes (SIGCHLD is not left ignored)', () => {
    for (const r of [...f, ...l]) {
      expect(probeOf(r).same).toMatchObject({
        subprocess_false: 1,
        os_system_exit_3: 768,
        multiprocessing_exitcode: 5,
      });
    }
  });

  it('same signal handlers, signal mask, resource limits, environment, umask, session, stdin, sys.path, gc and thread settings', () => {
    const launchedState = probeOf(l[0]!).same;
    expect(probeOf(l[1]!).same).toEqual(launchedState);
    for (const r of f) {
      const state = probeOf(r).same;
      // Key by key first, so a failure names what differs.
      for (const key of Object.keys(launchedState))
        expect({ [key]: state[key] }).toEqual({ [key]: launchedState[key] });
      expect(state).toEqual(launchedState);
    }
  });

  it('every random generator has its own seed in each kernel: random, numpy, torch', () => {
    for (const [a, b] of [f, l]) {
      const sa = probeOf(a!).seeds;
      const sb = probeOf(b!).seeds;
      for (const key of Object.keys(sa)) expect({ [key]: sa[key] }).not.toEqual({ [key]: sb[key] });
    }
  });

  it('each result says which kind of kernel ran', () => {
    for (const r of f) expect(r.kernel).toBe('forked');
    for (const r of l) expect(r.kernel).toBe('launched');
  });
});
