import { describe, expect, it } from 'vitest';
import { createMessageKey, parseRunnerMessage } from './parse-runner-message.js';
import { TEST_KEY, signMessage } from '../test-helpers/signed-message.js';

const started = { type: 'started', id: '0', kernel: 'forked' };

describe('parseRunnerMessage', () => {
  it('reads a plain message without a key, and a signed one with its key', () => {
    expect(parseRunnerMessage(JSON.stringify(started))).toEqual(started);
    expect(parseRunnerMessage(signMessage(started), TEST_KEY)).toEqual(started);
  });

  it.each([
    ['an unsigned line', JSON.stringify(started)],
    ['a line signed with another key', signMessage(started, Buffer.alloc(32, 1))],
    ['a signed line edited afterwards', signMessage(started).replace('"0"', '"1"')],
    ['a MAC of the wrong length', signMessage(started).replace(/"mac":"[0-9a-f]{64}"/, '"mac":"00"')],
    ['a line that is not JSON', 'Traceback (most recent call last):'],
  ])('with a key, %s is no message', (_name, line) => {
    expect(parseRunnerMessage(line, TEST_KEY)).toBeUndefined();
  });

  it('still reports a signed message that breaks the schema', () => {
    expect(parseRunnerMessage(signMessage({ type: 'result', id: '3', result: {} }), TEST_KEY)).toMatchObject({
      invalid: expect.any(String),
      id: '3',
    });
  });

  it('makes a fresh 32-byte key each time', () => {
    const a = createMessageKey();
    expect(a).toHaveLength(32);
    expect(a.equals(createMessageKey())).toBe(false);
  });
});
