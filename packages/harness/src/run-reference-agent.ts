import type { Harness } from './harness.js';
import { planToolDefinitions } from './tool-definitions.js';

/** One message of the conversation, in the chat-completions shape. */
export type AgentMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: AgentToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

export interface AgentToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface AgentTool {
  type: 'function';
  function: { name: string; description: string; parameters: object };
}

/** A model behind tool calling: the conversation and the tools in, the assistant's message out. */
export type AgentChat = (
  messages: readonly AgentMessage[],
  tools: readonly AgentTool[],
) => Promise<{ content: string | null; toolCalls: AgentToolCall[] }>;

export interface RunReferenceAgentOptions {
  harness: Harness;
  /** The tasks to answer, in order. */
  taskIds: readonly string[];
  chat: AgentChat;
  /** Model turns per task before it is given up (default 30). */
  maxTurns?: number;
  /** Tasks already answered in the predictions file: skipped (a rerun resumes). */
  answered?: ReadonlySet<string>;
  onTask?: (taskId: string, outcome: 'submitted' | 'gave-up' | 'skipped') => void;
}

export const DEFAULT_AGENT_TURNS = 30;

const SYSTEM = [
  'You debug a crashing Python Jupyter notebook through tools: read_notebook, run_cell, inspect, edit_cell, restart,',
  'submit. Read the notebook, run cells, inspect the names on the failing line, then submit your answer in the format',
  'the task asks for. Every tool takes the session_id you are given.',
].join(' ');

/**
 * The reference agent (README, "An agent in the notebook"): per task a session, the task's prompt to the model with
 * the session's tools, each tool call done through the harness (a call whose arguments are not JSON is answered with
 * the reason, as a refused call is), until the model submits or runs out of turns.
 */
export async function runReferenceAgent(
  options: RunReferenceAgentOptions,
): Promise<{ submitted: string[]; gaveUp: string[] }> {
  const tools: AgentTool[] = planToolDefinitions(options.harness.limits)
    .filter((t) => t.name !== 'list_tasks' && t.name !== 'open_task')
    .map((t) => ({
      type: 'function',
      function: { name: t.name, description: t.description, parameters: t.inputSchema },
    }));
  const submitted: string[] = [];
  const gaveUp: string[] = [];
  for (const taskId of options.taskIds) {
    if (options.answered?.has(taskId)) {
      options.onTask?.(taskId, 'skipped');
      continue;
    }
    const done = await solveTask(options, tools, taskId);
    (done ? submitted : gaveUp).push(taskId);
    options.onTask?.(taskId, done ? 'submitted' : 'gave-up');
  }
  return { submitted, gaveUp };
}

async function solveTask(options: RunReferenceAgentOptions, tools: AgentTool[], taskId: string): Promise<boolean> {
  const { harness } = options;
  const opened = await harness.call('open_task', { task_id: taskId });
  if (!opened.ok) throw new Error(`cannot open task ${taskId}: ${opened.message}`);
  const sessionId = opened.value.session_id as string;
  const messages: AgentMessage[] = [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: `session_id: ${sessionId}\n\n${String(opened.value.prompt)}` },
  ];
  try {
    for (let turn = 0; turn < (options.maxTurns ?? DEFAULT_AGENT_TURNS); turn++) {
      const reply = await options.chat(messages, tools);
      messages.push({
        role: 'assistant',
        content: reply.content,
        ...(reply.toolCalls.length > 0 ? { tool_calls: reply.toolCalls } : {}),
      });
      if (reply.toolCalls.length === 0) {
        messages.push({ role: 'user', content: 'Use the tools; call submit with your answer when you are done.' });
        continue;
      }
      for (const tc of reply.toolCalls) {
        const { text, submittedNow } = await doToolCall(harness, sessionId, tc);
        messages.push({ role: 'tool', tool_call_id: tc.id, content: text });
        if (submittedNow) return true;
      }
    }
    return false;
  } finally {
    await harness.closeSession(sessionId);
  }
}

async function doToolCall(
  harness: Harness,
  sessionId: string,
  tc: AgentToolCall,
): Promise<{ text: string; submittedNow: boolean }> {
  let args: unknown;
  try {
    args = JSON.parse(tc.function.arguments || '{}');
  } catch (e) {
    return {
      text: `error: the arguments are not JSON (${(e as Error).message}); send a JSON object`,
      submittedNow: false,
    };
  }
  // The session is the agent's own: a model that forgets or garbles its id still acts on it.
  const withSession =
    args && typeof args === 'object' && !Array.isArray(args) ? { ...args, session_id: sessionId } : args;
  const outcome = await harness.call(tc.function.name, withSession);
  if (!outcome.ok) return { text: `error: ${outcome.message}`, submittedNow: false };
  return { text: JSON.stringify(outcome.value), submittedNow: tc.function.name === 'submit' };
}
