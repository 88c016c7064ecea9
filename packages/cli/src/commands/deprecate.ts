import path from 'node:path';
import type { Command } from 'commander';
import { listInstanceIds } from '@junobench/core';
import type { CliContext } from '../context.js';

interface DeprecateFlags {
  reason: string;
  in?: string;
  instances: string;
  file: string;
  out: string;
}

// Verb: deprecate (docs/releases.md, "`deprecate`"). The release package is imported inside the action, so that
// other commands do not pay for loading it.
export function registerDeprecateCommand(program: Command, ctx: CliContext): void {
  program
    .command('deprecate')
    .description(
      'Withdraw an instance from future releases (recorded in raw/deprecated.json): its id stays reserved, never reused; the next release leaves it out and lists it in its card and changelog.',
    )
    .argument('<instance-id>', 'the instance to deprecate')
    .requiredOption('--reason <text>', 'why it is withdrawn (printed in the card and the changelog)')
    .option(
      '--in <version>',
      'the first release that leaves it out (default: the next minor version after the latest release in --out, else 0.1.0)',
    )
    .option('--instances <dir>', 'the instances folder (the id must exist there or in a release)', 'raw/instances')
    .option('--file <file>', 'the deprecation list', 'raw/deprecated.json')
    .option('--out <dir>', 'release folders, to find the latest release', 'releases')
    .addHelpText(
      'after',
      '\nExamples:\n  junobench deprecate pandas_2 --reason "the input dataset was withdrawn by its author"\n  junobench deprecate torch_1 --reason "duplicate of torch_2" --in 0.3.0',
    )
    .action(async (id: string, flags: DeprecateFlags) => {
      const {
        listReleaseFolders,
        nextDeprecationVersion,
        planDeprecation,
        readDeprecated,
        readReleaseManifest,
        writeDeprecated,
      } = await import('@junobench/release');
      const file = path.resolve(ctx.cwd, flags.file);
      const known = new Set<string>(
        await listInstanceIds(path.resolve(ctx.cwd, flags.instances)).catch(() => [] as string[]),
      );
      const releases = await listReleaseFolders(path.resolve(ctx.cwd, flags.out));
      const released: { version: string; ids: Set<string> }[] = [];
      for (const r of releases) {
        const ids = new Set((await readReleaseManifest(r.dir)).instances.map((i) => i.id));
        for (const i of ids) known.add(i);
        released.push({ version: r.version, ids });
      }
      const version = flags.in ?? nextDeprecationVersion(releases.map((r) => r.version));
      const next = planDeprecation(await readDeprecated(file), { id, reason: flags.reason, version, known, released });
      await writeDeprecated(file, next);
      ctx.out(
        `${id} deprecated in ${version}: ${flags.reason.trim()}\n→ ${path.relative(ctx.cwd, file) || file} (${next.instances.length} deprecated); releases from ${version} on leave it out, and its id is never reused`,
      );
    });
}
