// Test-only (a module of this package's test-helpers/ folder, outside src/): imported by tests and benchmarks, never
// from index.ts or library code.
import type { CliContext } from '../src/context.js';

/** A CliContext that records output instead of printing, for tests. */
export function createTestContext(cwd: string = process.cwd()): CliContext & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const progress = (() => {
    const l = (() => undefined) as unknown as ReturnType<CliContext['progress']>;
    l.done = () => undefined;
    return l;
  }) as CliContext['progress'];
  return {
    cwd,
    env: { ...process.env, CI: '1' },
    out: (t) => stdout.push(t),
    err: (t) => stderr.push(t),
    interactive: false,
    progress,
    exitCode: 0,
    stdout,
    stderr,
  };
}
