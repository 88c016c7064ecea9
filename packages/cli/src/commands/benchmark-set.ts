import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import type { InputTree } from '@junobench/core';
import type { InstanceSet } from '@junobench/evaluate';
import type { CliContext } from '../context.js';
import { showPath } from './format.js';

export interface BenchmarkSetFlags {
  instances: string;
  release?: string;
  includeDrafts?: boolean;
}

/**
 * --release and --include-drafts: the options by which `tasks export`, `verify`, `baseline` and `score` choose the
 * benchmark's instances, all through openInstanceSet (docs/scoring.md, "Which instances").
 */
export function addBenchmarkSetOptions(cmd: Command): Command {
  return cmd
    .option(
      '--release <dir|tarball>',
      "use exactly a release's instances (its folder, its .tar.gz or an extracted release), after checking its sums and manifest",
    )
    .option(
      '--include-drafts',
      'raw tree: use its drafts too (default: every instance but drafts and deprecated ones)',
    );
}

/**
 * The instance set of a command, said on stdout (`benchmark: …`, with what was left out on stderr), open until
 * `close()`.
 */
export async function openBenchmarkSet(
  flags: BenchmarkSetFlags,
  ctx: CliContext,
  ids?: readonly string[],
): Promise<InstanceSet> {
  const { openInstanceSet, describeInstanceSet } = await import('@junobench/evaluate');
  const resolve = (p: string) => path.resolve(ctx.cwd, p);
  const set = await openInstanceSet({
    instancesDir: resolve(flags.instances),
    ...(flags.release ? { release: resolve(flags.release) } : {}),
    ...(flags.includeDrafts ? { includeDrafts: true } : {}),
    ...(ids && ids.length > 0 ? { ids } : {}),
  });
  ctx.out(describeInstanceSet(set, flags.release ? undefined : showPath(ctx.cwd, set.instancesDir)));
  for (const l of set.leftOut)
    ctx.err(`left out ${l.id}: ${l.why === 'draft' ? 'a draft (--include-drafts to use it)' : l.detail}`);
  return set;
}

/**
 * What a command that chooses its instances by these options reads, for checkOutputPaths: the instances tree (read
 * or not, it is the raw tree no output may go into), raw/deprecated.json beside it, and the release (a folder, or its
 * tarball).
 */
export async function readsOfBenchmarkSet(
  flags: BenchmarkSetFlags,
  ctx: CliContext,
): Promise<{ inputs: string[]; trees: InputTree[] }> {
  const instances = path.resolve(ctx.cwd, flags.instances);
  const inputs = [path.join(path.dirname(instances), 'deprecated.json')];
  const trees: InputTree[] = [{ path: instances, what: '--instances' }];
  if (flags.release) {
    const release = path.resolve(ctx.cwd, flags.release);
    if ((await stat(release).catch(() => undefined))?.isDirectory()) trees.push({ path: release, what: '--release' });
    else inputs.push(release);
  }
  return { inputs, trees };
}
