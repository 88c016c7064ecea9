// The reference agent against a stand-in model on loopback that issues tool calls, a malformed one included, through
// the harness's real sessions (the local runtime's kernels) on tasks of a copy of the embedded instances.
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { checkSchema } from '@junobench/core';
import { createLocalRuntime } from '@junobench/runtime';
import { exportTasks, hashTaskId } from '@junobench/score';
import { startToolModelStandIn } from '../test-helpers/tool-model-stand-in.js';
import { createHarness } from './harness.js';
import { createOpenAIAgentChat } from './openai-agent-chat.js';
import { openHarnessTasks } from './open-harness-tasks.js';
import { runReferenceAgent } from './run-reference-agent.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
let dir: string | undefined;
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('runReferenceAgent', () => {
  it('drives a session through tool calls to a submitted prediction; a malformed call gets the reason', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'jb-agent-'));
    const instancesDir = path.join(dir, 'instances');
    await cp(path.join(repoRoot, 'raw/instances/numpy_1'), path.join(instancesDir, 'numpy_1'), { recursive: true });
    await exportTasks({ instancesDir, output: path.join(dir, 'tasks.jsonl'), kinds: ['detect'] });
    const tasks = await openHarnessTasks({ tasks: path.join(dir, 'tasks.jsonl'), instancesDir });
    const detect = hashTaskId('junobench-tasks-1', 'detect', 'numpy_1', 'reproduced');
    const other = hashTaskId('junobench-tasks-1', 'detect', 'numpy_1', 'fixed');
    const predictions = path.join(dir, 'agent.jsonl');
    const harness = createHarness({
      tasks,
      createRuntime: () => createLocalRuntime(),
      predictions,
      trajectories: path.join(dir, 'trajectories'),
    });
    const model = await startToolModelStandIn((r) => {
      const turn = r.messages.filter((m) => m.role === 'assistant').length;
      const first = r.messages.find((m) => m.role === 'user')!.content!;
      if (!first.includes(detect)) return { content: 'I think it is fine.' };
      const calls = [
        { name: 'read_notebook', arguments: '{"session_id": "made-up"}' },
        { name: 'run_cell', arguments: '{"code": "1 +' },
        { name: 'run_cell', arguments: JSON.stringify({ code: 'print(np.__name__)' }) },
        { name: 'submit', arguments: JSON.stringify({ answer: { crashes: true, exception: 'ValueError' } }) },
      ];
      return { toolCalls: [calls[turn]!] };
    });
    try {
      const chat = await createOpenAIAgentChat({ baseURL: model.baseURL, model: 'stand-in', maxRetries: 0 });
      const seen: string[] = [];
      const report = await runReferenceAgent({
        harness,
        taskIds: [detect, other],
        chat,
        maxTurns: 4,
        onTask: (id, outcome) => seen.push(`${id} ${outcome}`),
      });
      // The second task's model never calls a tool: given up after its 4 turns, its session closed.
      expect(report).toEqual({ submitted: [detect], gaveUp: [other] });
      expect(harness.sessions()).toEqual([]);
      expect(seen).toEqual([`${detect} submitted`, `${other} gave-up`]);
    } catch (e) {
      await harness.close();
      await model.close();
      throw e;
    }
    await harness.close();
    await model.close();
    const lines = (await readFile(predictions, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as unknown);
    expect(lines).toEqual([
      { task: 'detect', id: detect, attempt: 1, answer: { crashes: true, exception: 'ValueError' } },
    ]);
    expect(checkSchema('prediction', lines[0])).toEqual([]);
    const toolResults = model.requests.flatMap((r) =>
      r.messages.filter((m) => m.role === 'tool').map((m) => m.content),
    );
    expect(toolResults.some((t) => /the arguments are not JSON/.test(t ?? ''))).toBe(true);
    expect(toolResults.some((t) => /"output":"numpy\\n"/.test(t ?? ''))).toBe(true);
    expect(model.requests[0]!.tools.map((t) => t.function.name)).toEqual([
      'read_notebook',
      'run_cell',
      'inspect',
      'edit_cell',
      'restart',
      'submit',
    ]);
  }, 600_000);
});
