import { Command, CommanderError } from 'commander';
import { isJunoError, redactSecrets } from '@junobench/core';
import { createProcessContext, type CliContext } from './context.js';
import { registerCommands } from './commands/register.js';
import { printable } from './commands/format.js';

export function createProgram(ctx: CliContext): Command {
  const program = new Command('junobench')
    .description('Build JunoBench: a benchmark of real crashes in Python ML Jupyter notebooks.')
    .version('0.1.0')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => ctx.out(s.replace(/\n$/, '')),
      writeErr: (s) => ctx.err(s.replace(/\n$/, '')),
    });
  registerCommands(program, ctx);
  // Sub-commands inherit exitOverride/output so usage errors come back here.
  const inherit = (cmd: Command) => {
    for (const sub of cmd.commands) {
      sub.exitOverride().configureOutput({
        writeOut: (s) => ctx.out(s.replace(/\n$/, '')),
        writeErr: (s) => ctx.err(s.replace(/\n$/, '')),
      });
      sub.showHelpAfterError('(run with --help for usage)');
      inherit(sub);
    }
  };
  inherit(program);
  return program;
}

/**
 * Exit code of an internal error (a bug in junobench): EX_SOFTWARE from sysexits.h, distinct from 1 ("found failures").
 */
export const EXIT_INTERNAL = 70;

/**
 * Run the CLI and return the exit code: 0 success, 1 the work ran and found
 * failures, 2 bad usage or bad input, 3 the environment lacks something,
 * 70 an internal error (a bug). Only here are errors printed; user errors
 * never show a stack trace.
 */
export async function main(argv: string[], ctx: CliContext = createProcessContext()): Promise<number> {
  return runProgram(createProgram(ctx), argv, ctx);
}

export async function runProgram(program: Command, argv: string[], ctx: CliContext): Promise<number> {
  try {
    await program.parseAsync(argv, { from: 'user' });
    return ctx.exitCode;
  } catch (e) {
    if (e instanceof CommanderError) {
      // --help and --version end through here with exit code 0.
      return e.exitCode === 0 ? 0 : 2;
    }
    if (isJunoError(e)) {
      // Its lines as they are (a hint is a line of its own), but no carriage return or escape sequence a notebook's
      // text in the message could use to overwrite what was printed.
      ctx.err(`error [${e.code}]: ${e.describe().split('\n').map(printable).join('\n')}`);
      if (e.exitCode === EXIT_INTERNAL)
        ctx.err('This is a bug in junobench; please report it with the command you ran.');
      if (ctx.env.JUNOBENCH_DEBUG && e.stack) ctx.err(e.stack);
      return e.exitCode;
    }
    const err = e as Error;
    ctx.err(`internal error: ${redactSecrets(err?.message ?? String(e))}`);
    ctx.err(
      'This is a bug in junobench; please report it with the command you ran. Set JUNOBENCH_DEBUG=1 for a stack trace.',
    );
    if (ctx.env.JUNOBENCH_DEBUG && err?.stack) ctx.err(redactSecrets(err.stack));
    return EXIT_INTERNAL;
  }
}
