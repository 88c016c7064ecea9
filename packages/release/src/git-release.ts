import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { simpleGit, type SimpleGit } from 'simple-git';
import { JunoError, stripUrlCredentials } from '@junobench/core';

export type { SimpleGit } from 'simple-git';

/** A simple-git client on a folder (the adapter publish and prepare are given). */
export function openGitRepository(dir: string): SimpleGit {
  return simpleGit({ baseDir: dir, trimmed: true, maxConcurrentProcesses: 1 });
}

export interface GitIdentity {
  commit: string | null;
  dirty: boolean | null;
  /** Committer time of HEAD, seconds since 1970 (the default SOURCE_DATE_EPOCH). */
  commitTime: number | null;
}

/** HEAD, whether the working tree has changes, and HEAD's time; nulls outside a git checkout. */
export async function readGitIdentity(git: SimpleGit): Promise<GitIdentity> {
  try {
    if (!(await git.checkIsRepo())) return { commit: null, dirty: null, commitTime: null };
    const commit = (await git.revparse(['HEAD'])).trim();
    const time = Number((await git.raw(['log', '-1', '--format=%ct', 'HEAD'])).trim());
    const status = await git.status();
    return { commit, dirty: !status.isClean(), commitTime: Number.isFinite(time) ? time : null };
  } catch {
    // An empty repository (no HEAD yet) or no git at all: nothing to name.
    return { commit: null, dirty: null, commitTime: null };
  }
}

export interface TagState {
  exists: boolean;
  /** The annotated tag's message. */
  message?: string;
  /** The archive sha256 the message names, when it is a release tag of ours. */
  archiveSha256?: string;
}

export async function readTag(git: SimpleGit, tag: string): Promise<TagState> {
  const found = (await git.raw(['tag', '--list', tag])).trim();
  if (found !== tag) return { exists: false };
  const message = (await git.raw(['tag', '--list', '--format=%(contents)', tag])).trim();
  const m = /sha256 ([0-9a-f]{64})\b/.exec(message);
  return m ? { exists: true, message, archiveSha256: m[1]! } : { exists: true, message };
}

/** The annotated tag's message: what it releases, with the archive's and the manifest's sha256. */
export function formatTagMessage(o: {
  name: string;
  version: string;
  archiveName: string;
  archiveSha256: string;
  manifestSha256: string;
  instances: number;
}): string {
  return [
    `${o.name} ${o.version}`,
    '',
    `${o.instances} instances.`,
    `archive ${o.archiveName} sha256 ${o.archiveSha256}`,
    `manifest.json sha256 ${o.manifestSha256}`,
    '',
    `Check: sha256sum -c SHA256SUMS; npx junobench release verify ${o.archiveName}`,
    '',
  ].join('\n');
}

/** Refuse a working tree with changes (modified, staged or untracked files): a release names one commit. */
export async function assertCleanTree(git: SimpleGit, dir: string): Promise<void> {
  if (!(await git.checkIsRepo().catch(() => false))) {
    throw new JunoError('E_GIT', 'not a git repository', {
      location: { file: dir },
      hint: 'run publish in the repository the release is tagged in, or pass --repo <dir>',
    });
  }
  const status = await git.status();
  if (!status.isClean()) {
    const names = [
      ...status.modified,
      ...status.staged,
      ...status.not_added,
      ...status.deleted,
      ...status.created,
      ...status.renamed.map((r) => r.to),
    ];
    const unique = [...new Set(names)].sort();
    throw new JunoError(
      'E_GIT',
      `the working tree has uncommitted changes (${unique.slice(0, 8).join(', ')}${unique.length > 8 ? `, and ${unique.length - 8} more` : ''})`,
      {
        location: { file: dir },
        hint: 'commit or remove them first: a release tag must name exactly the files it was built from',
      },
    );
  }
}

export interface TagRequest {
  tag: string;
  message: string;
  remote?: string;
}

/** Create the annotated tag on HEAD and push it to `remote` when given. */
export async function createReleaseTag(git: SimpleGit, req: TagRequest): Promise<void> {
  try {
    await git.addAnnotatedTag(req.tag, req.message);
  } catch (e) {
    throw new JunoError('E_GIT', `could not create tag ${req.tag}: ${firstLine(e)}`, {
      hint: 'an annotated tag needs a committer: set git config user.name and user.email',
      cause: e,
    });
  }
  if (req.remote) await pushReleaseTag(git, req.tag, req.remote);
}

export async function pushReleaseTag(git: SimpleGit, tag: string, remote: string): Promise<void> {
  try {
    await git.push(remote, `refs/tags/${tag}`);
  } catch (e) {
    throw new JunoError('E_GIT', `could not push tag ${tag} to ${remote}: ${firstLine(e)}`, {
      exitCode: 1,
      hint: `check the remote (git remote -v) and your access, then run publish again (the tag is kept; it is pushed on the next run)`,
      cause: e,
    });
  }
}

function firstLine(e: unknown): string {
  return (
    String((e as Error)?.message ?? e)
      .split('\n')
      .find((l) => l.trim()) ?? 'git failed'
  );
}

/** A remote's URL (git remote get-url), or undefined when there is no such remote. */
export async function readRemoteUrl(git: SimpleGit, remote: string): Promise<string | undefined> {
  try {
    const url = (await git.raw(['remote', 'get-url', remote])).trim();
    return url === '' ? undefined : url;
  } catch {
    return undefined;
  }
}

/**
 * Whether a git remote URL is a path on this machine (or a file:// URL): a tag
 * pushed there goes no further than this machine, and a downloader cannot
 * clone it. scp-like `host:path` and URLs with a scheme are remote.
 */
export function isLocalRemote(url: string): boolean {
  if (/^file:/i.test(url)) return true;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return false;
  if (/^[A-Za-z]:[\\/]/.test(url)) return true;
  // scp-like syntax: [user@]host:path, with no slash before the colon.
  if (/^[^/\\]+:/.test(url)) return false;
  return true;
}

/**
 * A URL a downloader can clone without credentials: user-info and tokens
 * removed, and an ssh address of GitHub, GitLab or Bitbucket turned into its
 * https form (`git@github.com:org/repo.git` → `https://github.com/org/repo`).
 */
export function toPublicCloneUrl(url: string): string {
  const scp = /^(?:[^@/]+@)?(github\.com|gitlab\.com|bitbucket\.org):(.+?)(?:\.git)?\/?$/.exec(url);
  if (scp) return `https://${scp[1]}/${scp[2]}`;
  const ssh = /^ssh:\/\/(?:[^@/]+@)?(github\.com|gitlab\.com|bitbucket\.org)(?::\d+)?\/(.+?)(?:\.git)?\/?$/.exec(url);
  if (ssh) return `https://${ssh[1]}/${ssh[2]}`;
  return stripUrlCredentials(url).url;
}

/** The toolchain's own checkout, whose remote a release's card names. */
const TOOLCHAIN_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export interface ToolchainRepository {
  /** The URL the card tells a downloader to clone; undefined when none can be named. */
  url?: string;
  /** Where it came from, for messages: "raw/release.json", "remote origin of <dir>", "--github". */
  from?: string;
  /** Why none can be named (no remote, a local path). */
  problem?: string;
}

/**
 * Where a downloader clones the toolchain that made a release: the setting
 * (raw/release.json's toolchainRepository) first, else the toolchain
 * checkout's remote (the current branch's upstream remote, else origin) when it
 * is not a local path. Neither: `problem` says why, and the card cannot be
 * published. (Never the repository the release is published to: the card is in
 * the archive, which must not depend on where it is published.)
 */
export async function resolveToolchainRepository(o: { setting?: string; root?: string }): Promise<ToolchainRepository> {
  if (o.setting) return { url: toPublicCloneUrl(o.setting), from: 'toolchainRepository in raw/release.json' };
  const git = openGitRepository(o.root ?? TOOLCHAIN_ROOT);
  let remote: string | undefined;
  try {
    const branch = (await git.raw(['rev-parse', '--abbrev-ref', 'HEAD'])).trim();
    remote = (await git.raw(['config', '--get', `branch.${branch}.remote`]).catch(() => '')).trim() || undefined;
  } catch {
    remote = undefined;
  }
  const candidates = [...new Set([remote, 'origin'].filter((r): r is string => Boolean(r)))];
  let local: string | undefined;
  for (const r of candidates) {
    const url = await readRemoteUrl(git, r);
    if (!url) continue;
    if (isLocalRemote(url)) {
      local ??= `remote ${r} of the toolchain's checkout is a local path (${url})`;
      continue;
    }
    return { url: toPublicCloneUrl(url), from: `remote ${r} of the toolchain's checkout` };
  }
  return {
    problem:
      local ??
      "the toolchain's checkout has no remote (git remote -v shows none) and raw/release.json sets no toolchainRepository",
  };
}
