// Test-only: never exported from index.ts, never imported by library code.
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** Runs git in `cwd` and returns its trimmed output (throws on a non-zero exit). */
export const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

/**
 * A real repository to release from: `<base>/work` with one commit (a
 * README.md holding `readme`) and a committer identity, and a bare
 * `<base>/remote.git` as its `origin`.
 */
export async function initRepoWithRemote(
  base: string,
  readme = '# toolchain\n',
): Promise<{ repo: string; remote: string }> {
  await mkdir(base, { recursive: true });
  const remote = path.join(base, 'remote.git');
  const repo = path.join(base, 'work');
  git(base, 'init', '--bare', '-q', remote);
  git(base, 'init', '-q', repo);
  git(repo, 'config', 'user.name', 'Release Tester');
  git(repo, 'config', 'user.email', 'release@example.org');
  git(repo, 'remote', 'add', 'origin', remote);
  await writeFile(path.join(repo, 'README.md'), readme);
  git(repo, 'add', 'README.md');
  git(repo, 'commit', '-q', '-m', 'first');
  return { repo, remote };
}
