// Test-only: a stand-in for an OpenAI-compatible endpoint with tool calling, over real HTTP on 127.0.0.1. Each POST
// /v1/chat/completions is passed to a script that sees the conversation and answers with text or tool calls (their
// arguments as a raw string, so a test can send malformed ones).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ToolStandInRequest {
  n: number;
  model: string;
  messages: { role: string; content?: string | null; tool_call_id?: string }[];
  tools: { function: { name: string } }[];
}

export interface ToolStandInReply {
  content?: string;
  toolCalls?: { name: string; arguments: string }[];
}

export interface ToolModelStandIn {
  baseURL: string;
  requests: ToolStandInRequest[];
  close(): Promise<void>;
}

export async function startToolModelStandIn(
  script: (r: ToolStandInRequest) => ToolStandInReply,
): Promise<ToolModelStandIn> {
  const requests: ToolStandInRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Omit<ToolStandInRequest, 'n'>;
      const r: ToolStandInRequest = {
        n: requests.length + 1,
        model: body.model,
        messages: body.messages,
        tools: body.tools,
      };
      requests.push(r);
      const reply = script(r);
      const toolCalls = (reply.toolCalls ?? []).map((t, i) => ({
        id: `call_${r.n}_${i}`,
        type: 'function',
        function: { name: t.name, arguments: t.arguments },
      }));
      const message = {
        role: 'assistant',
        content: reply.content ?? null,
        ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
      };
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: `chatcmpl-${r.n}`,
          object: 'chat.completion',
          created: 0,
          model: body.model,
          choices: [{ index: 0, message, finish_reason: toolCalls.length > 0 ? 'tool_calls' : 'stop', logprobs: null }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
