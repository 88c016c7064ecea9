import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Harness } from './harness.js';
import { planToolDefinitions } from './tool-definitions.js';

export const MCP_SERVER_NAME = 'junobench';

/**
 * An MCP server (the official SDK's) whose tools are the harness's; one per connection, all on the same harness. A
 * call stops when its client cancels it (notifications/cancelled: the SDK aborts the handler's signal) or when
 * `connection` (an HTTP request's) ends first.
 */
export function createMcpServer(harness: Harness, version: string, connection?: AbortSignal): Server {
  const server = new Server({ name: MCP_SERVER_NAME, version }, { capabilities: { tools: {} } });
  const tools = planToolDefinitions(harness.limits);
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const signal = connection ? AbortSignal.any([extra.signal, connection]) : extra.signal;
    const outcome = await harness.call(request.params.name, request.params.arguments ?? {}, { signal });
    if (!outcome.ok)
      return {
        content: [{ type: 'text' as const, text: outcome.message }],
        isError: true,
        _meta: { code: outcome.code },
      };
    return {
      content: [{ type: 'text' as const, text: JSON.stringify(outcome.value, null, 1) }],
      structuredContent: outcome.value,
    };
  });
  return server;
}

/**
 * Serve over this process's stdin and stdout until the client closes them (`closed`), or until `close()` (a signal):
 * then stdin is let go, so that nothing keeps the process alive once the sessions are closed.
 */
export async function serveStdio(
  harness: Harness,
  version: string,
): Promise<{ closed: Promise<void>; close(): Promise<void> }> {
  const server = createMcpServer(harness, version);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  return {
    closed,
    close: async () => {
      await server.close().catch(() => undefined);
      process.stdin.destroy();
    },
  };
}

export interface HttpService {
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Serve streamable HTTP on 127.0.0.1 (`/mcp`), statelessly: each request gets its own MCP server and transport, and
 * the sessions live in the harness, named by their session_id (a client that never comes back leaves its sessions to
 * the idle limit). Requests whose Host is not this address are refused
 * (a web page cannot reach the server by DNS rebinding).
 */
export async function serveHttp(harness: Harness, version: string, port: number): Promise<HttpService> {
  let allowed: string[] = [];
  const http = createServer((req, res) => void handle(req, res));
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/mcp') return end(res, 404, 'not found: the MCP endpoint is /mcp');
    if (!allowed.includes(req.headers.host ?? '')) return end(res, 403, 'forbidden host');
    if (req.method !== 'POST') return end(res, 405, 'method not allowed: POST to /mcp (stateless streamable HTTP)');
    // A client that goes away before its answer (closed its connection, timed out) no longer waits for the call: it
    // stops as if cancelled, so its kernel does not run on to the call's time-out.
    const gone = new AbortController();
    const server = createMcpServer(harness, version, gone.signal);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      if (!res.writableFinished) gone.abort();
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res);
    } catch (e) {
      if (!res.headersSent) end(res, 500, `internal error: ${(e as Error).message}`);
    }
  };
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, '127.0.0.1', () => resolve());
  });
  const actual = (http.address() as AddressInfo).port;
  allowed = [`127.0.0.1:${actual}`, `localhost:${actual}`];
  return {
    url: `http://127.0.0.1:${actual}/mcp`,
    port: actual,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

function end(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain' }).end(`${text}\n`);
}
