// The language-model baseline against a stand-in endpoint over real HTTP (the `openai` client, through its base
// URL): every attempt asked, replies read bare, fenced or in prose, malformed ones kept as abstentions in the log,
// 429 and 5xx retried, slow replies waited for, and a rerun that resumes.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSchema, type Task } from '@junobench/core';
import { answerLikeAModel, startModelStandIn } from '../test-helpers/model-stand-in.js';
import { createOpenAIChatClient } from './openai-chat-client.js';
import { readLlmLog, runLlmBaseline } from './run-llm-baseline.js';

const KEY = 'sk-test-0123456789abcdef';

const TASKS = [
  {
    id: 'detect-0000000000000001',
    task: 'detect',
    context: [],
    target: 'df["x"]',
    prompt: 'Question: does cell 1 raise an exception?',
  },
  {
    id: 'detect-0000000000000002',
    task: 'detect',
    context: [],
    target: 'df["y"]',
    prompt: 'Question: does cell 2 raise an exception?',
  },
  { id: 'diagnose-0000000000000003', task: 'diagnose', prompt: 'Classify the crash in four dimensions' },
] as unknown as Task[];

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'jb-llm-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const lines = async (file: string) =>
  (await readFile(file, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { id: string; attempt: number; task: string; answer: unknown });

describe('runLlmBaseline', () => {
  it('asks every task 5 times and writes a full, schema-valid predictions file; the key goes only to the endpoint', async () => {
    const server = await startModelStandIn((r) => ({ content: answerLikeAModel(r.prompt) }));
    try {
      const output = path.join(dir, 'full.jsonl');
      const client = await createOpenAIChatClient({ baseURL: server.baseURL, apiKey: KEY, maxRetries: 0 });
      const report = await runLlmBaseline({
        tasks: TASKS,
        output,
        log: `${output}.log.jsonl`,
        client,
        model: 'stand-in',
        temperature: 0.7,
      });
      expect(report).toMatchObject({ attempts: 5, answered: 15, abstained: 0, failed: [], lines: 15 });
      const preds = await lines(output);
      expect(preds.map((p) => `${p.id}#${p.attempt}`)).toEqual(
        TASKS.flatMap((t) => [1, 2, 3, 4, 5].map((a) => `${t.id}#${a}`)),
      );
      for (const p of preds) expect(checkSchema('prediction', p)).toEqual([]);
      expect(server.requests).toHaveLength(15);
      expect(server.requests.every((r) => r.authorization === `Bearer ${KEY}` && r.temperature === 0.7)).toBe(true);
      for (const f of [output, `${output}.log.jsonl`]) expect(await readFile(f, 'utf8')).not.toContain(KEY);
      for (const e of await readLlmLog(`${output}.log.jsonl`)) expect(checkSchema('llm-log', e)).toEqual([]);
    } finally {
      await server.close();
    }
  }, 60_000);

  it('reads fenced and prose answers, keeps a malformed reply as an abstention, retries 429 and 500, waits for a slow one', async () => {
    // One task, asked 5 times in order (concurrency 1): requests 1 (429) and 5 (500) are retried.
    const script = [
      { status: 429, headers: { 'retry-after-ms': '20' } },
      { content: '```json\n{"crashes": true, "exception": "KeyError"}\n```' },
      { content: 'Cell 1 reads a missing column, so {"crashes": true, "exception": "KeyError"} is my answer.' },
      { content: 'It probably crashes, {"crashes": tru' },
      { status: 500, headers: { 'retry-after-ms': '20' } },
      { content: 'The cell runs fine.' },
      { delayMs: 1500, content: '{"crashes": false}' },
    ];
    const server = await startModelStandIn((r) => script[r.n - 1] ?? { status: 400 });
    try {
      const output = path.join(dir, 'odd.jsonl');
      const client = await createOpenAIChatClient({ baseURL: server.baseURL, apiKey: KEY, maxRetries: 2 });
      const report = await runLlmBaseline({
        tasks: TASKS.slice(0, 1),
        output,
        log: `${output}.log.jsonl`,
        client,
        model: 'm',
        concurrency: 1,
      });
      expect(report).toMatchObject({ answered: 3, abstained: 2, failed: [], lines: 3 });
      const log = await readLlmLog(`${output}.log.jsonl`);
      expect(log.map((e) => [e.attempt, e.status])).toEqual([
        [1, 'answered'],
        [2, 'answered'],
        [3, 'abstained'],
        [4, 'abstained'],
        [5, 'answered'],
      ]);
      expect(log[2]).toMatchObject({
        reply: 'It probably crashes, {"crashes": tru',
        reason: 'the reply holds no JSON object',
      });
      expect(log[3]!.reply).toBe('The cell runs fine.');
      expect((await lines(output)).map((p) => p.answer)).toEqual([
        { crashes: true, exception: 'KeyError' },
        { crashes: true, exception: 'KeyError' },
        { crashes: false },
      ]);
    } finally {
      await server.close();
    }
  }, 60_000);

  it('resumes: a rerun asks only for the (task, attempt) pairs that failed', async () => {
    let down = true;
    const server = await startModelStandIn((r) =>
      down && r.prompt.includes('cell 2') ? { status: 503 } : { content: answerLikeAModel(r.prompt) },
    );
    try {
      const output = path.join(dir, 'resume.jsonl');
      const log = `${output}.log.jsonl`;
      const client = await createOpenAIChatClient({ baseURL: server.baseURL, apiKey: KEY, maxRetries: 0 });
      const first = await runLlmBaseline({ tasks: TASKS, output, log, client, model: 'm', attempts: 2 });
      expect(first.failed.map((f) => `${f.id}#${f.attempt}`)).toEqual([
        'detect-0000000000000002#1',
        'detect-0000000000000002#2',
      ]);
      expect(first.failed[0]!.reason).toMatch(/503/);
      expect(first.lines).toBe(4);
      down = false;
      const asked = server.requests.length;
      const second = await runLlmBaseline({ tasks: TASKS, output, log, client, model: 'm', attempts: 2 });
      expect(second).toMatchObject({ resumed: 4, answered: 2, failed: [], lines: 6 });
      expect(server.requests.slice(asked).map((r) => r.prompt)).toEqual([TASKS[1]!.prompt, TASKS[1]!.prompt]);
    } finally {
      await server.close();
    }
  }, 60_000);
});
