// Test-only: never exported from index.ts, never imported by library code.
import { createHmac } from 'node:crypto';

/** A fixed message key for tests (the runtimes make a random one per runner: createMessageKey). */
export const TEST_KEY = Buffer.alloc(32, 7);

/** `message` as the runner prints it with `--authenticate` (packages/runtime/python/jbrunner/protocol.py, sign_line). */
export function signMessage(message: object, key: Buffer = TEST_KEY): string {
  const body = JSON.stringify(message);
  const mac = createHmac('sha256', key).update(body, 'utf8').digest('hex');
  return `{"mac":"${mac}",${body.slice(1)}`;
}
