import { readFile, stat } from 'node:fs/promises';
import { checkSchema, formatIssue, hashFile, hashTree } from '@junobench/core';
import { emptyLock, type BuildLock } from './plan-build.js';

/** The build lock, or an empty one: missing is normal (never built), anything unreadable is a problem to report. */
export async function readBuildLock(file: string): Promise<{ lock: BuildLock; problem?: string }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { lock: emptyLock() };
    return { lock: emptyLock(), problem: (e as Error).message };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { lock: emptyLock(), problem: `not JSON: ${(e as Error).message}` };
  }
  const issues = checkSchema('build-lock', value);
  if (issues.length > 0) return { lock: emptyLock(), problem: formatIssue(issues[0]!) };
  return { lock: value as BuildLock };
}

/** Content hash of a file or folder as the build lock records it (`file:…`, `dir:…`); undefined when it is missing. */
export async function hashBuildPath(p: string): Promise<string | undefined> {
  try {
    const st = await stat(p);
    return st.isDirectory() ? `dir:${await hashTree(p)}` : `file:${await hashFile(p)}`;
  } catch {
    return undefined;
  }
}
