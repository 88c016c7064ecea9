import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The toolchain's own checkout: its version and commit name what made a build, a report or a release. */
const TOOLCHAIN_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export interface ToolchainIdentity {
  version: string;
  /** HEAD of the toolchain's checkout; null outside a git checkout. */
  commit: string | null;
  /** Whether its working tree has changes; null outside a git checkout. */
  dirty: boolean | null;
  /** HEAD's committer time, seconds since 1970 (the default SOURCE_DATE_EPOCH of a release). */
  commitTime: number | null;
}

/**
 * The toolchain's version (its root package.json) and git state. Plain `git`
 * through execFile: a build asks this to decide whether its report is up to
 * date, and must not load a git library for it.
 */
export async function readToolchainIdentity(root: string = TOOLCHAIN_ROOT): Promise<ToolchainIdentity> {
  const pkg = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as { version?: string };
  const version = pkg.version ?? '0.0.0';
  const git = (...args: string[]) =>
    new Promise<string | undefined>((resolve) =>
      execFile('git', ['-C', root, ...args], { encoding: 'utf8' }, (err, out) => resolve(err ? undefined : out.trim())),
    );
  const commit = await git('rev-parse', '--verify', '--quiet', 'HEAD');
  if (!commit) return { version, commit: null, dirty: null, commitTime: null };
  const status = await git('status', '--porcelain');
  const time = Number(await git('log', '-1', '--format=%ct', 'HEAD'));
  return {
    version,
    commit,
    dirty: status === undefined ? null : status !== '',
    commitTime: Number.isFinite(time) && time > 0 ? time : null,
  };
}
