/** What the baseline needs of a model endpoint: one chat completion, its reply text. */
export interface ChatClient {
  complete(prompt: string, options: { model: string; temperature?: number; signal?: AbortSignal }): Promise<string>;
}

export interface OpenAIChatClientOptions {
  /** The endpoint's base URL, e.g. http://127.0.0.1:11434/v1 (Ollama), http://host:8000/v1 (vLLM). */
  baseURL: string;
  /** From OPENAI_API_KEY; local servers accept any. Never printed, logged or written. */
  apiKey?: string;
  /** Retries of a request answered 408, 409, 429 or 5xx, or not answered, with exponential backoff (Retry-After honoured). */
  maxRetries?: number;
  /** Per request, in ms. */
  timeoutMs?: number;
}

export const DEFAULT_LLM_RETRIES = 6;
export const DEFAULT_LLM_TIMEOUT_MS = 600_000;

/**
 * A ChatClient over the `openai` npm client's chat completions, so any OpenAI-compatible server works (vLLM, Ollama,
 * llama.cpp's server, a hosted API). The client is loaded when this is called. Error messages have the key removed.
 */
export async function createOpenAIChatClient(options: OpenAIChatClientOptions): Promise<ChatClient> {
  const { default: OpenAI } = await import('openai');
  const key = options.apiKey && options.apiKey !== '' ? options.apiKey : 'not-set';
  const client = new OpenAI({
    baseURL: options.baseURL,
    apiKey: key,
    maxRetries: options.maxRetries ?? DEFAULT_LLM_RETRIES,
    timeout: options.timeoutMs ?? DEFAULT_LLM_TIMEOUT_MS,
    // The SDK warns on the console by default; only the CLI prints.
    logLevel: 'off',
  });
  return {
    async complete(prompt, o) {
      try {
        const r = await client.chat.completions.create(
          {
            model: o.model,
            messages: [{ role: 'user', content: prompt }],
            ...(o.temperature !== undefined ? { temperature: o.temperature } : {}),
          },
          o.signal ? { signal: o.signal } : {},
        );
        return r.choices[0]?.message?.content ?? '';
      } catch (e) {
        const message = (e as Error).message ?? String(e);
        throw new Error(key.length >= 4 ? message.split(key).join('[REDACTED]') : message, { cause: e });
      }
    },
  };
}
