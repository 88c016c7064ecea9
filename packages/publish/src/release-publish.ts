import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type Docker from 'dockerode';
import { JunoError, readJsonFile, type ImageRecord, type ReleaseImagePush } from '@junobench/core';
import type { GitHubClient, GitHubReleaseResult, ReleasePlan, WrittenRelease } from '@junobench/release';
import { prepareRelease, type PrepareReleaseOptions } from './release-prepare.js';

export interface PublishReleaseOptions extends Omit<PrepareReleaseOptions, 'imagePush' | 'repository' | 'dryRun'> {
  /** The git repository the tag goes into. */
  repoDir: string;
  /** Push the tag there. */
  remote?: string;
  /** The GitHub release: owner/repo and a client on GITHUB_API_URL with GITHUB_TOKEN. */
  github?: { owner: string; repo: string; client: () => GitHubClient; hasToken: boolean };
  /** Push the benchmark image to this registry (host:port) through the engine. */
  registry?: {
    address: string;
    docker: () => Promise<Docker>;
    auth?: { username: string; password: string };
    fetch?: typeof fetch;
  };
  dryRun?: boolean;
  /** Every step and sub-step, as a line of text, as it happens. */
  onStep?: (message: string) => void;
  /**
   * The same, structured: each step once when it is done (or would be, or was
   * already so), and the sub-steps (image push, GitHub uploads) in between —
   * so a caller can show each step once and still have them all when a later
   * step fails.
   */
  onEvent?: (event: PublishEvent) => void;
}

export type PublishEvent =
  { kind: 'step'; step: PublishStep } | { kind: 'detail'; message: string } | { kind: 'warning'; message: string };

export interface PublishStep {
  what: 'check' | 'image' | 'prepare' | 'verify' | 'tag' | 'push-tag' | 'github';
  /** done | skipped (already so) | would (dry run) */
  status: 'done' | 'skipped' | 'would';
  detail: string;
}

/** What stops a publish: gathered, every one, before anything changes. */
export interface PublishProblem {
  message: string;
  /** usage: the command or the repository (exit 2); refusal: the release's own (exit 1); environment: a token (exit 3). */
  kind: 'usage' | 'refusal' | 'environment';
}

export interface PublishReport {
  version: string;
  tag: string;
  dryRun: boolean;
  steps: PublishStep[];
  plan: ReleasePlan;
  archive: { name: string; bytes: number; sha256: string };
  image?: ReleaseImagePush;
  github?: GitHubReleaseResult;
}

/**
 * `junobench release publish`, in the only order that lets the archive name
 * the image it runs in: check everything first (clean tree, tag free or
 * ours, token, image) → push the image and read its digest back → prepare
 * the release again with that digest (sealed: the archive's sha256 is final
 * from here) → check it → annotated tag whose message carries the archive's
 * sha256, pushed to the remote → GitHub release with the assets. A re-run
 * after a failure resumes: a tag that names the same archive is kept, the
 * GitHub release is reused, uploaded assets are skipped. `dryRun` changes
 * nothing: the archive is written to a temporary folder only to print its
 * sha256.
 */
export async function publishRelease(o: PublishReleaseOptions): Promise<PublishReport> {
  const {
    checkRelease,
    createReleaseTag,
    formatTagMessage,
    openGitRepository,
    openRelease,
    publishGitHubRelease,
    pushReleaseImage,
    pushReleaseTag,
    validateReleaseVersion,
    RELEASE_FILES,
    RELEASE_IMAGE_REPOSITORY,
    planToolchainClone,
  } = await import('@junobench/release');
  const version = validateReleaseVersion(o.version);
  const tag = `v${version}`;
  const steps: PublishStep[] = [];
  const step = (s: PublishStep) => {
    steps.push(s);
    o.onStep?.(`${s.status === 'would' ? 'would ' : ''}${s.what}: ${s.detail}`);
    o.onEvent?.({ kind: 'step', step: s });
  };
  const detail =
    o.onStep || o.onEvent
      ? (message: string) => {
          o.onStep?.(message);
          o.onEvent?.({ kind: 'detail', message });
        }
      : undefined;
  const dry = Boolean(o.dryRun);
  const git = openGitRepository(o.repoDir);

  // 1. Everything that can refuse, before anything changes.
  const { head, existing, remote, image } = await checkPublish(o, git, tag, version, dry);
  step({
    what: 'check',
    status: 'done',
    detail: `working tree clean at ${head.commit!.slice(0, 12)}; tag ${tag} ${existing.exists ? 'exists (from an earlier run of this release)' : 'is free'}${remote ? `; remote ${o.remote} is ${remote.url}${remote.local ? ' (a local path)' : ''}` : ''}; the release is not refused`,
  });
  const repository = o.github ? `${o.github.owner}/${o.github.repo}` : undefined;

  // 2. The image, so that the archive can name its digest.
  let push: ReleaseImagePush | undefined;
  if (o.registry && image) {
    const repository = `${o.registry.address}/${RELEASE_IMAGE_REPOSITORY}`;
    if (dry)
      step({
        what: 'image',
        status: 'would',
        detail: `tag ${image.tag} as ${repository}:${version}, push it and record its digest in manifest.json`,
      });
    else {
      push = await pushReleaseImage(await o.registry.docker(), {
        image: image.tag,
        registry: o.registry.address,
        tag: version,
        ...(o.registry.auth ? { auth: o.registry.auth } : {}),
        ...(o.registry.fetch ? { fetch: o.registry.fetch } : {}),
        ...(detail ? { onStep: detail } : {}),
      });
      step({ what: 'image', status: 'done', detail: `pushed ${push.reference}` });
    }
  }

  // 3. The sealed release.
  // Until the tag exists the version is not published: the folder `prepare` wrote is replaced (the digest changes the
  // archive).
  const prepareOptions: PrepareReleaseOptions = {
    ...o,
    dryRun: false,
    replace: !existing.exists,
    ...(push ? { imagePush: push } : {}),
    ...(repository ? { repository } : {}),
  };
  let written: WrittenRelease;
  let plan: ReleasePlan;
  let scratch: string | undefined;
  if (dry) {
    // Written aside only to learn the archive's sha256; removed below.
    scratch = await mkdtemp(path.join(os.tmpdir(), 'junobench-publish-dry-'));
    const prepared = await prepareRelease({ ...prepareOptions, writeDir: scratch });
    plan = prepared.plan;
    written = prepared.written!;
  } else {
    const prepared = await prepareRelease(prepareOptions);
    plan = prepared.plan;
    written = prepared.written!;
  }
  try {
    const archive = { name: plan.archiveName, bytes: written.archive.bytes, sha256: written.archive.sha256 };
    step({
      what: 'prepare',
      status: dry ? 'would' : 'done',
      detail: `${dry ? 'write' : 'wrote'} ${path.join(o.outDir, plan.name)}/ (${plan.manifest.totals.instances} instances; ${plan.archiveName} ${archive.bytes} bytes, sha256 ${archive.sha256})${!push && o.registry ? ' — the image digest is only known after the push, so the real archive will differ' : ''}`,
    });

    const opened = await openRelease(written.dir);
    try {
      const check = await checkRelease(opened);
      if (check.problems.length > 0) {
        throw new JunoError(
          'E_INTERNAL',
          `the prepared release does not pass its own checks: ${check.problems
            .slice(0, 5)
            .map((p) => p.message)
            .join('; ')}`,
        );
      }
    } finally {
      await opened.close();
    }
    step({
      what: 'verify',
      status: 'done',
      detail: `${plan.files.length} files checked (SHA256SUMS, manifest, schemas, Croissant)`,
    });

    // 4. The tag names the sealed archive.
    if (existing.exists && existing.archiveSha256 !== archive.sha256) {
      throw new JunoError('E_GIT', `tag ${tag} already exists for another archive (sha256 ${existing.archiveSha256})`, {
        location: { file: o.repoDir },
        hint: 'a released version is never re-tagged: choose a greater version',
      });
    }
    const manifestSha = plan.files.find((f) => f.path === RELEASE_FILES.manifest)!.sha256;
    const message = formatTagMessage({
      name: plan.metadata.name,
      version,
      archiveName: plan.archiveName,
      archiveSha256: archive.sha256,
      manifestSha256: manifestSha,
      instances: plan.manifest.totals.instances,
    });
    if (existing.exists) step({ what: 'tag', status: 'skipped', detail: `${tag} already names this archive` });
    else if (dry)
      step({
        what: 'tag',
        status: 'would',
        detail: `create annotated tag ${tag} on ${head.commit!.slice(0, 12)}: "${message.split('\n')[0]}" … archive sha256 ${archive.sha256}`,
      });
    else {
      await createReleaseTag(git, { tag, message });
      step({
        what: 'tag',
        status: 'done',
        detail: `annotated tag ${tag} on ${head.commit!.slice(0, 12)} (archive sha256 ${archive.sha256})`,
      });
    }
    if (o.remote && remote?.url) {
      const where = `${o.remote} (${remote.url}${remote.local ? ' — a local path on this machine, not a hosted repository' : ''})`;
      if (dry) step({ what: 'push-tag', status: 'would', detail: `push ${tag} to ${where}` });
      else {
        await pushReleaseTag(git, tag, o.remote);
        step({ what: 'push-tag', status: 'done', detail: `pushed ${tag} to ${where}` });
      }
    }

    // 5. The GitHub release.
    let github: GitHubReleaseResult | undefined;
    if (o.github) {
      const assets = [
        {
          name: plan.archiveName,
          path: written.archive.path,
          bytes: written.archive.bytes,
          contentType: 'application/gzip',
        },
        // Every file SHA256SUMS names (the card and changelog too): `sha256sum -c SHA256SUMS` must pass on the
        // downloaded assets.
        ...[
          RELEASE_FILES.sums,
          RELEASE_FILES.manifest,
          RELEASE_FILES.croissant,
          RELEASE_FILES.card,
          RELEASE_FILES.changelog,
        ].map((name) => {
          const f = written.sealed.files.find((x) => x.name === name)!;
          return {
            name,
            path: path.join(written.dir, name),
            bytes: Buffer.byteLength(f.content),
            contentType: name.endsWith('.json')
              ? 'application/json'
              : name.endsWith('.md')
                ? 'text/markdown'
                : 'text/plain',
          };
        }),
      ];
      if (dry) {
        step({
          what: 'github',
          status: 'would',
          detail: `create (or reuse) the release ${tag} of ${repository} and upload ${assets.map((a) => `${a.name} (${a.bytes} bytes)`).join(', ')}`,
        });
      } else {
        github = await publishGitHubRelease(o.github.client(), {
          owner: o.github.owner,
          repo: o.github.repo,
          tag,
          name: `${plan.metadata.name} ${version}`,
          body: releaseNotes(plan, archive, planToolchainClone(plan.manifest, plan.metadata.toolchainRepository)),
          prerelease: /-/.test(version),
          assets,
          ...(detail ? { onStep: detail } : {}),
        });
        step({
          what: 'github',
          status: 'done',
          detail: `${github.created ? 'created' : 'reused'} ${github.url}; uploaded ${github.uploaded.length}, already there ${github.skipped.length}${github.replaced.length ? `, replaced ${github.replaced.length}` : ''}`,
        });
      }
    }
    return {
      version,
      tag,
      dryRun: dry,
      steps,
      plan,
      archive,
      ...(push ? { image: push } : {}),
      ...(github ? { github } : {}),
    };
  } finally {
    if (scratch) await rm(scratch, { recursive: true, force: true });
  }
}

/** The GitHub release's body: the changelog, then the card's figures and how to check the release. */
// The release's changelog file, copied (typed by the package's constant) so this function needs no load of
// @junobench/release.
const CHANGELOG_FILE: (typeof import('@junobench/release'))['RELEASE_FILES']['changelog'] = 'CHANGELOG.md';
const TOOLCHAIN_FOLDER: (typeof import('@junobench/release'))['TOOLCHAIN_FOLDER'] = 'junobench-toolchain';

export function releaseNotes(
  plan: ReleasePlan,
  archive: { name: string; sha256: string },
  clone: { sentence: string; commands: string[] },
): string {
  const changelog =
    (plan.files.find((f) => f.path === CHANGELOG_FILE) as { content?: string } | undefined)?.content ?? '';
  const m = plan.manifest;
  const lines = [
    changelog.replace(/^# Changelog\n+/, '').trim(),
    '',
    '## This release',
    '',
    `- ${m.totals.instances} instances: ${m.totals.verified} verified${m.totals.skippedEnv ? `, ${m.totals.skippedEnv} skipped-env (never counted as verified)` : ''}${m.deprecated.length ? `; ${m.deprecated.length} deprecated` : ''}`,
    ...m.agreement.dimensions.map(
      (d) => `- agreement on ${d.dimension}: Cohen's kappa ${d.kappa === null ? 'n/a' : d.kappa.toFixed(3)}`,
    ),
    ...(m.image.registry ? [`- image: \`${m.image.registry.reference}\``] : []),
    `- \`${archive.name}\` sha256 \`${archive.sha256}\``,
    '',
    // The toolchain is not an npm package: a bare `npx junobench` in the downloader's folder asks the registry for one.
    `Check and re-run every case, in a folder of the downloaded assets, with the toolchain that made this release (it is not on the npm registry, so it is run from its checkout). ${clone.sentence}`,
    '',
    '```sh',
    'sha256sum -c SHA256SUMS',
    ...clone.commands,
    `npx --prefix ${TOOLCHAIN_FOLDER} junobench release verify ${archive.name}${m.image.registry ? ` --runtime docker --image ${m.image.registry.reference}` : ''}`,
    '```',
    '',
    'The dataset card is README.md inside the archive; croissant.json is its MLCommons Croissant 1.0 metadata.',
  ];
  const body = lines.join('\n');
  // GitHub caps a release body at 125,000 characters.
  return body.length > 120_000 ? `${body.slice(0, 120_000)}\n\n(truncated: see CHANGELOG.md in the archive)` : body;
}

/**
 * Every check of publish's first step, each problem gathered (never only the first): the working tree, the tag, the
 * token, the remote (named by its URL; a local path called out), the image, the release's own refusals and the card.
 * Throws one error listing them all; a dry run the same (exit 1).
 */
async function checkPublish(
  o: PublishReleaseOptions,
  git: import('@junobench/release').SimpleGit,
  tag: string,
  version: string,
  dry: boolean,
): Promise<{
  head: import('@junobench/release').GitIdentity;
  existing: import('@junobench/release').TagState;
  remote?: { url?: string; local?: string };
  image?: ImageRecord;
  checked: ReleasePlan;
}> {
  const { assertCleanTree, planRefusalHint, planToolchainClone, readGitIdentity, readTag } =
    await import('@junobench/release');
  const problems: PublishProblem[] = [];
  const problem = (message: string, kind: PublishProblem['kind'] = 'usage') => problems.push({ message, kind });
  await assertCleanTree(git, o.repoDir).catch((e: unknown) => {
    if (!(e instanceof JunoError)) throw e;
    problem(`${e.message}${e.hint ? ` (${e.hint})` : ''}`);
  });
  const head = await readGitIdentity(git);
  if (!head.commit && (await git.checkIsRepo().catch(() => false))) problem('the repository has no commit to tag');
  const existing = head.commit ? await readTag(git, tag) : { exists: false as const };
  if (existing.exists && !existing.archiveSha256)
    problem(
      `tag ${tag} already exists (a released version is never re-tagged: choose a greater version, release prepare <next version>)`,
    );
  if (o.github && !o.github.hasToken)
    problem(
      'GITHUB_TOKEN is not set (export a token that may write releases of the repository; it is never printed)',
      'environment',
    );
  const remote = o.remote ? await describeRemote(git, o.remote) : undefined;
  if (remote && !remote.url)
    problem(
      `there is no remote named ${o.remote} in ${o.repoDir} (git remote -v lists them; git remote add ${o.remote} <url>)`,
    );
  if (remote?.local) o.onEvent?.({ kind: 'warning', message: remote.local });
  if (remote?.local) o.onStep?.(`warning: ${remote.local}`);
  let image: ImageRecord | undefined;
  if (o.registry) {
    const record = path.join(o.curatedDir, 'image.json');
    image = await readJsonFile<ImageRecord>(record, { schema: 'image-record' }).catch(() => undefined);
    if (!image)
      problem(
        `no benchmark image recorded in ${record}: --registry pushes the image \`junobench image build\` made (build it first, or leave out --registry)`,
      );
  }
  // The release's own refusals (a version not greater than the last, unverified instances, agreement below the gate)
  // come before the image is pushed: a registry changed for a release that is then refused is a change for nothing.
  const repository = o.github ? `${o.github.owner}/${o.github.repo}` : undefined;
  const checked = (await prepareRelease({ ...o, dryRun: true, ...(repository ? { repository } : {}) })).plan;
  for (const r of checked.refusals) problem(`refused: ${r.message}`, 'refusal');
  if (checked.refusals.length > 0) problem(`to fix the refusals: ${planRefusalHint(checked.refusals)}`, 'refusal');
  const clone = planToolchainClone(checked.manifest, checked.metadata.toolchainRepository);
  if (clone.problem)
    problem(
      `the dataset card cannot tell a downloader where to get the toolchain: ${clone.problem} — set toolchainRepository in raw/release.json (a URL git can clone), or push the toolchain to a hosted repository and add it as the checkout's remote`,
    );
  // What `release prepare` warns about (a build lock it cannot check, a recipe not pinned…) is as true of the release
  // published.
  for (const w of checked.warnings) {
    if (clone.problem && w.startsWith('the dataset card cannot say where to clone the toolchain')) continue;
    o.onStep?.(`warning: ${w}`);
    o.onEvent?.({ kind: 'warning', message: w });
  }
  if (problems.length > 0) throw publishProblems(version, problems, dry);
  return { head, existing, ...(remote ? { remote } : {}), ...(image ? { image } : {}), checked };
}

/** A remote's URL, and the warning to give when it is a path on this machine. */
async function describeRemote(
  git: import('@junobench/release').SimpleGit,
  remote: string,
): Promise<{ url?: string; local?: string }> {
  const { isLocalRemote, readRemoteUrl } = await import('@junobench/release');
  const url = await readRemoteUrl(git, remote);
  if (!url) return {};
  return isLocalRemote(url)
    ? {
        url,
        local: `remote ${remote} is a local path (${url}), not a hosted repository: the tag goes no further than this machine (in a fresh clone, origin is the folder it was cloned from; git remote set-url ${remote} <url> to publish it)`,
      }
    : { url };
}

/**
 * Every problem in one error. A dry run found them (exit 1: the check ran and found failures); a publish stopped on
 * them before changing anything (exit 2 for the command or the repository, 1 for the release's refusals, 3 when only a
 * token is missing).
 */
function publishProblems(version: string, problems: readonly PublishProblem[], dryRun: boolean): JunoError {
  const kinds = new Set(problems.map((p) => p.kind));
  const exitCode = dryRun ? 1 : kinds.has('usage') ? 2 : kinds.has('refusal') ? 1 : 3;
  const n = `${problems.length} problem${problems.length === 1 ? '' : 's'}`;
  return new JunoError(
    'E_PUBLISH',
    `${dryRun ? `dry run: release ${version} would not be published` : `release ${version} cannot be published`} (${n}, every one listed; nothing was changed):\n${problems.map((p) => `  - ${p.message}`).join('\n')}`,
    { exitCode, hint: 'fix each problem, then publish again (--dry-run lists them without changing anything)' },
  );
}
