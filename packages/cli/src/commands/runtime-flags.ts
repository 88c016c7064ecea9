import path from 'node:path';
import { Option, type Command } from 'commander';
import { readImageRecord } from '@junobench/image';
import { connectDockerEngine, createContainerRuntime, createLocalRuntime, type Runtime } from '@junobench/runtime';
import type { CliContext } from '../context.js';
import { parsePositiveNumber } from './format.js';

export interface RuntimeFlags {
  runtime: 'local' | 'docker';
  python?: string;
  image?: string;
  memory?: string;
  cpus?: number;
  fork?: boolean;
}

export function addRuntimeOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--runtime <kind>', 'where notebooks run').choices(['local', 'docker']).default('local'))
    .option('--python <interpreter>', 'local runtime: Python with ipykernel (default: $JUNOBENCH_PYTHON, else found automatically)')
    .option('--no-fork', 'local runtime: start each kernel as a new interpreter instead of forking it from a process with the imports done')
    .option('--image <tag>', 'docker runtime: benchmark image (default: the one recorded in curated/image.json by `junobench image build`)')
    .option('--memory <size>', 'docker runtime: memory limit per container, e.g. 2g (default 4g)')
    .addOption(new Option('--cpus <n>', 'docker runtime: CPU limit per container, e.g. 1.5 (default 1)').argParser(parsePositiveNumber));
}

/**
 * The runtime the flags ask for. Docker: the engine at DOCKER_HOST and the
 * image given, else the one `junobench image build` recorded.
 */
export async function createRuntimeFromFlags(flags: RuntimeFlags, ctx: CliContext, options: { imageRecord?: string } = {}): Promise<Runtime> {
  if (flags.runtime === 'local') {
    return createLocalRuntime({ ...(flags.python ? { python: flags.python } : {}), ...(flags.fork === false ? { fork: false } : {}), env: ctx.env });
  }
  const docker = await connectDockerEngine(ctx.env);
  const image = flags.image ?? (await readImageRecord(path.resolve(ctx.cwd, options.imageRecord ?? 'curated/image.json'))).tag;
  return createContainerRuntime({
    docker,
    image,
    ...(flags.memory ? { memory: flags.memory } : {}),
    ...(flags.cpus ? { cpus: flags.cpus } : {}),
  });
}
