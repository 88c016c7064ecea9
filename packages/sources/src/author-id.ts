import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { JunoError, sha256 } from '@junobench/core';

/**
 * The pseudonymous id of a notebook's author: a salted SHA-256 of the
 * platform and the owner's name (case-insensitive, as both platforms treat
 * names). Without the salt, the id cannot be turned back into a name by
 * hashing a list of user names; with the same salt, the same author gets the
 * same id across instances.
 */
export function pseudonymizeAuthor(platform: string, owner: string, salt: string): string {
  return `author-${sha256(`${salt}\0${platform}\0${owner.toLowerCase()}`).slice(0, 16)}`;
}

const SALT_FILE = 'author-salt';

/**
 * The salt: `$JUNOBENCH_AUTHOR_SALT` (share it among maintainers so ids agree),
 * else a random one made once and kept in `<cacheDir>/author-salt` — never in
 * raw/ or a release, where it would make the ids reversible.
 */
export async function readAuthorSalt(options: { env: NodeJS.ProcessEnv; cacheDir: string }): Promise<string> {
  const fromEnv = options.env.JUNOBENCH_AUTHOR_SALT;
  if (fromEnv !== undefined && fromEnv !== '') {
    if (fromEnv.length < 16) {
      throw new JunoError('E_USAGE', 'JUNOBENCH_AUTHOR_SALT is too short (at least 16 characters)', {
        hint: 'make one with `openssl rand -hex 32` and keep it secret',
      });
    }
    return fromEnv;
  }
  const file = path.join(options.cacheDir, SALT_FILE);
  try {
    const s = (await readFile(file, 'utf8')).trim();
    if (s.length >= 16) return s;
  } catch {
    // made below
  }
  await mkdir(options.cacheDir, { recursive: true });
  const salt = randomBytes(32).toString('hex');
  try {
    await writeFile(file, `${salt}\n`, { flag: 'wx', mode: 0o600 });
    return salt;
  } catch {
    // Another process made it first: use theirs.
    return (await readFile(file, 'utf8')).trim();
  }
}
