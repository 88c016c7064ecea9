// `junobench serve` end to end: the SDK's own MCP client drives the real binary over stdio (a repair solved through
// the tools, then scored by `junobench score`; nothing of the answer key reachable from a session; nothing left after)
// and over streamable HTTP (four sessions at once, each with its own kernel state; hostile arguments refused). The
// local runtime only: the docker runtime needs the benchmark image, which only the container lane builds.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashTaskId } from '@junobench/score';
import { junobenchBin, repoRoot, runJunobench } from './run-cli.js';

const ANSWER_FILES = ['fixed.ipynb', 'checks.py', 'instance.json', 'reproduced.ipynb', 'original.ipynb'];
const repairOf = (instance: string) => hashTaskId('junobench-tasks-1', 'repair', instance, 'reproduced');

let dir: string;
let tmp: string;
const env = () => ({ ...(process.env as Record<string, string>), CI: '1', TMPDIR: tmp });

interface ToolResult {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content?: { type: string; text?: string }[];
}
const call = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as ToolResult;
const value = (r: ToolResult) => {
  expect(r.isError, r.content?.[0]?.text).toBeFalsy();
  return r.structuredContent!;
};

/** Every file name under `root` (recursively). */
async function listNames(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => e.name);
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'jb-serve-e2e-'));
  tmp = path.join(dir, 'tmp');
  await mkdir(tmp);
  await cp(path.join(repoRoot, 'raw'), path.join(dir, 'raw'), { recursive: true });
  const r = await runJunobench(['tasks', 'export', '--task', 'all', '-o', 'tasks.jsonl'], { cwd: dir });
  expect(r.code, r.stderr).toBe(0);
}, 300_000);

describe('junobench serve over stdio', () => {
  let client: Client;
  afterAll(async () => {
    await client?.close();
  });

  it('a repair solved through the tools is scored resolved; no session sees the answer key; nothing is left', async () => {
    const instanceDir = path.join(dir, 'raw/instances/pandas_1');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [junobenchBin, 'serve', '--tasks', 'tasks.jsonl', '-o', 'agent.jsonl'],
      cwd: dir,
      env: env(),
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    client = new Client({ name: 'serve-e2e', version: '1' });
    await client.connect(transport);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual([
      'list_tasks',
      'open_task',
      'read_notebook',
      'run_cell',
      'inspect',
      'edit_cell',
      'restart',
      'submit',
    ]);
    const opened = value(await call(client, 'open_task', { task_id: repairOf('pandas_1') }));
    const sid = opened.session_id as string;
    expect(opened).toMatchObject({ task: 'repair', target: 5, replay: [0, 1, 2, 3, 4] });

    const nb = value(await call(client, 'read_notebook', { session_id: sid }));
    const code = (
      nb.cells as { cell_type: string; index?: number; source: string; outputs?: { ename?: string }[] }[]
    ).filter((c) => c.cell_type === 'code');
    expect(code[5]!.outputs![0]!.ename).toBe('KeyError');

    // The session's scratch folder (under TMPDIR) holds the notebook and the data, nothing of the answer key.
    const names = await listNames(tmp);
    expect(names).toContain('notebook.ipynb');
    expect(names.filter((n) => ANSWER_FILES.includes(n))).toEqual([]);
    // Nor can the notebook's code reach one: not beside its folder, not in the instance folder, not in /tmp or ~.
    const probe = await call(client, 'run_cell', {
      session_id: sid,
      code: [
        'import os',
        `places = ["../fixed.ipynb", "../checks.py", "../instance.json", "fixed.ipynb", ${JSON.stringify(instanceDir)}, ${JSON.stringify(path.join(instanceDir, 'fixed.ipynb'))}]`,
        'found = [p for p in places if os.path.exists(p)]',
        'for top in ["..", "/tmp", os.path.expanduser("~")]:',
        '    for r, ds, fs in os.walk(top):',
        `        found += [os.path.join(r, f) for f in fs if f in ${JSON.stringify(ANSWER_FILES)}]`,
        'print("found:", found)',
      ].join('\n'),
    });
    expect(value(probe)).toMatchObject({ status: 'ok', output: 'found: []\n' });

    // A call the client cancels (the SDK sends notifications/cancelled) stops its kernel at once, not at the call's
    // time-out, and adds nothing: the session goes on with the next call.
    const cancel = new AbortController();
    const endless = client.callTool(
      { name: 'run_cell', arguments: { session_id: sid, code: 'open("spinning", "w").close()\nwhile True: pass' } },
      undefined,
      { signal: cancel.signal, timeout: 300_000 },
    );
    await waitForAsync(async () => (await listNames(tmp)).includes('spinning'), 300_000);
    const spinning = listPythonDescendants(transport.pid!);
    expect(spinning.length).toBeGreaterThan(0);
    cancel.abort('enough');
    await expect(endless).rejects.toThrow();
    await waitForAsync(async () => spinning.every(isGone), 30_000);
    expect(value(await call(client, 'run_cell', { session_id: sid, code: '1 + 1' }))).toMatchObject({
      ...{ status: 'ok', result: '2' },
      accepted_cells: 2,
    });

    // The crash reproduces in the session; the fix (in cell 1) makes the crash cell run.
    expect(value(await call(client, 'run_cell', { session_id: sid, code: code[5]!.source }))).toMatchObject({
      status: 'error',
      error: { ename: 'KeyError' },
    });
    const fixedNb = JSON.parse(await readFile(path.join(instanceDir, 'fixed.ipynb'), 'utf8')) as {
      cells: { cell_type: string; source: string | string[] }[];
    };
    const fixedCells = fixedNb.cells.filter((c) => c.cell_type === 'code').map((c) => [c.source].flat().join(''));
    value(await call(client, 'edit_cell', { session_id: sid, index: 1, source: fixedCells[1] }));
    expect(value(await call(client, 'run_cell', { session_id: sid, code: code[5]!.source }))).toMatchObject({
      status: 'ok',
    });
    expect(value(await call(client, 'inspect', { session_id: sid, name: 'df' }))).toMatchObject({
      defined: true,
      type: 'pandas.core.frame.DataFrame',
    });
    const refused = await call(client, 'edit_cell', { session_id: sid, index: 99, source: 'x' });
    expect(refused.isError).toBe(true);
    expect(refused.content![0]!.text).toMatch(/"index" 99 is out of range: the notebook has 11 code cells \(0–10\)/);

    const cells = code.map((c, i) => (i === 1 ? fixedCells[1]! : c.source));
    expect(value(await call(client, 'submit', { session_id: sid, answer: { cells } }))).toMatchObject({
      status: 'submitted',
      attempt: 1,
    });
    expect((await call(client, 'read_notebook', { session_id: sid })).content![0]!.text).toMatch(/is closed/);

    // Closing stdin ends the server: every session closed, no scratch file or run folder left.
    await client.close();
    await waitFor(() => /serve: closed/.test(stderr));
    expect(await leftovers()).toEqual([]);

    const trajectory = (await readFile(path.join(dir, 'agent.trajectories', `${sid}.jsonl`), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { seq: number; tool: string; ok: boolean; ms: number; summary: string });
    expect(trajectory.map((t) => t.tool)).toEqual([
      'open_task',
      'read_notebook',
      'run_cell',
      'run_cell',
      'run_cell',
      'run_cell',
      'edit_cell',
      'run_cell',
      'inspect',
      'edit_cell',
      'submit',
      'read_notebook',
    ]);
    expect(trajectory.map((t) => t.ok)).toEqual([
      true,
      true,
      true,
      false,
      true,
      true,
      true,
      true,
      true,
      false,
      true,
      false,
    ]);
    expect(trajectory[3]!.summary).toMatch(/^cancelled: run_cell was cancelled/);

    const scored = await runJunobench(
      ['score', 'agent.jsonl', '--tasks', 'tasks.jsonl', '--runtime', 'local', '--json', 'card.json'],
      { cwd: dir },
    );
    expect(scored.code, scored.stderr).toBe(0);
    const card = JSON.parse(await readFile(path.join(dir, 'card.json'), 'utf8')) as {
      repair: { resolved: { correct: number } };
      trajectories: { sessions: Record<string, unknown>[]; totals: Record<string, number> };
    };
    expect(card.repair.resolved.correct).toBe(1);
    // The trajectories beside the predictions: the session's calls and time, under its task and attempt.
    expect(card.trajectories.sessions).toEqual([
      expect.objectContaining({
        ...{ session: sid, task: repairOf('pandas_1'), instance: 'pandas_1', attempt: 1, submitted: true },
        ...{ calls: 12, refused: 3, timing: 'wall' },
      }),
    ]);
    expect(card.trajectories.sessions[0]!.ms).toBeGreaterThan(0);
    expect(scored.stdout).toMatch(/sessions {2}1 \(1 submitted\): 12 tool calls/);

    // A trajectory line that is not one is refused before any repair runs, naming the file and the line.
    await mkdir(path.join(dir, 'bad.trajectories'));
    await writeFile(path.join(dir, 'bad.trajectories', `${sid}.jsonl`), '{"seq": 1, "tool": "run_cell"}\n');
    const bad = await runJunobench(
      ['score', 'agent.jsonl', '--tasks', 'tasks.jsonl', '--runtime', 'local', '--trajectories', 'bad.trajectories'],
      { cwd: dir },
    );
    expect(bad.code, bad.stderr).toBe(2);
    expect(bad.stderr).toContain(`bad.trajectories/${sid}.jsonl, line 1`);
    expect(bad.stderr).toMatch(/not a valid trajectory-entry/);
  }, 600_000);
});

describe('junobench serve over streamable HTTP', () => {
  let server: ChildProcess | undefined;
  afterAll(() => {
    server?.kill('SIGKILL');
  });

  it('four sessions at once, each with its own kernel state; a fifth refused; hostile arguments refused', async () => {
    server = spawn(
      process.execPath,
      [junobenchBin, 'serve', '--tasks', 'tasks.jsonl', '-o', 'http.jsonl', '--mcp', 'http', '--port', '0'],
      { cwd: dir, env: env(), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    server.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((r) => server!.once('exit', (code) => r(code)));
    await waitFor(() => /at (http:\S+)/.test(stderr));
    const url = /at (http:\S+)/.exec(stderr)![1]!;
    const client = new Client({ name: 'serve-e2e-http', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    const instances = ['numpy_1', 'pandas_2', 'pandas_3', 'sklearn_1'];
    const sids = await Promise.all(
      instances.map(async (i) => value(await call(client, 'open_task', { task_id: repairOf(i) })).session_id as string),
    );
    const fifth = await call(client, 'open_task', { task_id: repairOf('NBspecific_1') });
    expect(fifth.isError).toBe(true);
    expect(fifth.content![0]!.text).toMatch(/4 sessions are open, the limit \(--sessions 4\)/);

    await Promise.all(
      sids.map(async (sid) =>
        expect(value(await call(client, 'run_cell', { session_id: sid, code: `mine = "${sid}"` }))).toMatchObject({
          status: 'ok',
        }),
      ),
    );
    const seen = await Promise.all(
      sids.map(async (sid) => value(await call(client, 'inspect', { session_id: sid, name: 'mine' })).repr),
    );
    expect(seen).toEqual(sids.map((sid) => `'${sid}'`));

    for (const [args, message] of [
      [{ session_id: sids[0], code: 'print(1)\u0000' }, /"code" holds a NUL byte/],
      [{ session_id: sids[0], code: 'x'.repeat(100_001) }, /over the limit of 100000/],
      [{ session_id: sids[0], code: 1 }, /"code" must be a string/],
    ] as const) {
      const r = await call(client, 'run_cell', args);
      expect(r.isError).toBe(true);
      expect(r.content![0]!.text).toMatch(message);
    }
    await client.close();
    // Ctrl-C: every session closed, no kernel or scratch file left.
    server.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(await leftovers()).toEqual([]);
  }, 600_000);
});

describe('a client gone over HTTP', () => {
  let server: ChildProcess | undefined;
  afterAll(() => {
    server?.kill('SIGKILL');
  });

  it('a request closed mid-call stops its kernel; a session idle past --idle is closed and says so', async () => {
    server = spawn(
      process.execPath,
      [
        junobenchBin,
        'serve',
        ...['--tasks', 'tasks.jsonl', '-o', 'idle.jsonl', '--mcp', 'http', '--port', '0'],
        '--idle',
        '5',
      ],
      { cwd: dir, env: env(), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    server.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((r) => server!.once('exit', (code) => r(code)));
    await waitFor(() => /at (http:\S+)/.test(stderr));
    const url = /at (http:\S+)/.exec(stderr)![1]!;
    const client = new Client({ name: 'serve-e2e-idle', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    const sid = value(await call(client, 'open_task', { task_id: repairOf('pandas_1') })).session_id as string;

    // A client that goes away mid-call: its HTTP request closed before the answer.
    const gone = new AbortController();
    const abandoned = fetch(url, {
      method: 'POST',
      signal: gone.signal,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        ...{ jsonrpc: '2.0', id: 1, method: 'tools/call' },
        params: {
          name: 'run_cell',
          arguments: { session_id: sid, code: 'open("abandoned", "w").close()\nwhile True: pass' },
        },
      }),
    });
    abandoned.catch(() => undefined);
    await waitForAsync(async () => (await listNames(tmp)).includes('abandoned'), 300_000);
    const kernels = listPythonDescendants(server.pid!);
    expect(kernels.length).toBeGreaterThan(0);
    gone.abort();
    // Stopped at once, not at the call's time-out (120 s): the idle limit only counts once a call is over.
    await waitForAsync(async () => kernels.every(isGone), 30_000);

    // No call for 5 s: the session is closed (its scratch folder gone, no kernel), and the next call says why.
    await waitForAsync(async () => !(await listNames(tmp)).includes('notebook.ipynb'), 60_000);
    expect(listPythonDescendants(server.pid!)).toEqual([]);
    const late = await call(client, 'read_notebook', { session_id: sid });
    expect(late.isError).toBe(true);
    expect(late.content![0]!.text).toContain(`session ${sid} is closed: it had no call for 5 s (the idle limit`);
    const trajectory = (await readFile(path.join(dir, 'idle.trajectories', `${sid}.jsonl`), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { tool: string; ok: boolean; summary: string });
    expect(trajectory.map((t) => [t.tool, t.ok, t.summary.split(':')[0]])).toEqual([
      ['open_task', true, `session ${sid}`],
      ['run_cell', false, 'cancelled'],
      ['read_notebook', false, 'unknown-session'],
    ]);
    await client.close();
    server.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(await leftovers()).toEqual([]);
  }, 600_000);
});

describe('a session killed mid-call', () => {
  let server: ChildProcess | undefined;
  afterAll(() => {
    server?.kill('SIGKILL');
  });

  it('leaves no kernel and no scratch file: the client gone, SIGTERM, SIGKILL (swept at the next start)', async () => {
    for (const how of ['client-gone', 'SIGTERM', 'SIGKILL'] as const) {
      const serve = startStdioServe(['serve', '--tasks', 'tasks.jsonl', '-o', `killed-${how}.jsonl`]);
      server = serve.child;
      const exited = new Promise<number | null>((r) => serve.child.once('exit', (code) => r(code)));
      await serve.request('initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'serve-e2e-kill', version: '1' },
      });
      serve.notify('notifications/initialized');
      const opened = await serve.call('open_task', { task_id: repairOf('pandas_1') });
      const sid = opened.session_id as string;
      // The marker says the replay is over and the endless cell is running.
      const looping = serve.call('run_cell', {
        session_id: sid,
        code: 'open("looping", "w").close()\nwhile True: pass',
      });
      looping.catch(() => undefined);
      await waitForAsync(async () => (await listNames(tmp)).includes('looping'), 300_000);
      const kernels = listPythonDescendants(serve.child.pid!);
      expect(kernels.length, `${how}: a kernel under serve`).toBeGreaterThan(0);

      if (how === 'client-gone') serve.child.stdin!.end();
      else serve.child.kill(how);
      const code = await exited;
      if (how !== 'SIGKILL') expect(code, `${how}: ${serve.stderr()}`).toBe(0);
      // SIGKILL: the sandbox dies with its parent (bubblewrap's --die-with-parent).
      await waitForAsync(async () => kernels.every(isGone), 60_000);
      if (how === 'SIGKILL') {
        expect(await leftovers()).not.toEqual([]);
        // The next serve sweeps what the killed one left as it starts.
        const next = startStdioServe(['serve', '--tasks', 'tasks.jsonl', '-o', 'next.jsonl']);
        server = next.child;
        const nextExited = new Promise<number | null>((r) => next.child.once('exit', (c) => r(c)));
        await waitForAsync(async () => /on stdio/.test(next.stderr()), 120_000);
        next.child.stdin!.end();
        expect(await nextExited).toBe(0);
      }
      expect(await leftovers(), how).toEqual([]);
    }
  }, 900_000);
});

/** `serve` over stdio driven by hand (newline-delimited JSON-RPC), so that the test decides how it ends. */
function startStdioServe(args: string[]) {
  const child = spawn(process.execPath, [junobenchBin, ...args], { cwd: dir, env: env(), stdio: 'pipe' });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const waiting = new Map<number, (m: { result?: Record<string, unknown>; error?: unknown }) => void>();
  let buffered = '';
  child.stdout.on('data', (d: Buffer) => {
    buffered += d.toString();
    for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
      const m = JSON.parse(buffered.slice(0, nl)) as { id?: number; result?: Record<string, unknown>; error?: unknown };
      buffered = buffered.slice(nl + 1);
      if (typeof m.id === 'number') waiting.get(m.id)?.(m);
    }
  });
  let next = 1;
  const send = (m: Record<string, unknown>) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`);
  const request = (method: string, params: Record<string, unknown>) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const id = next++;
      waiting.set(id, (m) => (m.result ? resolve(m.result) : reject(new Error(JSON.stringify(m.error)))));
      child.once('exit', () => reject(new Error(`serve exited before answering ${method}`)));
      send({ id, method, params });
    });
  return {
    child,
    stderr: () => stderr,
    request,
    notify: (method: string) => send({ method }),
    call: async (name: string, args: Record<string, unknown>) =>
      value((await request('tools/call', { name, arguments: args })) as ToolResult),
  };
}

/** The Python processes below `root` (the kernels and their runners), with their start times. */
function listPythonDescendants(root: number): { pid: number; start: string }[] {
  const procs = readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .map((n) => ({ pid: Number(n), stat: readProc(`/proc/${n}/stat`), cmd: readProc(`/proc/${n}/cmdline`) }))
    .filter((p) => p.stat !== undefined);
  const fields = (stat: string) => stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const below = new Set([root]);
  for (let grew = true; grew;) {
    grew = false;
    for (const p of procs)
      if (!below.has(p.pid) && below.has(Number(fields(p.stat!)[1]))) grew = below.add(p.pid) !== undefined;
  }
  return procs
    .filter((p) => p.pid !== root && below.has(p.pid) && /python/.test(p.cmd ?? ''))
    .map((p) => ({ pid: p.pid, start: fields(p.stat!)[19]! }));
}

function isGone(p: { pid: number; start: string }): boolean {
  const stat = readProc(`/proc/${p.pid}/stat`);
  if (stat === undefined) return true;
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return f[0] === 'Z' || f[19] !== p.start;
}

function readProc(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

async function waitForAsync(test: () => Promise<boolean>, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!(await test())) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** What the server left in TMPDIR (tsx's own cache aside, when the CLI runs from its sources). */
async function leftovers(): Promise<string[]> {
  return (await readdir(tmp)).filter((n) => !n.startsWith('tsx-'));
}

async function waitFor(test: () => boolean, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!test()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 100));
  }
}
