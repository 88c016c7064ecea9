import type { HarnessLimits } from './harness-limits.js';
import type { ToolName } from './tool-arguments.js';

interface ToolDefinition {
  name: ToolName;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, object>; required: string[]; additionalProperties: false };
}

const SESSION = { type: 'string', description: 'The session id open_task returned.' };

/** The tools as listed to MCP clients (names and arguments are a contract; README, "An agent in the notebook"). */
export function planToolDefinitions(limits: HarnessLimits): ToolDefinition[] {
  const code = (what: string) => ({ type: 'string', maxLength: limits.maxCodeChars, description: what });
  const tool = (name: ToolName, description: string, properties: Record<string, object> = {}): ToolDefinition => ({
    name,
    description,
    inputSchema: { type: 'object', properties, required: Object.keys(properties), additionalProperties: false },
  });
  return [
    tool('list_tasks', 'The tasks of the tasks file: their ids and kinds (detect, diagnose, repair).'),
    tool(
      'open_task',
      `Open a session on a task: a sandboxed notebook with the task's data (never its answer). Returns session_id, the prompt, the target cell and the limits. At most ${limits.maxSessions} sessions at once.`,
      { task_id: { type: 'string', description: 'A task id from list_tasks, e.g. repair-0123456789abcdef.' } },
    ),
    tool('read_notebook', "The session's notebook: every cell with its saved outputs, code cells numbered from 0.", {
      session_id: SESSION,
    }),
    tool(
      'run_cell',
      `Run Python code in the session's kernel, after the cells before the target (and your earlier successful cells). Returns what it printed, its last value, or its error with the traceback. Time limit ${limits.callTimeoutSeconds} s.`,
      { session_id: SESSION, code: code('The code of the cell.') },
    ),
    tool('inspect', "A variable of the session's kernel: type, shape, dtype, columns, length and a short repr.", {
      session_id: SESSION,
      name: { type: 'string', description: 'A Python variable name, e.g. df.' },
    }),
    tool('edit_cell', "Replace the source of one code cell of the session's notebook.", {
      session_id: SESSION,
      index: {
        type: 'integer',
        minimum: 0,
        description: 'The code cell, counted from 0 (as read_notebook numbers them).',
      },
      source: code('The new source of the cell.'),
    }),
    tool('restart', 'A fresh kernel: forget your run cells and replay the cells before the target.', {
      session_id: SESSION,
    }),
    tool(
      'submit',
      'Submit the answer (written as a predictions line, the format `junobench score` reads) and close the session. detect: {crashes, cell?, exception?}; diagnose: {library, crashType, rootCause, pipelineStage}; repair: {cells: [code of each code cell, in order]} or {notebook}.',
      { session_id: SESSION, answer: { type: 'object', description: 'The answer, as in a predictions line.' } },
    ),
  ];
}
