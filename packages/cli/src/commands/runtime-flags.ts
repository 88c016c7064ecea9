import os from 'node:os';
import path from 'node:path';
import { Option, type Command } from 'commander';
import type { Runtime } from '@junobench/runtime';
import type { CliContext } from '../context.js';
import { parsePositiveInt, parsePositiveNumber } from './format.js';
import { handleSignals } from '../signals.js';

export interface RuntimeFlags {
  runtime: 'local' | 'docker';
  python?: string;
  image?: string;
  memory?: string;
  cpus?: number;
  fork?: boolean;
  unsandboxed?: boolean;
  threads?: number;
  disk?: string;
  pidsLimit?: number;
  /** redis://host:port: run on `junobench worker` processes instead of here. */
  queue?: string;
  sharedInstances?: string;
  queueBlobLimit?: string;
  queueWait?: number;
}

/** --runtime and the options of the local and docker runtimes (also what `junobench worker` takes). */
export function addRunnerOptions(cmd: Command): Command {
  return cmd
    .addOption(
      new Option('--runtime <kind>', 'where notebooks run (with --queue: which workers run them)')
        .choices(['local', 'docker'])
        .default('local'),
    )
    .option(
      '--python <interpreter>',
      'local runtime: Python with ipykernel (default: $JUNOBENCH_PYTHON, else found automatically)',
    )
    .option(
      '--no-fork',
      'start each kernel as a new interpreter (docker runtime: in a fresh container of its own) instead of forking it from a process with the imports done',
    )
    .option(
      '--unsandboxed',
      "local runtime: run notebooks without the bubblewrap sandbox, with your user's rights (where bubblewrap cannot run; trusted notebooks only)",
    )
    .option(
      '--image <tag>',
      'docker runtime: benchmark image (default: the one recorded in curated/image.json by `junobench image build`)',
    )
    .option('--memory <size>', 'docker runtime: memory limit per container, e.g. 2g (default 4g)')
    .addOption(
      new Option('--cpus <n>', 'docker runtime: CPU limit per container, e.g. 1.5 (default 1)').argParser(
        parsePositiveNumber,
      ),
    )
    .option(
      '--disk <size>',
      "docker runtime: size of each container's writable places (/work, /tmp, /var/tmp and /dev/shm, each in memory), e.g. 2g (default 4g)",
    )
    .addOption(
      new Option('--pids-limit <n>', 'docker runtime: processes and threads per container (default 1024)').argParser(
        parsePositiveInt,
      ),
    )
    .addOption(
      new Option(
        '--threads <n>',
        'threads per kernel for OpenMP/BLAS/torch (default 1; part of the runtime identity)',
      ).argParser(parsePositiveInt),
    );
}

export function addRuntimeOptions(cmd: Command): Command {
  return addRunnerOptions(cmd)
    .option(
      '--queue <url>',
      "run the notebooks on `junobench worker` processes through Redis, e.g. redis://10.0.0.5:6379 (--jobs is then the workers' own)",
    )
    .option(
      '--shared-instances <dir>',
      'queue: a folder every worker mounts; instances inside it are read there instead of sent through Redis',
    )
    .option('--queue-blob-limit <size>', 'queue: largest instance file sent through Redis, e.g. 256m (default 64m)')
    .addOption(
      new Option(
        '--queue-wait <s>',
        'queue: seconds to wait for a live worker (or for Redis) before giving up (default 60)',
      ).argParser(parsePositiveInt),
    );
}

/**
 * The runtime the flags ask for. Docker: the engine at DOCKER_HOST and the
 * image given, else the one `junobench image build` recorded. Queue: workers
 * reached through Redis (the package is loaded only then).
 */
export async function createRuntimeFromFlags(
  flags: RuntimeFlags,
  ctx: CliContext,
  options: { imageRecord?: string } = {},
): Promise<Runtime> {
  if (flags.queue) return createQueueRuntimeFromFlags(flags, ctx);
  return createRunnerRuntimeFromFlags(flags, ctx, options);
}

/** The local or docker runtime alone, for a command that handles the signals itself (`worker` drains its jobs). */
export async function createRunnerRuntimeFromFlags(
  flags: RuntimeFlags,
  ctx: CliContext,
  options: { imageRecord?: string } = {},
): Promise<Runtime> {
  // Loaded here, not at the top: commands that never run a notebook do not pay for them.
  const { connectDockerEngine, createContainerRuntime, createLocalRuntime } = await import('@junobench/runtime');
  if (flags.runtime === 'local') {
    return createLocalRuntime({
      ...(flags.python ? { python: flags.python } : {}),
      ...(flags.fork === false ? { fork: false } : {}),
      ...(flags.unsandboxed ? { sandbox: false } : {}),
      ...(flags.threads ? { threads: flags.threads } : {}),
      env: ctx.env,
      probeCacheDir: userCacheDir(ctx, 'probes'),
    });
  }
  const docker = await connectDockerEngine(ctx.env);
  const { readImageRecord } = await import('@junobench/image');
  const image =
    flags.image ?? (await readImageRecord(path.resolve(ctx.cwd, options.imageRecord ?? 'curated/image.json'))).tag;
  return createContainerRuntime({
    docker,
    image,
    ...(flags.memory ? { memory: flags.memory } : {}),
    ...(flags.cpus ? { cpus: flags.cpus } : {}),
    ...(flags.disk ? { disk: flags.disk } : {}),
    ...(flags.pidsLimit ? { pidsLimit: flags.pidsLimit } : {}),
    ...(flags.threads ? { threads: flags.threads } : {}),
    ...(flags.fork === false ? { fork: false } : {}),
    probeCacheDir: userCacheDir(ctx, 'probes'),
  });
}

/**
 * A folder of the user's cache for what is true of this machine rather than
 * of a project (an interpreter's modules): $XDG_CACHE_HOME/junobench/<name>,
 * else ~/.cache/junobench/<name>. A relative XDG_CACHE_HOME is ignored, as the
 * XDG base directory specification says (it would name another folder in
 * every working directory). Removing it is always safe.
 */
export function userCacheDir(ctx: CliContext, name: string): string {
  const xdg = ctx.env.XDG_CACHE_HOME;
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(ctx.env.HOME || os.homedir(), '.cache');
  return path.join(base, 'junobench', name);
}

async function createQueueRuntimeFromFlags(flags: RuntimeFlags, ctx: CliContext): Promise<Runtime> {
  const { createQueueRuntime } = await import('@junobench/queue');
  const { parseMemorySize } = await import('@junobench/runtime');
  const runtime = await createQueueRuntime({
    url: flags.queue!,
    kind: flags.runtime,
    ...(flags.sharedInstances ? { sharedInstances: path.resolve(ctx.cwd, flags.sharedInstances) } : {}),
    ...(flags.queueBlobLimit ? { blobLimitBytes: parseMemorySize(flags.queueBlobLimit) } : {}),
    ...(flags.queueWait ? { waitSeconds: flags.queueWait } : {}),
    ...(ctx.env.JUNOBENCH_QUEUE_PREFIX ? { prefix: ctx.env.JUNOBENCH_QUEUE_PREFIX } : {}),
    onNotice: (t) => ctx.err(`queue: ${t}`),
  });
  ctx.err(
    `queue: ${runtime.group.workers.length} live ${runtime.kind} worker(s) of identity ${runtime.group.group}: ${runtime.group.workers.map((w) => w.name).join(', ')}`,
  );
  // Ctrl-C: take this run's waiting jobs off the queue before exiting, so workers do not run them for nobody.
  const stopHandling = handleSignals(
    (signal) => {
      ctx.err(`queue: ${signal}: taking this run's waiting jobs off the queue`);
      void runtime
        .cancel()
        .finally(() => runtime.close())
        .finally(() => process.exit(130));
    },
    { once: true },
  );
  const close = runtime.close.bind(runtime);
  return Object.assign(runtime, {
    close: async () => {
      stopHandling();
      const s = runtime.stats();
      const by = Object.entries(s.byWorker)
        .map(([w, n]) => `${w} ${n}`)
        .join(', ');
      if (s.jobs > 0) {
        ctx.err(
          `queue: ${s.jobs} job(s)${by ? ` (${by})` : ''}; files: ${s.blobs.uploaded} blob(s) sent, ${s.blobs.reused} already in Redis` +
            `${s.stalled > 0 ? `; ${s.stalled} taken over from a stopped worker` : ''}${s.resubmitted > 0 ? `; ${s.resubmitted} resubmitted` : ''}` +
            `${s.givenUp > 0 ? `; ${s.givenUp} given up on (a worker held them past their time limit)` : ''}`,
        );
      }
      await close();
    },
  });
}

/**
 * Why the sandbox cannot be the default here, or undefined when it can: a
 * container engine answers at DOCKER_HOST (within 3 s) and has `image`.
 * Commands that run someone else's code (score, release verify) use the
 * sandbox by default when it is there, and say why when it is not.
 */
export async function sandboxUnavailable(ctx: CliContext, image: string | undefined): Promise<string | undefined> {
  if (!image) return 'no benchmark image recorded yet';
  const { connectDockerEngine } = await import('@junobench/runtime');
  let docker;
  try {
    docker = await connectDockerEngine(ctx.env, { timeoutMs: 3000 });
  } catch {
    return 'no container engine answers';
  }
  try {
    await docker.getImage(image).inspect();
  } catch {
    return `the image ${image} is not in the engine`;
  }
  return undefined;
}
