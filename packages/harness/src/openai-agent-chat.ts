import type { AgentChat } from './run-reference-agent.js';

export interface OpenAIAgentChatOptions {
  /** An OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1. */
  baseURL: string;
  model: string;
  /** From OPENAI_API_KEY; local servers accept any. Never printed, logged or written. */
  apiKey?: string;
  maxRetries?: number;
  timeoutMs?: number;
}

/** The reference agent's model through the `openai` client's tool calling (loaded when this is called). */
export async function createOpenAIAgentChat(options: OpenAIAgentChatOptions): Promise<AgentChat> {
  const { default: OpenAI } = await import('openai');
  const key = options.apiKey && options.apiKey !== '' ? options.apiKey : 'not-set';
  const client = new OpenAI({
    baseURL: options.baseURL,
    apiKey: key,
    maxRetries: options.maxRetries ?? 6,
    timeout: options.timeoutMs ?? 600_000,
    logLevel: 'off',
  });
  return async (messages, tools) => {
    try {
      const r = await client.chat.completions.create({
        model: options.model,
        messages: messages as Parameters<typeof client.chat.completions.create>[0]['messages'],
        tools: tools as Parameters<typeof client.chat.completions.create>[0]['tools'],
      });
      const m = r.choices[0]?.message;
      const toolCalls = (m?.tool_calls ?? [])
        .filter((t) => t.type === 'function')
        .map((t) => ({
          id: t.id,
          type: 'function' as const,
          function: { name: t.function.name, arguments: t.function.arguments },
        }));
      return { content: m?.content ?? null, toolCalls };
    } catch (e) {
      const message = (e as Error).message ?? String(e);
      throw new Error(key.length >= 4 ? message.split(key).join('[REDACTED]') : message, { cause: e });
    }
  };
}
