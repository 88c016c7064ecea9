// @junobench/harness: interactive, sandboxed notebook sessions on tasks for agents, served as MCP tools, with
// trajectories (README, "An agent in the notebook").

export { createHarness } from './harness.js';
export type { CallOptions, Harness, HarnessOptions, ToolOutcome } from './harness.js';
export { DEFAULT_HARNESS_LIMITS, MAX_OUTPUT_CHARS } from './harness-limits.js';
export type { HarnessLimits } from './harness-limits.js';
export { openHarnessTasks, planHarnessTask } from './open-harness-tasks.js';
export type { OpenHarnessTasksOptions } from './open-harness-tasks.js';
export type { HarnessTask } from './harness-task.js';
export { parseToolCall, TOOL_NAMES } from './tool-arguments.js';
export type { ToolCall, ToolName } from './tool-arguments.js';
export { ToolError } from './tool-error.js';
export type { ToolErrorCode } from './tool-error.js';
export { TrajectoryLog, SERVER_LOG } from './trajectory-log.js';
export type { TrajectoryEntry } from './trajectory-log.js';
export { createMcpServer, serveStdio, serveHttp, MCP_SERVER_NAME } from './mcp-server.js';
export type { HttpService } from './mcp-server.js';
export { runReferenceAgent, DEFAULT_AGENT_TURNS } from './run-reference-agent.js';
export type {
  AgentChat,
  AgentMessage,
  AgentTool,
  AgentToolCall,
  RunReferenceAgentOptions,
} from './run-reference-agent.js';
export { createOpenAIAgentChat } from './openai-agent-chat.js';
export type { OpenAIAgentChatOptions } from './openai-agent-chat.js';
