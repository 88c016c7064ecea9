import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { checkSchema, formatIssue, type RunnerMessage } from '@junobench/core';

/**
 * The key one runner signs its messages with (`--authenticate`): 32 random
 * bytes, sent to the runner on its stdin, never in its arguments or
 * environment, which its kernels could read.
 */
export function createMessageKey(): Buffer {
  return randomBytes(32);
}

/** `{"mac":"<64 hex>",` opening a signed line (packages/runtime/README.md, "The runner protocol"). */
const SIGNED = /^\{"mac":"([0-9a-f]{64})",/;

/**
 * One stdout line of the Python runner as a typed message
 * (schemas/runner-message.schema.json), `undefined` for a line that is not a
 * message at all (a library writing to the runner's stdout at C level), or
 * `{ invalid }` for a line that claims to be one but does not conform.
 *
 * With `key`, only a line whose MAC holds is a message: any other line —
 * whatever it claims, however well formed — is `undefined`, so a line that
 * notebook code manages to put on the runner's output never counts.
 */
export function parseRunnerMessage(
  line: string,
  key?: Buffer,
): RunnerMessage | { invalid: string; id?: string } | undefined {
  let text = line.trim();
  if (key) {
    const m = SIGNED.exec(text);
    if (!m) return undefined;
    text = `{${text.slice(m[0].length)}`;
    const mac = createHmac('sha256', key).update(text, 'utf8').digest();
    if (!timingSafeEqual(mac, Buffer.from(m[1]!, 'hex'))) return undefined;
  }
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
