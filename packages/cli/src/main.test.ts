import { describe, expect, it } from 'vitest';
import { JunoError } from '@junobench/core';
import { EXIT_INTERNAL, createProgram, runProgram } from './main.js';
import { createTestContext } from '../test-helpers/test-context.js';

// An internal error (a bug) must not exit 1, which means "the work ran and
// found failures": scripts would read a crash of the tool as a failed instance.
function programThrowing(error: unknown) {
  const ctx = createTestContext();
  const program = createProgram(ctx);
  program.command('boom').action(() => {
    throw error;
  });
  return { ctx, run: () => runProgram(program, ['boom'], ctx) };
}

describe('exit codes', () => {
  it('an unexpected error is an internal error with its own exit code (70, EX_SOFTWARE), not 1', async () => {
    const { ctx, run } = programThrowing(new TypeError("Cannot read properties of undefined (reading 'x')"));
    expect(EXIT_INTERNAL).toBe(70);
    expect(await run()).toBe(70);
    expect(ctx.stderr.join('\n')).toMatch(/internal error: Cannot read properties/);
  });

  it('E_INTERNAL JunoErrors (an output failing its own schema) exit 70 too', async () => {
    const { run } = programThrowing(new JunoError('E_INTERNAL', 'stage pool did not write all of its outputs'));
    expect(await run()).toBe(70);
  });

  it.each([
    ['bad input', new JunoError('E_INPUT_FORMAT', 'x'), 2],
    ['environment', new JunoError('E_ENV_PYTHON', 'x'), 3],
    ['work found failures', new JunoError('E_RUNTIME', 'x'), 1],
  ])('%s keeps its code', async (_n, error, code) => {
    expect(await programThrowing(error).run()).toBe(code);
  });

  it('usage errors exit 2', async () => {
    const ctx = createTestContext();
    expect(await runProgram(createProgram(ctx), ['no-such-verb'], ctx)).toBe(2);
  });
});
