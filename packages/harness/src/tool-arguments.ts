import type { HarnessLimits } from './harness-limits.js';
import { MAX_ANSWER_CHARS } from './harness-limits.js';
import { ToolError } from './tool-error.js';

/** The tools of `junobench serve` and their arguments: a contract, by these names (README, "An agent in the notebook"). */
export const TOOL_NAMES = [
  'list_tasks',
  'open_task',
  'read_notebook',
  'run_cell',
  'inspect',
  'edit_cell',
  'restart',
  'submit',
] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

export type ToolCall =
  | { tool: 'list_tasks' }
  | { tool: 'open_task'; taskId: string }
  | { tool: 'read_notebook' | 'restart'; sessionId: string }
  | { tool: 'run_cell'; sessionId: string; code: string }
  | { tool: 'inspect'; sessionId: string; name: string }
  | { tool: 'edit_cell'; sessionId: string; index: number; source: string }
  | { tool: 'submit'; sessionId: string; answer: Record<string, unknown> };

const ARGUMENTS: Record<ToolName, readonly string[]> = {
  list_tasks: [],
  open_task: ['task_id'],
  read_notebook: ['session_id'],
  run_cell: ['session_id', 'code'],
  inspect: ['session_id', 'name'],
  edit_cell: ['session_id', 'index', 'source'],
  restart: ['session_id'],
  submit: ['session_id', 'answer'],
};

const TASK_ID = /^(detect|diagnose|repair)-[0-9a-f]{16}$/;
const SESSION_ID = /^(detect|diagnose|repair)-[0-9a-f]{16}-[1-9][0-9]{0,5}$/;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,199}$/;

const refuse = (tool: string, message: string): never => {
  throw new ToolError('bad-arguments', `${tool}: ${message}`);
};

/**
 * A tool call's arguments, checked before anything runs: every argument present with its type, none unknown, ids of
 * their form, code within the size limit and free of NUL bytes, a name that is a Python identifier (not a path), an
 * index that is a whole number. Anything else is refused with a message that says what to send instead.
 */
export function parseToolCall(tool: string, args: unknown, limits: Pick<HarnessLimits, 'maxCodeChars'>): ToolCall {
  if (!(TOOL_NAMES as readonly string[]).includes(tool))
    throw new ToolError('unknown-tool', `unknown tool "${tool}"; the tools are ${TOOL_NAMES.join(', ')}`);
  const name = tool as ToolName;
  const a = args ?? {};
  if (typeof a !== 'object' || Array.isArray(a)) return refuse(name, 'the arguments must be an object');
  const given = a as Record<string, unknown>;
  const expected = ARGUMENTS[name];
  const extra = Object.keys(given).filter((k) => !expected.includes(k));
  if (extra.length > 0)
    refuse(name, `unknown argument ${extra.map((k) => `"${k}"`).join(', ')}; it takes ${describe(expected)}`);
  const missing = expected.filter((k) => given[k] === undefined);
  if (missing.length > 0)
    refuse(name, `missing ${missing.map((k) => `"${k}"`).join(', ')}; it takes ${describe(expected)}`);
  const text = (key: string, max: number): string => checkText(name, key, given[key], max);
  switch (name) {
    case 'list_tasks':
      return { tool: name };
    case 'open_task': {
      const taskId = text('task_id', 100);
      if (!TASK_ID.test(taskId))
        refuse(name, `"task_id" is not a task id (e.g. repair-0123456789abcdef; see list_tasks)`);
      return { tool: name, taskId };
    }
    default:
      break;
  }
  const sessionId = text('session_id', 100);
  if (!SESSION_ID.test(sessionId))
    refuse(name, '"session_id" is not a session id (the one open_task returned, e.g. repair-0123456789abcdef-1)');
  switch (name) {
    case 'read_notebook':
    case 'restart':
      return { tool: name, sessionId };
    case 'run_cell':
      return { tool: name, sessionId, code: text('code', limits.maxCodeChars) };
    case 'inspect': {
      const id = text('name', 200);
      if (/[/\\]|\.\./.test(id)) refuse(name, `"name" looks like a path; give a variable name, e.g. df`);
      if (!IDENTIFIER.test(id)) refuse(name, `"name" is not a Python variable name (letters, digits, _), e.g. df`);
      return { tool: name, sessionId, name: id };
    }
    case 'edit_cell': {
      const index = given.index;
      if (typeof index !== 'number' || !Number.isSafeInteger(index) || index < 0)
        refuse(name, '"index" must be a whole number ≥ 0: the code cell\'s index, counted from 0 (see read_notebook)');
      return { tool: name, sessionId, index: index as number, source: text('source', limits.maxCodeChars) };
    }
    default: {
      const answer = given.answer;
      if (typeof answer !== 'object' || answer === null || Array.isArray(answer))
        refuse(name, '"answer" must be an object, as the answer of a predictions line (e.g. {"cells": [...]})');
      if (JSON.stringify(answer).length > MAX_ANSWER_CHARS)
        refuse(name, `"answer" is over ${MAX_ANSWER_CHARS} characters as JSON`);
      return { tool: 'submit', sessionId, answer: answer as Record<string, unknown> };
    }
  }
}

function checkText(tool: string, key: string, value: unknown, max: number): string {
  if (typeof value !== 'string') return refuse(tool, `"${key}" must be a string`);
  if (value.length > max) refuse(tool, `"${key}" is ${value.length} characters, over the limit of ${max}`);
  if (value.includes('\u0000')) refuse(tool, `"${key}" holds a NUL byte`);
  return value;
}

const describe = (keys: readonly string[]): string =>
  keys.length === 0 ? 'no arguments' : keys.map((k) => `"${k}"`).join(', ');
