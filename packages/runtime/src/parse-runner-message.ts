import { checkSchema, formatIssue, type RunnerMessage } from '@junobench/core';

/**
 * One stdout line of the Python runner as a typed message
 * (schemas/runner-message.schema.json), `undefined` for a line that is not a
 * message at all (a library writing to the runner's stdout at C level), or
 * `{ invalid }` for a line that claims to be one but does not conform.
 */
export function parseRunnerMessage(line: string): RunnerMessage | { invalid: string; id?: string } | undefined {
  const text = line.trim();
  if (!text.startsWith('{')) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const type = (value as { type?: unknown }).type;
  if (type !== 'started' && type !== 'result' && type !== 'rejected') return undefined;
  const issues = checkSchema('runner-message', value);
  if (issues.length === 0) return value as RunnerMessage;
  const id = (value as { id?: unknown }).id;
  return { invalid: issues.map(formatIssue).join('; '), ...(typeof id === 'string' ? { id } : {}) };
}
