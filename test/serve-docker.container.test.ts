// `junobench serve --runtime docker`: the SDK's own MCP client over stdio solves a repair task in sessions that run in
// the benchmark image (the suite's shared one, test/containers-global-setup.ts), and `score --runtime docker`
// resolves what it submitted, with the session's calls from its trajectory.
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashTaskId } from '@junobench/score';
import { connectDockerEngine } from '@junobench/runtime';
import { ensureSandboxTestImage } from '../packages/runtime/test-helpers/sandbox-test-image.js';
import { junobenchBin, repoRoot, runJunobench } from './run-cli.js';

let dir: string;
let image: string;

interface ToolResult {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content?: { type: string; text?: string }[];
}
const call = async (client: Client, name: string, args: Record<string, unknown>) => {
  // A call starts a container and replays the notebook in it: minutes on a busy machine, past the SDK's 60 s default.
  const r = (await client.callTool({ name, arguments: args }, undefined, { timeout: 600_000 })) as ToolResult;
  expect(r.isError, r.content?.[0]?.text).toBeFalsy();
  return r.structuredContent!;
};

beforeAll(async () => {
  image = await ensureSandboxTestImage(await connectDockerEngine(process.env));
  dir = await mkdtemp(path.join(os.tmpdir(), 'jb-serve-docker-'));
  await cp(path.join(repoRoot, 'raw/instances/pandas_1'), path.join(dir, 'raw/instances/pandas_1'), {
    recursive: true,
  });
  const r = await runJunobench(['tasks', 'export', '--task', 'repair', '-o', 'tasks.jsonl'], { cwd: dir });
  expect(r.code, r.stderr).toBe(0);
}, 300_000);
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('junobench serve --runtime docker', () => {
  it('a repair solved in container sessions over stdio is resolved by score --runtime docker', async () => {
    const task = hashTaskId('junobench-tasks-1', 'repair', 'pandas_1', 'reproduced');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        junobenchBin,
        'serve',
        ...['--tasks', 'tasks.jsonl', '-o', 'agent.jsonl', '--runtime', 'docker', '--image', image],
      ],
      cwd: dir,
      env: { ...(process.env as Record<string, string>), CI: '1' },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const client = new Client({ name: 'serve-docker', version: '1' });
    await client.connect(transport);
    try {
      const sid = (await call(client, 'open_task', { task_id: task })).session_id as string;
      const nb = await call(client, 'read_notebook', { session_id: sid });
      const code = (nb.cells as { cell_type: string; source: string }[]).filter((c) => c.cell_type === 'code');
      // In the container: the crash reproduces, and the kernel runs in the container's working copy.
      expect(await call(client, 'run_cell', { session_id: sid, code: code[5]!.source })).toMatchObject({
        status: 'error',
        error: { ename: 'KeyError' },
      });
      // The container runtime's working copy is /work (the local sandbox has its own run folder).
      const where = await call(client, 'run_cell', { session_id: sid, code: 'import os\nprint(os.getcwd())' });
      expect(where, stderr).toMatchObject({ status: 'ok', output: '/work\n' });
      const fixed = JSON.parse(await readFile(path.join(dir, 'raw/instances/pandas_1/fixed.ipynb'), 'utf8')) as {
        cells: { cell_type: string; source: string | string[] }[];
      };
      const fixedCells = fixed.cells.filter((c) => c.cell_type === 'code').map((c) => [c.source].flat().join(''));
      await call(client, 'edit_cell', { session_id: sid, index: 1, source: fixedCells[1] });
      expect(await call(client, 'run_cell', { session_id: sid, code: code[5]!.source })).toMatchObject({
        status: 'ok',
      });
      const cells = code.map((c, i) => (i === 1 ? fixedCells[1]! : c.source));
      expect(await call(client, 'submit', { session_id: sid, answer: { cells } })).toMatchObject({
        status: 'submitted',
        attempt: 1,
      });
    } finally {
      await client.close();
    }

    const scored = await runJunobench(
      [
        'score',
        'agent.jsonl',
        '--tasks',
        'tasks.jsonl',
        '--runtime',
        'docker',
        '--image',
        image,
        '--json',
        'card.json',
      ],
      { cwd: dir },
    );
    expect(scored.code, scored.stderr).toBe(0);
    const card = JSON.parse(await readFile(path.join(dir, 'card.json'), 'utf8')) as {
      runtime: { kind: string };
      repair: { resolved: { correct: number; total: number } };
      trajectories: { totals: { sessions: number; submitted: number; calls: number } };
    };
    expect(card.runtime.kind).toBe('docker');
    expect(card.repair.resolved).toMatchObject({ correct: 1, total: 1 });
    expect(card.trajectories.totals).toEqual(expect.objectContaining({ sessions: 1, submitted: 1, calls: 7 }));
  }, 900_000);
});
