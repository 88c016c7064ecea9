// A notebook cannot write its own verdict in the local runtime: the runner's
// messages are signed with a key no kernel sees, so a result line a cell
// manages to put on the runner's output is not a message, and a runner the
// notebook kills is a failure of that notebook, not a pass. And the sandbox
// (local-sandbox.ts) shows it nothing of the machine: not the answer key
// beside its instance, not the project, not the home folder, no network.
import { createServer, type Server } from 'node:net';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalRuntime } from './local-runtime.js';
import type { NotebookRun, Runtime } from './runtime.js';
import { writeCodeNotebook } from '../test-helpers/code-notebook.js';
import { REACH_RUNNER_CELL, forgeResultCell } from '../test-helpers/forgery-cells.js';

let tmp: string;
let rt: Runtime;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'jb-local-forgery-'));
  rt = await createLocalRuntime();
}, 120_000);

afterAll(async () => {
  await rt?.close();
  await rm(tmp, { recursive: true, force: true });
});

const runOf = (id: string, dir: string, cells: number[]): NotebookRun => ({
  id,
  instanceDir: dir,
  notebook: 'notebook.ipynb',
  cells,
  cellTimeoutSeconds: 120,
  timeoutSeconds: 300,
});

describe("local runtime: the runner's result", () => {
  // As verify and score see them: a fixed notebook (or a repair) that raises 1/0 after forging
  // "completed", a reproduced one that never crashes forging a KeyError.
  it.each([
    ['completed', ['print("forging")', '1/0']],
    ['error', ['print("forging")', 'x = 1']],
  ] as const)(
    'a notebook that forges a result saying %s and kills its runner fails',
    async (status, cells) => {
      const dir = await writeCodeNotebook(path.join(tmp, `forge-${status}`), [
        cells[0],
        forgeResultCell(status),
        cells[1],
      ]);
      const [r] = await rt.run([runOf(`forge-${status}`, dir, [0, 1, 2])]);
      expect(r!.status).toBe('failed');
      expect(r!.cells.find((c) => c.ename === 'KeyError')).toBeUndefined();
      expect(r!.reason).toMatch(/^the runner process ended unexpectedly: .*\(while this notebook ran\)$/);
    },
    600_000,
  );
});

describe('local runtime: the sandbox', () => {
  let server: Server;
  let port = 0;
  beforeAll(async () => {
    server = createServer((socket) => socket.end('a host service\n'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('a notebook cannot reach the runner, the reaper or a zygote: no ptrace, no copy of a file descriptor', async () => {
    const dir = await writeCodeNotebook(path.join(tmp, 'reach'), [REACH_RUNNER_CELL]);
    const [r] = await rt.run([runOf('reach', dir, [0])]);
    expect(r!.cells[0]).toMatchObject({ status: 'error', ename: 'RuntimeError', evalue: 'reached=[]' });
  }, 600_000);

  it('a repair finds no answer key (walking /proc/<pid>/cwd or by path), no project, no home, no network', async () => {
    // As `score` lays it out: the attempt's folder holds its notebook alone; the instance with
    // its fixed notebook is elsewhere on the machine, as raw/instances/<id>/ of a checkout.
    const key = path.join(tmp, 'checkout', 'raw', 'instances', 'pandas_1');
    await mkdir(key, { recursive: true });
    await writeFile(path.join(key, 'fixed.ipynb'), '{"the": "answer key"}');
    const looks = [
      'import glob, os, socket',
      'seen = []',
      "for p in [p for p in os.listdir('/proc') if p.isdigit()]:",
      '    try:',
      "        d = os.readlink(f'/proc/{p}/cwd')",
      '    except OSError:',
      '        continue',
      '    while True:',
      "        for pattern in ('raw/instances/*/fixed.ipynb', '*/fixed.ipynb', 'fixed.ipynb'):",
      '            seen += glob.glob(os.path.join(d, pattern))',
      "        if d == '/':",
      '            break',
      '        d = os.path.dirname(d)',
      `for p in ${JSON.stringify([path.join(key, 'fixed.ipynb'), process.cwd(), os.homedir(), tmp])}:`,
      '    if os.path.exists(p):',
      '        seen.append(p)',
      'for p in ["/", "/usr/lib", "/etc", "/opt/junobench"]:',
      '    try:',
      "        open(os.path.join(p, 'written-by-a-notebook'), 'w').close()",
      "        seen.append('wrote ' + p)",
      '    except OSError:',
      '        pass',
      'try:',
      `    socket.create_connection(('127.0.0.1', ${port}), timeout=3).close()`,
      "    seen.append('connected to the host')",
      'except OSError:',
      '    pass',
      "open('written-in-its-folder', 'w').close()",
      "open('/tmp/written-in-tmp', 'w').close()",
      "raise RuntimeError('seen=' + repr(sorted(set(seen))))",
    ].join('\n');
    const dir = await writeCodeNotebook(path.join(tmp, 'attempt'), [looks]);
    const [r] = await rt.run([runOf('answer-key', dir, [0])]);
    expect(r!.cells[0]).toMatchObject({ status: 'error', ename: 'RuntimeError', evalue: 'seen=[]' });
  }, 600_000);
});
