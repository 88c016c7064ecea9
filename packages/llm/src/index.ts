// @junobench/llm: the language-model baseline (docs/scoring.md, "A language model as a tool").

export { runLlmBaseline, readLlmLog, DEFAULT_LLM_ATTEMPTS, DEFAULT_LLM_CONCURRENCY } from './run-llm-baseline.js';
export type { RunLlmBaselineOptions, LlmBaselineReport } from './run-llm-baseline.js';
export { parseModelAnswer, extractJsonObject } from './parse-model-answer.js';
export type { ParsedReply } from './parse-model-answer.js';
export { createOpenAIChatClient, DEFAULT_LLM_RETRIES, DEFAULT_LLM_TIMEOUT_MS } from './openai-chat-client.js';
export type { ChatClient, OpenAIChatClientOptions } from './openai-chat-client.js';
