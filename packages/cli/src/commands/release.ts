import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { addRuntimeOptions, createRuntimeFromFlags, sandboxUnavailable, type RuntimeFlags } from './runtime-flags.js';
import { formatDuration, parsePositiveInt, printable } from './format.js';

// @junobench/core is small and every command needs it: it is imported statically in every command
// file (a library is either always or never lazily loaded within the CLI: the module-boundary rule).
import * as coreModule from '@junobench/core';
type Core = typeof coreModule;
const loadCore = async (): Promise<Core> => coreModule;

// Verbs: release prepare|verify|publish (docs/releases.md); `deprecate` is in deprecate.ts. The publish and release
// packages are imported inside each action, so that other commands do not pay for loading them (octokit, simple-git,
// tar).

interface PrepareFlags {
  from: string;
  out: string;
  previous?: string;
  recipe: string;
  deprecated: string;
  metadata: string;
  instances: string;
  annotations: string;
  profile?: string;
  minKappa?: string;
  dryRun?: boolean;
  json?: string;
  force?: boolean;
}

interface VerifyFlags extends RuntimeFlags {
  run: boolean;
  jobs?: number;
  json?: string;
}

interface PublishFlags extends Omit<PrepareFlags, 'json' | 'force'> {
  repo: string;
  remote?: string;
  github?: string;
  registry?: string;
}

export function registerReleaseCommands(program: Command, ctx: CliContext): void {
  const release = program
    .command('release')
    .description(
      'Versioned releases: a deterministic archive with manifest, checksums, dataset card, Croissant metadata and changelog; verification; git tag, GitHub release, image push.',
    );

  const prepare = release
    .command('prepare')
    .description(
      'Write releases/junobench-<version>/: the deterministic archive and, beside it, manifest.json, SHA256SUMS, README.md (dataset card), croissant.json, CHANGELOG.md.',
    )
    .argument('<version>', 'semantic version, e.g. 0.1.0');
  addPrepareOptions(prepare)
    .option('--dry-run', 'print the plan (files, refusals, changelog) and write nothing')
    .option('--json <file>', 'also write the plan summary as JSON')
    .option(
      '--force',
      'replace releases/junobench-<version>/ when it holds another archive (only for a version never published)',
    );
  prepare.addHelpText(
    'after',
    '\nRefused (exit 1, every reason listed) when an instance is not verified, flaky or a draft, when agreement is below the gate,\n' +
      'or when the version is not greater than the previous release. skipped-env instances are released, marked, never counted as verified.\n' +
      'The archive is byte-for-byte reproducible: entries sorted, modes and owners fixed, mtimes from SOURCE_DATE_EPOCH (default: the\n' +
      "toolchain's commit time), gzip without name or time.\n" +
      'A folder of the version that holds another archive is kept (exit 2; a version is released once) unless --force.\n' +
      'Examples:\n  junobench release prepare 0.1.0\n  junobench release prepare 0.2.0 --previous releases/junobench-0.1.0\n  SOURCE_DATE_EPOCH=1767225600 junobench release prepare 0.1.0 --out /tmp/releases',
  );
  prepare.action(async (version: string, flags: PrepareFlags) => {
    const { prepareRelease } = await import('@junobench/publish');
    const core = await loadCore();
    await checkPrepareOutputs(flags, ctx, core);
    await noteGateOverride(flags, ctx, core);
    const t0 = Date.now();
    const { plan, written } = await prepareRelease({
      version,
      ...prepareInputs(flags, ctx, core),
      ...(flags.dryRun ? { dryRun: true } : {}),
      ...(flags.force ? { replace: true } : {}),
    });
    for (const w of plan.warnings) ctx.err(`warning: ${printable(w)}`);
    const m = plan.manifest;
    const changes = plan.changelog;
    const lines = [
      `release ${plan.version}: ${m.totals.instances} instances (${m.totals.verified} verified, ${m.totals.skippedEnv} skipped-env${m.deprecated.length ? `, ${m.deprecated.length} deprecated left out` : ''}), ${plan.files.length} files, ${m.totals.bytes} bytes of content`,
      ...m.instances
        .filter((i) => i.status === 'skipped-env')
        .map((i) => `  ${i.id}: skipped-env (${i.reason ?? 'a required module is missing'})`),
      changes.previous
        ? `changes since ${changes.previous}: ${changes.added.length} added, ${changes.removed.length} removed, ${changes.changed.length} changed`
        : 'first release: no previous release found',
    ];
    if (flags.dryRun) {
      for (const r of plan.refusals) lines.push(`REFUSED: ${r.message}`);
      if (plan.refusals.length > 0) {
        const { planRefusalHint } = await import('@junobench/release');
        lines.push(`hint: ${planRefusalHint(plan.refusals)}`);
      }
      lines.push(
        `dry run: would write ${path.join(flags.out, plan.name)}/${plan.archiveName} (sha256 known once written) and its files; nothing written`,
      );
      ctx.out(lines.map(printable).join('\n'));
      ctx.exitCode = plan.refusals.length > 0 ? 1 : 0;
    } else {
      const w = written!;
      lines.push(
        `wrote ${path.relative(ctx.cwd, w.dir) || w.dir}/ in ${formatDuration(Date.now() - t0)}`,
        `  ${plan.archiveName}  ${w.archive.bytes} bytes  sha256 ${w.archive.sha256}`,
        `  ${w.sealed.files.map((f) => f.name).join(', ')}`,
        `check it: npx junobench release verify ${path.relative(ctx.cwd, w.dir) || w.dir}`,
      );
      ctx.out(lines.map(printable).join('\n'));
    }
    if (flags.json) {
      const { planReleasePrepareReport, writeReleasePrepareReport } = await import('@junobench/release');
      await writeReleasePrepareReport(
        path.resolve(ctx.cwd, flags.json),
        planReleasePrepareReport(plan, written?.archive),
      );
    }
  });

  const verify = release
    .command('verify')
    .description(
      'Check a release byte for byte (SHA256SUMS, manifest, schemas, Croissant) and re-execute every instance from the extracted files, comparing outcomes with its verification.json.',
    )
    .argument('<release>', 'a release folder (releases/junobench-<version>), its .tar.gz, or an extracted release')
    .option('--no-run', 'only the checks; execute nothing')
    .option('--jobs <n>', 'notebooks executed at once (default: number of CPUs)', parsePositiveInt)
    .option('--json <file>', 'write the result as JSON');
  addRuntimeOptions(verify);
  const runtimeOption = verify.options.find((o) => o.long === '--runtime');
  if (runtimeOption)
    runtimeOption.defaultValueDescription = "docker when an engine answers and has the release's image, else local";
  verify.addHelpText(
    'after',
    '\nThe archive is extracted safely into a temporary folder (no entry may leave it) and removed afterwards; nothing is cached.\n' +
      'With --runtime docker the image is --image, else the one the release names (its pushed digest, else its tag).\n' +
      "A release that fails a check is not run. Without --runtime it runs in the docker runtime when an engine answers (DOCKER_HOST) and has the release's image,\n" +
      "else in the local runtime's bubblewrap sandbox (no network, none of your files, but no memory, CPU or disk limits; a note says why): for a release you did not build, pull its image or use --runtime docker.\n" +
      'Exit status: 0 everything holds; 1 a difference (each named); 2 not a release; 3 no usable runtime.\n' +
      'Examples:\n  junobench release verify releases/junobench-0.1.0 --no-run\n  junobench release verify releases/junobench-0.1.0/junobench-0.1.0.tar.gz\n  junobench release verify junobench-0.1.0.tar.gz --runtime docker',
  );
  verify.action(async (input: string, flags: VerifyFlags) => {
    if (flags.json) {
      // A report written into the release folder would be a file beside its archive the next check reports.
      const { checkOutputPaths } = await loadCore();
      const release = path.resolve(ctx.cwd, input);
      await checkOutputPaths({
        inputs: [release],
        trees: [{ path: release, what: 'the release' }],
        outputs: [{ path: path.resolve(ctx.cwd, flags.json), flag: '--json' }],
      });
    }
    const { verifyRelease } = await import('@junobench/publish');
    const t0 = Date.now();
    const progress = ctx.progress('release verify');
    let result;
    try {
      result = await verifyRelease({
        input: path.resolve(ctx.cwd, input),
        run: flags.run,
        ...(flags.jobs ? { jobs: flags.jobs } : {}),
        onProgress: progress,
        createRuntime: async (manifest) => {
          const { chooseReleaseRuntime } = await import('@junobench/publish');
          const env = ctx.env;
          const choice = await chooseReleaseRuntime(manifest, {
            ...(verify.getOptionValueSource('runtime') === 'default' ? {} : { requested: flags.runtime }),
            ...(flags.image ? { image: flags.image } : {}),
            queue: Boolean(flags.queue),
            sandboxUnavailable: (image) => sandboxUnavailable(ctx, image),
            pullImage: async (image) => {
              const { pullReleaseImage } = await import('@junobench/release');
              const { connectDockerEngine } = await import('@junobench/runtime');
              return pullReleaseImage(await connectDockerEngine(env), image, {
                ...(env.JUNOBENCH_REGISTRY_USERNAME && env.JUNOBENCH_REGISTRY_PASSWORD
                  ? { auth: { username: env.JUNOBENCH_REGISTRY_USERNAME, password: env.JUNOBENCH_REGISTRY_PASSWORD } }
                  : {}),
                onStep: (m) => ctx.err(m),
              });
            },
            rebuildCommand: (tag) =>
              rebuildCommand(
                input,
                path.resolve(ctx.cwd, input),
                `junobench-${manifest.version}`,
                manifest.image.profile,
                tag,
              ),
          });
          const runtime = await createRuntimeFromFlags(
            { ...flags, runtime: choice.kind, ...(choice.image ? { image: choice.image } : {}) },
            ctx,
          );
          if (runtime.kind === 'local' && runtime.sandboxed) {
            ctx.err(
              `note: the release's ${manifest.instances.length} instances run in the local runtime's bubblewrap sandbox (no network, none of your files; ${choice.why ?? '--runtime local'}).`,
            );
          } else if (runtime.kind === 'local') {
            ctx.err(
              `warning: the release's ${manifest.instances.length} instances are someone else's notebooks and will run UNSANDBOXED in the local runtime, with your user's rights (${choice.why ?? '--runtime local'}). ` +
                'For a release you did not build: sh tools/setup-engine.sh, then release verify --runtime docker (its image), or --no-run for the checks alone.',
            );
          }
          return runtime;
        },
      });
    } finally {
      progress.done();
    }
    const lines: string[] = [];
    const name = result.version ? `release ${result.version}` : 'release';
    if (result.rerun && result.manifest?.toolchain.commit) {
      // The runner inside an image speaks the protocol of the toolchain that built it.
      const { readToolchainIdentity } = await import('@junobench/publish');
      const here = await readToolchainIdentity();
      if (here.commit && here.commit !== result.manifest.toolchain.commit) {
        ctx.err(
          `note: the release was prepared by the toolchain at commit ${result.manifest.toolchain.commit.slice(0, 12)}; this is ${here.commit.slice(0, 12)}. If outcomes differ, re-run with that commit checked out.`,
        );
      }
    }
    lines.push(
      `${name}: ${result.filesChecked} files (${result.bytesChecked} bytes) checked against SHA256SUMS and manifest.json${result.archive ? `; archive sha256 ${result.archive.sha256}` : ''}`,
    );
    for (const p of result.problems) lines.push(`  ${p.code}: ${p.message}`);
    if (result.rerun) {
      const r = result.rerun;
      lines.push(formatRerunLine(r));
      for (const d of r.differences) lines.push(`  differs: ${d.message}`);
      for (const u of r.unchecked) lines.push(`  not checked here: ${u.instance} (${u.reason})`);
      for (const i of r.improved) lines.push(`  verified here (skipped-env in the release): ${i}`);
    } else if (!flags.run) lines.push('re-run: skipped (--no-run)');
    else if (result.rerunRefused) lines.push(`re-run: not done — ${result.rerunRefused}`);
    else if (result.rerunUnavailable)
      lines.push('re-run: not done — no runtime here (the error below says what is missing)');
    if (result.rerunUnavailable && result.problems.length === 0) {
      // The checks held: say so before the environment error, which is not a verdict on the release.
      lines.push(
        `NOT RE-RUN: the files hold, the instances were not executed (${formatDuration(Date.now() - t0)}); --no-run for the checks alone`,
      );
    } else {
      lines.push(
        result.ok
          ? `OK: the release holds (${formatDuration(Date.now() - t0)})`
          : `FAILED: ${result.problems.length + (result.rerun?.differences.length ?? 0)} difference(s) (${formatDuration(Date.now() - t0)})`,
      );
    }
    ctx.out(lines.map(printable).join('\n'));
    if (flags.json) {
      const { planReleaseVerifyReport, writeReleaseVerifyReport } = await import('@junobench/release');
      await writeReleaseVerifyReport(path.resolve(ctx.cwd, flags.json), planReleaseVerifyReport(result));
    }
    // Exit 3 with its message and hint (an interpreter, an engine or an image to install), after the checks' report.
    if (result.rerunUnavailable) throw result.rerunUnavailable;
    ctx.exitCode = result.ok ? 0 : 1;
  });

  const publish = release
    .command('publish')
    .description(
      'Publish a release: push the image (--registry) and record its digest, prepare the sealed archive, create the annotated tag v<version> (its message carries the archive sha256), push it (--remote), create the GitHub release with the assets (--github).',
    )
    .argument('<version>', 'semantic version, e.g. 0.1.0');
  addPrepareOptions(publish)
    .option('--repo <dir>', 'git repository to tag (must have no uncommitted changes)', '.')
    .option('--remote <name>', 'push the tag to this remote')
    .option('--github <owner/repo>', 'create the GitHub release there (GITHUB_API_URL, GITHUB_TOKEN)')
    .option('--registry <host:port>', 'push the benchmark image there through the Docker Engine API (DOCKER_HOST)')
    .option('--dry-run', 'print everything it would do; change nothing');
  publish.addHelpText(
    'after',
    '\nOrder: checks (clean tree, tag free, token, image) → image push and digest → sealed archive naming the digest → tag → GitHub release.\n' +
      'An existing tag is refused (exit 2) unless it names this very archive (a re-run after a failure: the tag is kept, the GitHub\n' +
      'release reused, assets already uploaded with the same size skipped). GITHUB_TOKEN is never printed.\n' +
      'Registry credentials, when needed: JUNOBENCH_REGISTRY_USERNAME, JUNOBENCH_REGISTRY_PASSWORD.\n' +
      'Examples:\n  junobench release publish 0.1.0 --dry-run --github org/junobench --registry ghcr.io/org\n  junobench release publish 0.1.0 --remote origin --github org/junobench --registry 127.0.0.1:5117',
  );
  publish.action(async (version: string, flags: PublishFlags) => {
    const { publishRelease } = await import('@junobench/publish');
    const { createGitHubClient } = await import('@junobench/release');
    const core = await loadCore();
    await noteGateOverride(flags, ctx, core);
    const env = ctx.env;
    const github = flags.github ? parseGitHubRepo(flags.github, core) : undefined;
    const report = await publishRelease({
      version,
      ...prepareInputs(flags, ctx, core),
      repoDir: path.resolve(ctx.cwd, flags.repo),
      ...(flags.remote ? { remote: flags.remote } : {}),
      ...(github
        ? {
            github: {
              ...github,
              hasToken: Boolean(env.GITHUB_TOKEN),
              client: () =>
                createGitHubClient({
                  ...(env.GITHUB_TOKEN ? { token: env.GITHUB_TOKEN } : {}),
                  ...(env.GITHUB_API_URL ? { baseUrl: env.GITHUB_API_URL } : {}),
                }),
            },
          }
        : {}),
      ...(flags.registry
        ? {
            registry: {
              address: flags.registry,
              docker: async () => (await import('@junobench/runtime')).connectDockerEngine(env),
              ...(env.JUNOBENCH_REGISTRY_USERNAME && env.JUNOBENCH_REGISTRY_PASSWORD
                ? { auth: { username: env.JUNOBENCH_REGISTRY_USERNAME, password: env.JUNOBENCH_REGISTRY_PASSWORD } }
                : {}),
            },
          }
        : {}),
      ...(flags.dryRun ? { dryRun: true } : {}),
      // Each step once, on stdout, when it is done: the lines a failure later on leaves standing (what was
      // tagged, pushed, uploaded). The sub-steps between them (image push, each upload) on stderr.
      onEvent: (e) => {
        if (e.kind === 'warning') ctx.err(`warning: ${printable(e.message)}`);
        else if (e.kind === 'detail') ctx.err(`  ${printable(e.message)}`);
        else
          ctx.out(
            `${e.step.status === 'would' ? 'would' : e.step.status === 'skipped' ? 'kept ' : 'done '}  ${e.step.what.padEnd(8)} ${e.step.detail}`,
          );
      },
    });
    const archive = report.archive;
    ctx.out(
      report.dryRun
        ? `dry run: nothing was changed (release ${report.version}, archive sha256 ${archive.sha256}${flags.registry ? ' before the image digest is recorded' : ''})`
        : `published ${report.tag}: ${archive.name} sha256 ${archive.sha256}${report.github ? ` → ${report.github.url}` : ''}`,
    );
  });
}

function addPrepareOptions(cmd: Command): Command {
  return cmd
    .option('--from <dir>', 'the curated benchmark (`junobench build` output)', 'curated')
    .option('--out <dir>', 'where release folders are written', 'releases')
    .option('--previous <release>', 'the release to compare with (folder or .tar.gz; default: the latest in --out)')
    .option('--recipe <dir>', 'rendered Dockerfiles and lock files of the image', 'docker')
    .option('--deprecated <file>', 'deprecated instances, left out', 'raw/deprecated.json')
    .option(
      '--instances <dir>',
      'the raw instances (a draft there is refused even when the build left it out)',
      'raw/instances',
    )
    .option(
      '--annotations <dir>',
      "the annotators' files: after a deprecation, agreement is recomputed without the deprecated instances",
      'raw/annotations',
    )
    .option('--metadata <file>', 'dataset metadata for the card and Croissant file (optional)', 'raw/release.json')
    .option('--profile <name>', 'image profile (default: the one curated/image.json names, else debian)')
    .option(
      '--min-kappa <k>',
      "the agreement gate for this run only: every dimension's Cohen's kappa must reach it (default: minKappa in --metadata, else 0.9)",
    );
}

function prepareInputs(flags: Omit<PrepareFlags, 'json' | 'dryRun'>, ctx: CliContext, { JunoError }: Core) {
  const abs = (p: string) => path.resolve(ctx.cwd, p);
  const epoch = ctx.env.SOURCE_DATE_EPOCH;
  if (epoch !== undefined && !/^\d+$/.test(epoch)) {
    throw new JunoError('E_USAGE', `SOURCE_DATE_EPOCH must be a whole number of seconds since 1970, not "${epoch}"`, {
      hint: 'e.g. SOURCE_DATE_EPOCH=$(git log -1 --format=%ct)',
    });
  }
  let minKappa: number | undefined;
  if (flags.minKappa !== undefined) {
    minKappa = Number(flags.minKappa);
    if (!Number.isFinite(minKappa) || minKappa < -1 || minKappa > 1)
      throw new JunoError('E_USAGE', `--min-kappa must be a number from -1 to 1, not "${flags.minKappa}"`);
  }
  return {
    curatedDir: abs(flags.from),
    // The build ran here (raw/ and curated/ relative to the working folder): its lock's sources are checked.
    buildRoot: ctx.cwd,
    outDir: abs(flags.out),
    ...(flags.previous ? { previous: abs(flags.previous) } : {}),
    recipeDir: abs(flags.recipe),
    deprecatedFile: abs(flags.deprecated),
    rawInstancesDir: abs(flags.instances),
    annotationsDir: abs(flags.annotations),
    metadataFile: abs(flags.metadata),
    ...(flags.profile ? { profile: flags.profile } : {}),
    ...(epoch !== undefined ? { sourceDateEpoch: Number(epoch) } : {}),
    ...(minKappa !== undefined ? { minKappa } : {}),
  };
}

/** A release and its report are written outside everything prepare reads: curated/, raw/'s instances and annotations. */
async function checkPrepareOutputs(flags: PrepareFlags, ctx: CliContext, core: Core): Promise<void> {
  const abs = (p: string) => path.resolve(ctx.cwd, p);
  const previous = flags.previous ? abs(flags.previous) : undefined;
  const previousIsDir = previous ? (await stat(previous).catch(() => undefined))?.isDirectory() === true : false;
  await core.checkOutputPaths({
    inputs: [abs(flags.deprecated), abs(flags.metadata), ...(previous && !previousIsDir ? [previous] : [])],
    trees: [
      { path: abs(flags.from), what: '--from' },
      { path: abs(flags.instances), what: '--instances' },
      { path: abs(flags.annotations), what: '--annotations' },
      { path: abs(flags.recipe), what: '--recipe' },
      ...(previous && previousIsDir ? [{ path: previous, what: '--previous' }] : []),
    ],
    outputs: [
      { path: abs(flags.out), flag: '--out', folder: true },
      ...(flags.json ? [{ path: abs(flags.json), flag: '--json' }] : []),
    ],
  });
}

/**
 * The re-run in one line, naming only what happened: "16 instances: 15 as released, 1 not checked here", never
 * "0 now verified" or "0 differ".
 */
export function formatRerunLine(r: {
  runtime: string;
  instances: number;
  differences: readonly unknown[];
  unchecked: readonly unknown[];
  improved: readonly unknown[];
}): string {
  const same = r.instances - r.differences.length - r.unchecked.length - r.improved.length;
  const parts = [
    same > 0 ? `${same} as released (the outcomes of verification.json)` : '',
    r.differences.length > 0 ? `${r.differences.length} differ${r.differences.length === 1 ? 's' : ''}` : '',
    r.unchecked.length > 0 ? `${r.unchecked.length} not checked here (cannot run in this runtime)` : '',
    r.improved.length > 0 ? `${r.improved.length} verified here though skipped-env in the release` : '',
  ].filter(Boolean);
  return `re-run (${r.runtime} runtime) of ${r.instances} instance${r.instances === 1 ? '' : 's'}: ${parts.join(', ') || 'nothing to run'}`;
}

/** Says once, on stderr, that --min-kappa overrides the gate's setting for this run. */
async function noteGateOverride(
  flags: { minKappa?: string; metadata: string },
  ctx: CliContext,
  { formatGateOverride, readAgreementGate }: Core,
): Promise<void> {
  if (flags.minKappa === undefined || !Number.isFinite(Number(flags.minKappa))) return;
  const gate = await readAgreementGate(path.resolve(ctx.cwd, flags.metadata), Number(flags.minKappa));
  const note = formatGateOverride(gate, flags.metadata);
  if (note) ctx.err(note);
}

function parseGitHubRepo(value: string, { JunoError }: Core): { owner: string; repo: string } {
  const m = /^([A-Za-z0-9][A-Za-z0-9-]*)\/([A-Za-z0-9._-]+)$/.exec(value);
  if (!m)
    throw new JunoError('E_USAGE', `--github takes owner/repo, not "${value}"`, {
      hint: 'e.g. --github junobench/junobench',
    });
  return { owner: m[1]!, repo: m[2]! };
}

/**
 * The image rebuild a reader can paste where they ran verify: from the archive they named (extracted beside it), or
 * from an extracted release's image/; no `cd`, so the paths of the verify command stay right after it.
 */
function rebuildCommand(input: string, abs: string, top: string, profile: string, tag: string): string {
  const q = (p: string) => (/^[\w@%+=:,./-]+$/.test(p) ? p : `'${p.replace(/'/g, `'\\''`)}'`);
  const isArchive = input.endsWith('.tar.gz');
  const extracted = !isArchive && existsSync(path.join(abs, 'image'));
  const image = extracted ? path.join(input, 'image') : `${top}/image`;
  const build = `docker build -f ${q(`${image}/Dockerfile.${profile}`)} -t ${tag} ${q(image)}`;
  if (extracted) return build;
  return `tar xzf ${q(isArchive ? input : path.join(input, `${top}.tar.gz`))} && ${build}`;
}
