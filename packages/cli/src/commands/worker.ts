import os from 'node:os';
import path from 'node:path';
import { Option, type Command } from 'commander';
import type { CliContext } from '../context.js';
import { formatDuration, parsePositiveInt, printable } from './format.js';
import { handleSignals } from '../signals.js';
import { watchLauncher } from '../launcher-watch.js';
import { addRunnerOptions, createRunnerRuntimeFromFlags, type RuntimeFlags } from './runtime-flags.js';

interface WorkerFlags extends RuntimeFlags {
  queue: string;
  jobs?: number;
  name?: string;
  cacheDir?: string;
  lockDuration: number;
  drain: number;
}

// Verbs: worker (docs/queue.md). Library packages are imported inside each action
// (`await import('@junobench/...')`) so that other commands do not pay for loading them.
const NOTEBOOK_STATUS: Record<string, string> = {
  completed: 'the notebook ran to its end',
  error: 'the notebook raised an error (as a reproduced crash should)',
  timeout: 'the notebook timed out',
  'kernel-died': 'the kernel died',
  failed: 'the notebook could not be run',
};

export function registerWorkerCommands(program: Command, ctx: CliContext): void {
  const cmd = program
    .command('worker')
    .description(
      'Run notebooks for `verify|build|score --queue`: take jobs from Redis and execute them with the local or docker runtime, until stopped.',
    )
    .requiredOption('--queue <url>', 'Redis to take jobs from, e.g. redis://10.0.0.5:6379')
    .option('--jobs <n>', 'notebooks executed at once (default: number of CPUs)', parsePositiveInt)
    .option('--name <id>', 'worker name, unique among live workers (default: <host>-<pid>)')
    .option(
      '--shared-instances <dir>',
      "this machine's path of the folder a coordinator's --shared-instances names; without it, jobs that read instances in place are refused",
    )
    .option(
      '--cache-dir <dir>',
      'where instance files fetched from Redis are cached (default: .junobench-cache/worker)',
    )
    .addOption(
      new Option(
        '--lock-duration <s>',
        'seconds after which a job of a worker that stopped answering goes to another worker',
      )
        .argParser(parsePositiveInt)
        .default(30),
    )
    .addOption(
      new Option(
        '--drain <s>',
        'on SIGTERM/SIGINT: seconds to let running jobs finish before returning them to the queue',
      )
        .argParser(parsePositiveInt)
        .default(10),
    );
  addRunnerOptions(cmd);
  cmd.addHelpText(
    'after',
    '\nA worker publishes its runtime identity (interpreter and packages, or image id); a run uses workers of one identity only.\n' +
      'SIGTERM or Ctrl-C: stop taking jobs, let running ones finish (at most --drain seconds), return the rest to the queue; a second signal returns them at once.\n' +
      'The worker stops the same way when the process that started it ends (npx, a script; not a login shell: start it with setsid to keep it past its launcher).\n' +
      'Exit status: 0 stopped cleanly, 2 bad usage, 3 Redis or the runtime is missing.\n' +
      'Examples:\n  junobench worker --queue redis://127.0.0.1:6417\n  junobench worker --queue redis://10.0.0.5:6379 --runtime docker --jobs 4 --name gpu-box-1',
  );
  cmd.action(async (flags: WorkerFlags) => {
    const launcher = followLauncher(ctx);
    const { runWorker } = await import('@junobench/queue');
    let runtime: Awaited<ReturnType<typeof createRunnerRuntimeFromFlags>>;
    try {
      runtime = await createRunnerRuntimeFromFlags(flags, ctx);
    } catch (e) {
      launcher.close();
      throw e;
    }
    let handle: Awaited<ReturnType<typeof runWorker>>;
    try {
      handle = await runWorker({
        url: flags.queue,
        runtime,
        jobs: flags.jobs ?? Math.max(1, os.availableParallelism()),
        ...(flags.name ? { name: flags.name } : {}),
        cacheDir: path.resolve(
          ctx.cwd,
          flags.cacheDir ?? path.join(ctx.env.JUNOBENCH_CACHE_DIR ?? '.junobench-cache', 'worker'),
        ),
        ...(flags.sharedInstances ? { sharedInstances: path.resolve(ctx.cwd, flags.sharedInstances) } : {}),
        lockDurationMs: flags.lockDuration * 1000,
        // Keys of one toolchain installation (or one test) apart from another's on a shared Redis.
        ...(ctx.env.JUNOBENCH_QUEUE_PREFIX ? { prefix: ctx.env.JUNOBENCH_QUEUE_PREFIX } : {}),
        onEvent: (e) => {
          switch (e.type) {
            case 'ready': {
              const w = e.worker;
              const env =
                w.kind === 'docker'
                  ? `image ${w.image ?? '?'}`
                  : `Python ${w.pythonVersion ?? '?'} (${w.python ?? '?'})`;
              ctx.out(
                `worker ${w.name} ready: ${w.kind} runtime, ${env}, identity ${w.group}, ${w.jobs} job(s) at once, on ${flags.queue}`,
              );
              break;
            }
            case 'job-done':
              // The notebook's own status, worded so that a reproduced crash (status "error") does not read as a failed
              // job.
              ctx.out(
                `${e.id} done in ${formatDuration(e.durationMs)}: ${NOTEBOOK_STATUS[e.status] ?? `the notebook ended: ${e.status}`}`,
              );
              break;
            case 'job-error':
              ctx.err(`worker: ${e.id === '-' ? '' : `${e.id}: `}${printable(e.error)}`);
              break;
            case 'job-returned':
              ctx.out(`${e.id} returned to the queue`);
              break;
            case 'connection-lost':
              ctx.err(`worker: lost Redis (${e.error}); reconnecting`);
              break;
            case 'connection-restored':
              ctx.err('worker: Redis is back');
              break;
            case 'stopping':
              ctx.err(
                e.mode === 'finish'
                  ? `worker: stopping; ${e.running} running job(s) may finish within ${flags.drain} s, then return to the queue (signal again to return them now)`
                  : `worker: stopping; returning ${e.running} running job(s) to the queue`,
              );
              break;
          }
        },
      });
    } catch (e) {
      launcher.close();
      await runtime.close();
      throw e;
    }
    let signals = 0;
    const stopHandling = handleSignals(
      () => void handle.stop(signals++ === 0 ? 'finish' : 'return', flags.drain * 1000),
    );
    launcher.onGone(() => {
      signals++;
      void handle.stop('finish', flags.drain * 1000);
    });
    try {
      await handle.stopped;
    } finally {
      launcher.close();
      stopHandling();
      await runtime.close();
    }
    const s = handle.stats();
    ctx.out(
      `worker ${handle.record.name} stopped: ${s.completed} run(s) done in ${s.batches} runner start(s) or batch(es), ${s.returned} returned, ${s.errors} error(s); ${s.blobsFetched} file(s) fetched from Redis`,
    );
  });
}

/**
 * `npx junobench worker`: SIGTERM to npx ends npx alone, and a worker must end with what started it, as on SIGTERM.
 * The processes it lives for are read when this is called, before anything waits: read after the worker said
 * `ready`, a launcher ended in between (SIGTERM right after `ready`) was gone already, and the orphaned worker kept
 * taking jobs. `onGone` is what ending them does, once the worker runs (at once if they ended before).
 */
function followLauncher(ctx: CliContext): { onGone(stop: () => void): void; close(): void } {
  let stop: (() => void) | undefined;
  let gone = false;
  const close = watchLauncher((launcher) => {
    ctx.err(`worker: the process that started it ended (${launcher.comm}, pid ${launcher.pid}): stopping`);
    gone = true;
    stop?.();
  });
  return {
    onGone(s) {
      stop = s;
      if (gone) s();
    },
    close,
  };
}
