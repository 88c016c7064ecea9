import path from 'node:path';
import { Option, type Command } from 'commander';
import { JunoError, checkOutputPaths } from '@junobench/core';
import type { CliContext } from '../context.js';
import { handleSignals } from '../signals.js';
import { addBenchmarkSetOptions, readsOfBenchmarkSet, type BenchmarkSetFlags } from './benchmark-set.js';
import { parsePositiveInt, parseSeconds, showPath } from './format.js';
import { addRunnerOptions, createRunnerRuntimeFromFlags, type RuntimeFlags } from './runtime-flags.js';

// Defaults shown in the help, copied with the package's literal types (CONTRIBUTING.md, "CLI": imports in the CLI).
const DEFAULT_LIMITS: {
  [
    K in 'callTimeoutSeconds' | 'maxCalls' | 'sessionSeconds' | 'idleSeconds' | 'maxSessions'
  ]: (typeof import('@junobench/harness'))['DEFAULT_HARNESS_LIMITS'][K];
} = { callTimeoutSeconds: 120, maxCalls: 200, sessionSeconds: 3600, idleSeconds: 900, maxSessions: 4 };

interface ServeFlags extends BenchmarkSetFlags, RuntimeFlags {
  tasks: string;
  output: string;
  trajectories?: string;
  seed?: string;
  mcp: 'stdio' | 'http';
  port: number;
  sessions: number;
  callTimeout: number;
  maxCalls: number;
  sessionTime: number;
  idle: number;
}

const parsePort = (v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new JunoError('E_USAGE', `--port ${v} is not a port number`, { hint: 'e.g. --port 8765 (0: any free port)' });
  return n;
};

/** The trajectories' default folder: beside the predictions, named after them. */
export const defaultTrajectories = (output: string): string =>
  path.join(path.dirname(output), `${path.basename(output).replace(/\.jsonl$/, '')}.trajectories`);

// Verb: serve (README, "An agent in the notebook"). Library packages are imported inside the action.
export function registerServeCommand(program: Command, ctx: CliContext): void {
  const resolve = (p: string) => path.resolve(ctx.cwd, p);
  const cmd = program
    .command('serve')
    .description(
      'Serve the tasks to an agent as MCP tools (list_tasks, open_task, read_notebook, run_cell, inspect, edit_cell, restart, submit): ' +
        "each session is a sandboxed notebook on a scratch copy of the task's notebook and data (never its answer); " +
        'submit writes the answer to the predictions file that `junobench score` reads; every call is logged in the trajectories.',
    )
    .requiredOption('--tasks <tasks.jsonl>', 'the tasks file (from `junobench tasks export`)')
    .requiredOption('-o, --output <predictions.jsonl>', 'the predictions file submit appends to')
    .option(
      '--trajectories <dir>',
      'where each session logs its calls (default: <output without .jsonl>.trajectories/)',
    )
    .option('--instances <dir>', 'the instances the tasks were exported from', 'raw/instances')
    .option('--seed <seed>', 'the seed the tasks were exported with')
    .addOption(
      new Option('--mcp <transport>', 'stdio, or streamable HTTP on 127.0.0.1')
        .choices(['stdio', 'http'])
        .default('stdio'),
    )
    .addOption(
      new Option('--port <p>', 'http: the port (0: any free one, printed on stderr)')
        .argParser(parsePort)
        .default(8765),
    )
    .addOption(
      new Option('--sessions <n>', 'sessions open at once')
        .argParser(parsePositiveInt)
        .default(DEFAULT_LIMITS.maxSessions),
    )
    .addOption(
      new Option('--call-timeout <s>', "seconds for one call's new code (run_cell, inspect)")
        .argParser(parseSeconds)
        .default(DEFAULT_LIMITS.callTimeoutSeconds),
    )
    .addOption(
      new Option('--max-calls <n>', 'tool calls per session (submit is always accepted)')
        .argParser(parsePositiveInt)
        .default(DEFAULT_LIMITS.maxCalls),
    )
    .addOption(
      new Option('--session-time <s>', 'seconds a session may take (then only submit is accepted)')
        .argParser(parseSeconds)
        .default(DEFAULT_LIMITS.sessionSeconds),
    )
    .addOption(
      new Option('--idle <s>', 'seconds a session may go without a call before it is closed (a client gone away)')
        .argParser(parseSeconds)
        .default(DEFAULT_LIMITS.idleSeconds),
    );
  addBenchmarkSetOptions(cmd);
  addRunnerOptions(cmd);
  cmd
    .addHelpText(
      'after',
      '\nstdout is the MCP channel with --mcp stdio: messages go to stderr. Ctrl-C (or the client closing stdin) closes every session: no kernel and no scratch file stays.\n' +
        'Exit status: 0 served until closed, 2 bad input, 3 the runtime is missing.\n' +
        'Examples:\n  junobench serve --tasks tasks.jsonl -o agent.jsonl\n  junobench serve --tasks tasks.jsonl -o agent.jsonl --mcp http --port 8765\n  junobench score agent.jsonl --tasks tasks.jsonl',
    )
    .action(async (flags: ServeFlags) => {
      const output = resolve(flags.output);
      const trajectories = resolve(flags.trajectories ?? defaultTrajectories(flags.output));
      const reads = await readsOfBenchmarkSet(flags, ctx);
      await checkOutputPaths({
        inputs: [resolve(flags.tasks), ...reads.inputs],
        trees: reads.trees,
        outputs: [
          { path: output, flag: '-o' },
          { path: trajectories, flag: '--trajectories', folder: true },
        ],
      });
      await serve(flags, output, trajectories, ctx);
    });
}

/** Serve until the client closes stdin (stdio) or a signal comes; then every session closes. */
async function serve(flags: ServeFlags, output: string, trajectories: string, ctx: CliContext): Promise<void> {
  const resolve = (p: string) => path.resolve(ctx.cwd, p);
  const { openInstanceSet, describeInstanceSet } = await import('@junobench/evaluate');
  const { createHarness, openHarnessTasks, serveHttp, serveStdio } = await import('@junobench/harness');
  // stdout carries the MCP messages over stdio: everything said goes to stderr.
  const set = await openInstanceSet({
    instancesDir: resolve(flags.instances),
    ...(flags.release ? { release: resolve(flags.release) } : {}),
    ...(flags.includeDrafts ? { includeDrafts: true } : {}),
  });
  try {
    ctx.err(describeInstanceSet(set, flags.release ? undefined : showPath(ctx.cwd, set.instancesDir)));
    const tasks = await openHarnessTasks({
      tasks: resolve(flags.tasks),
      instancesDir: set.instancesDir,
      ids: set.ids,
      ...(flags.seed ? { seed: flags.seed } : {}),
    });
    // One check before any session: the runtime is there (an interpreter with ipykernel, bubblewrap, the engine).
    await (await createRunnerRuntimeFromFlags(flags, ctx)).close();
    const harness = createHarness({
      tasks,
      createRuntime: () => createRunnerRuntimeFromFlags(flags, ctx),
      predictions: output,
      trajectories,
      limits: {
        maxSessions: flags.sessions,
        callTimeoutSeconds: flags.callTimeout,
        maxCalls: flags.maxCalls,
        sessionSeconds: flags.sessionTime,
        idleSeconds: flags.idle,
      },
    });
    let stop!: () => void;
    const stopped = new Promise<void>((r) => (stop = r));
    const stopSignals = handleSignals(() => stop(), { once: true });
    try {
      if (flags.mcp === 'http') {
        const service = await serveHttp(harness, '0.1.0', flags.port);
        ctx.err(`serve: ${tasks.length} tasks over MCP at ${service.url} (Ctrl-C to stop)`);
        await stopped;
        await service.close();
      } else {
        const stdio = await serveStdio(harness, '0.1.0');
        ctx.err(`serve: ${tasks.length} tasks over MCP on stdio`);
        await Promise.race([stdio.closed, stopped]);
        await stdio.close();
      }
    } finally {
      stopSignals();
      await harness.close();
    }
    ctx.err(
      `serve: closed; predictions in ${showPath(ctx.cwd, output)}, trajectories in ${showPath(ctx.cwd, trajectories)}`,
    );
  } finally {
    await set.close();
  }
}
