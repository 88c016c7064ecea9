import type { ProgressListener } from '@junobench/core';
import { createProgressReporter } from './progress.js';

/** What a command needs from the outside world; tests pass their own. */
export interface CliContext {
  cwd: string;
  env: NodeJS.ProcessEnv;
  out: (text: string) => void;
  err: (text: string) => void;
  /** Whether stderr is a terminal (progress bars) or not (plain lines). */
  interactive: boolean;
  /** A progress listener for one task; call `done()` when the task ends. */
  progress: (task: string) => ProgressListener & { done: () => void };
  /** Set by commands: 0 ok, 1 the work found failures. Usage/input errors throw. */
  exitCode: number;
}

export function createProcessContext(): CliContext {
  // `junobench … | head` closes our stdout early: that is the reader's choice,
  // not an error, so end quietly as other command-line tools do.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(0);
      throw error;
    });
  }
  const interactive = Boolean(process.stderr.isTTY) && !process.env.CI;
  const ctx: CliContext = {
    cwd: process.cwd(),
    env: process.env,
    out: (t) => process.stdout.write(t.endsWith('\n') ? t : `${t}\n`),
    err: (t) => process.stderr.write(t.endsWith('\n') ? t : `${t}\n`),
    interactive,
    progress: (task) => createProgressReporter(task, { interactive, write: (t) => process.stderr.write(t) }),
    exitCode: 0,
  };
  return ctx;
}
