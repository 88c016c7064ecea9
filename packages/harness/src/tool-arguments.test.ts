import { describe, expect, it } from 'vitest';
import { parseToolCall } from './tool-arguments.js';
import { ToolError } from './tool-error.js';

const limits = { maxCodeChars: 1000 };
const SID = 'repair-0123456789abcdef-1';

function refusal(tool: string, args: unknown): ToolError {
  try {
    parseToolCall(tool, args, limits);
  } catch (e) {
    if (e instanceof ToolError) return e;
    throw e;
  }
  throw new Error(`${tool} ${JSON.stringify(args)} was accepted`);
}

describe('parseToolCall', () => {
  it.each([
    ['list_tasks', {}, { tool: 'list_tasks' }],
    ['open_task', { task_id: 'detect-0123456789abcdef' }, { tool: 'open_task', taskId: 'detect-0123456789abcdef' }],
    ['read_notebook', { session_id: SID }, { tool: 'read_notebook', sessionId: SID }],
    ['run_cell', { session_id: SID, code: 'df.head()' }, { tool: 'run_cell', sessionId: SID, code: 'df.head()' }],
    ['inspect', { session_id: SID, name: 'df_2' }, { tool: 'inspect', sessionId: SID, name: 'df_2' }],
    [
      'edit_cell',
      { session_id: SID, index: 3, source: 'x = 1' },
      { tool: 'edit_cell', sessionId: SID, index: 3, source: 'x = 1' },
    ],
    ['restart', { session_id: SID }, { tool: 'restart', sessionId: SID }],
    [
      'submit',
      { session_id: SID, answer: { cells: ['x = 1'] } },
      { tool: 'submit', sessionId: SID, answer: { cells: ['x = 1'] } },
    ],
  ])('accepts %s with its contract arguments', (tool, args, expected) => {
    expect(parseToolCall(tool, args, limits)).toEqual(expected);
  });

  it.each([
    ['run_cell', { session_id: SID, code: 'x'.repeat(1001) }, /"code" is 1001 characters, over the limit of 1000/],
    ['run_cell', { session_id: SID, code: 'print(1)\u0000' }, /"code" holds a NUL byte/],
    ['edit_cell', { session_id: SID, index: 1, source: 'a\u0000b' }, /"source" holds a NUL byte/],
    ['edit_cell', { session_id: SID, index: 1.5, source: 'x' }, /"index" must be a whole number/],
    ['edit_cell', { session_id: SID, index: -1, source: 'x' }, /"index" must be a whole number/],
    ['edit_cell', { session_id: SID, index: '../fixed.ipynb', source: 'x' }, /"index" must be a whole number/],
    ['edit_cell', { session_id: SID, index: 1e300, source: 'x' }, /"index" must be a whole number/],
    ['inspect', { session_id: SID, name: '../fixed.ipynb' }, /"name" looks like a path/],
    ['inspect', { session_id: SID, name: '/etc/passwd' }, /"name" looks like a path/],
    ['inspect', { session_id: SID, name: 'os.system("x")' }, /not a Python variable name/],
    ['open_task', { task_id: '../../raw/instances/pandas_1' }, /"task_id" is not a task id/],
    ['read_notebook', { session_id: '../x' }, /"session_id" is not a session id/],
    ['read_notebook', { session_id: 7 }, /"session_id" must be a string/],
    ['read_notebook', {}, /missing "session_id"/],
    ['restart', { session_id: SID, force: true }, /unknown argument "force"/],
    ['submit', { session_id: SID, answer: [1] }, /"answer" must be an object/],
    ['list_tasks', [], /the arguments must be an object/],
  ])('refuses %s %j with a clear message', (tool, args, message) => {
    const e = refusal(tool, args);
    expect(e.code).toBe('bad-arguments');
    expect(e.message).toMatch(message);
    expect(e.message.startsWith(`${tool}: `)).toBe(true);
  });

  it('refuses an unknown tool, naming the tools there are', () => {
    const e = refusal('read_file', { path: '/etc/passwd' });
    expect(e.code).toBe('unknown-tool');
    expect(e.message).toMatch(/list_tasks, open_task, read_notebook, run_cell, inspect, edit_cell, restart, submit/);
  });
});
