import path from 'node:path';
import type { Command } from 'commander';
import { checkOutputPaths, formatBytes } from '@junobench/core';
import type { CliContext } from '../context.js';
import { formatDuration } from './format.js';

interface ImageFlags {
  profile: string;
  instances: string;
  dockerDir: string;
}

interface BuildFlags extends ImageFlags {
  tag?: string;
  record: string;
  force?: boolean;
  verbose?: boolean;
}

export function registerImageCommand(program: Command, ctx: CliContext): void {
  const image = program
    .command('image')
    .description(
      "The benchmark image: one Dockerfile from all instances' requirements, built through the Docker Engine API.",
    );

  const withCommon = (cmd: Command): Command =>
    cmd
      .option(
        '--profile <name|file>',
        'package profile: debian (offline, Debian packages) or pypi (pinned wheels), or a profile .json',
        'debian',
      )
      .option('--instances <dir>', 'folder with one sub-folder per instance', 'raw/instances')
      .option(
        '--docker-dir <dir>',
        'where profiles/ are read and Dockerfile.<profile>, <profile>.lock.json are written (image build --record <file>: beside the record, unless --docker-dir is given)',
        'docker',
      );

  withCommon(
    image
      .command('build')
      .description(
        'Render docker/Dockerfile.<profile> and build it (skipped when the content-hash tag exists); record the image in curated/image.json.',
      ),
  )
    .option(
      '--tag <tag>',
      'also tag the image with this name (it is always tagged junobench/benchmark:<profile>-<hash>)',
    )
    .option('--record <file>', 'image record to write', 'curated/image.json')
    .option('--force', 'build from scratch (no layer cache) even if an image with the same content hash exists')
    .option('--verbose', "print the builder's output")
    .addHelpText(
      'after',
      "\nNeeds a container engine at DOCKER_HOST (`sh tools/setup-engine.sh` starts Podman's and makes the offline base image).\n" +
        'Exit status: 0 built or up to date, 1 the build failed, 2 bad input, 3 no engine or base image.\n' +
        'Examples:\n  junobench image build\n  junobench image build --profile debian --tag junobench:dev',
    )
    .action(async (flags: BuildFlags, cmd: Command) => {
      const { buildImage } = await import('@junobench/image');
      const recipeDir = planRecipeDir(flags, (o) => cmd.getOptionValueSource(o) !== 'default');
      const abs = (p: string) => path.resolve(ctx.cwd, p);
      await checkOutputPaths({
        inputs: [],
        trees: [{ path: abs(flags.instances), what: '--instances' }],
        outputs: [
          { path: abs(flags.record), flag: '--record' },
          { path: abs(recipeDir), flag: flags.dockerDir === recipeDir ? '--docker-dir' : '--record', folder: true },
        ],
      });
      const { connectDockerEngine } = await import('@junobench/runtime');
      const docker = await connectDockerEngine(ctx.env);
      const progress = ctx.progress('image build');
      try {
        const r = await buildImage({
          docker,
          profile: flags.profile,
          root: ctx.cwd,
          instancesDir: flags.instances,
          dockerDir: flags.dockerDir,
          recordFile: flags.record,
          recipeDir,
          ...(flags.tag ? { tag: flags.tag } : {}),
          ...(flags.force ? { force: true } : {}),
          onProgress: progress,
          ...(flags.verbose ? { onOutput: (line: string) => ctx.err(line) } : {}),
        });
        progress.done();
        const rel = (f: string) => path.relative(ctx.cwd, f) || f;
        ctx.out(
          r.skipped
            ? `up to date: ${r.tag} exists (content hash unchanged), not rebuilt (${formatDuration(r.durationMs)})`
            : `built ${r.tag} in ${formatDuration(r.buildMs)}`,
        );
        ctx.out(`  image id  ${r.imageId}`);
        ctx.out(`  size      ${formatBytes(r.size, { units: 'si' })}`);
        if (r.extraTags.length > 0) ctx.out(`  also      ${r.extraTags.join(', ')}`);
        ctx.out(
          `  modules   ${Object.entries(r.record.modules)
            .map(([m, v]) => `${m} ${v ?? 'MISSING'}`)
            .join(', ')}`,
        );
        for (const [m, u] of Object.entries(r.recipe.unavailable)) {
          ctx.out(`  left out  ${m}: ${u.reason} (instances ${u.instances.join(', ')} are skipped-env in this image)`);
        }
        ctx.out(`  wrote     ${rel(r.dockerfileFile)}, ${rel(r.lockFile)}, ${rel(r.recordFile)}`);
      } finally {
        progress.done();
      }
    });

  withCommon(
    image
      .command('render')
      .description(
        'Only render docker/Dockerfile.<profile> and print its content-hash tag (no engine needed; e.g. for the pypi profile on a machine without PyPI).',
      ),
  ).action(async (flags: ImageFlags) => {
    const { renderImage } = await import('@junobench/image');
    const r = await renderImage({
      profile: flags.profile,
      root: ctx.cwd,
      instancesDir: flags.instances,
      dockerDir: flags.dockerDir,
    });
    ctx.out(`rendered ${path.relative(ctx.cwd, r.dockerfileFile) || r.dockerfileFile} (tag ${r.tag})`);
    ctx.out(`  ${r.recipe.installer} packages: ${[...r.recipe.kernel, ...r.recipe.packages].join(' ')}`);
    for (const [m, u] of Object.entries(r.recipe.unavailable))
      ctx.out(`  left out ${m}: ${u.reason} (${u.instances.join(', ')})`);
  });
}

/**
 * Where `image build` writes Dockerfile.<profile> and <profile>.lock.json: --docker-dir when given; beside the record
 * when --record names another one (a build for other instances, which must not rewrite the project's tracked
 * docker/Dockerfile.<profile> and lock); else docker/.
 */
export function planRecipeDir(
  flags: Pick<BuildFlags, 'dockerDir' | 'record'>,
  given: (option: 'dockerDir' | 'record') => boolean,
): string {
  if (given('dockerDir') || !given('record')) return flags.dockerDir;
  return path.dirname(flags.record);
}
