// Test-only: a local stand-in for an OpenAI-compatible endpoint, over real HTTP on 127.0.0.1, that answers like a
// model: each POST /v1/chat/completions is passed to a script that decides the status, the delay and the reply text.
import { createServer, type IncomingMessage, type Server } from 'node:http';

export interface StandInRequest {
  /** 1-based count of requests received so far, this one included. */
  n: number;
  model: string;
  prompt: string;
  temperature?: number;
  authorization?: string;
}

export interface StandInReply {
  status?: number;
  delayMs?: number;
  /** The assistant message's content (status 200). */
  content?: string;
  headers?: Record<string, string>;
  /** A body sent as it is instead of a chat completion (a malformed endpoint). */
  raw?: string;
}

export interface ModelStandIn {
  baseURL: string;
  requests: StandInRequest[];
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startModelStandIn(
  script: (r: StandInRequest) => StandInReply | Promise<StandInReply>,
): Promise<ModelStandIn> {
  const requests: StandInRequest[] = [];
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
        return;
      }
      const json = JSON.parse(body) as { model: string; messages: { content: string }[]; temperature?: number };
      const r: StandInRequest = {
        n: requests.length + 1,
        model: json.model,
        prompt: json.messages.map((m) => m.content).join('\n'),
        ...(json.temperature !== undefined ? { temperature: json.temperature } : {}),
        ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
      };
      requests.push(r);
      const reply = await script(r);
      if (reply.delayMs) await new Promise((ok) => setTimeout(ok, reply.delayMs));
      const status = reply.status ?? 200;
      const headers = { 'content-type': 'application/json', ...reply.headers };
      if (reply.raw !== undefined) return void res.writeHead(status, headers).end(reply.raw);
      if (status !== 200)
        return void res.writeHead(status, headers).end(JSON.stringify({ error: { message: `stand-in ${status}` } }));
      res.writeHead(200, headers).end(
        JSON.stringify({
          id: `chatcmpl-${r.n}`,
          object: 'chat.completion',
          created: 0,
          model: r.model,
          choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: reply.content ?? '' } }],
        }),
      );
    })();
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise((ok) => server.close(() => ok())),
  };
}

/** A well-behaved model's reply to a junobench prompt, by the task kind the prompt asks about. */
export function answerLikeAModel(prompt: string): string {
  if (prompt.includes('Question: does cell')) return '{"crashes": true, "exception": "KeyError"}';
  if (prompt.includes('Classify the crash'))
    return '{"library": "pandas", "crashType": "key error", "rootCause": "API misuse", "pipelineStage": "data preparation"}';
  return '{"cells": ["print(1)"]}';
}
