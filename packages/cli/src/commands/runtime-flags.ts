import { Option, type Command } from 'commander';
import { JunoError } from '@junobench/core';
import { createLocalRuntime, type Runtime } from '@junobench/runtime';
import type { CliContext } from '../context.js';

export interface RuntimeFlags {
  runtime: 'local' | 'docker';
  python?: string;
  image?: string;
  memory?: string;
  cpus?: string;
}

export function addRuntimeOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--runtime <kind>', 'where notebooks run').choices(['local', 'docker']).default('local'))
    .option('--python <interpreter>', 'local runtime: Python with ipykernel (default: $JUNOBENCH_PYTHON, else found automatically)')
    .option('--image <tag>', 'docker runtime: benchmark image (default: the one recorded in curated/image.json)')
    .option('--memory <size>', 'docker runtime: memory limit per container, e.g. 2g')
    .option('--cpus <n>', 'docker runtime: CPU limit per container, e.g. 1.5');
}

export async function createRuntimeFromFlags(flags: RuntimeFlags, ctx: CliContext): Promise<Runtime> {
  if (flags.runtime === 'local') {
    return createLocalRuntime({ ...(flags.python ? { python: flags.python } : {}), env: ctx.env });
  }
  throw new JunoError('E_USAGE', 'the docker runtime is not available in this build', { hint: 'use --runtime local' });
}
