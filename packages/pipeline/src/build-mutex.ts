import { randomUUID } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { link, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { JunoError, checkSchema, formatIssue, formatJson, type BuildInProgress } from '@junobench/core';

export const BUILD_MUTEX_FILE = '.build-in-progress.json';

export type MutexDecision =
  { action: 'take' } | { action: 'take-over'; why: string } | { action: 'refuse'; why: string };

/**
 * Pure: what to do about the lock file found in the output folder.
 * `alive(pid, processStart)` says whether that process still runs here.
 * A lock from this machine whose process is gone is stale; a lock from another
 * machine (a shared folder) cannot be checked and is never taken over; an
 * unreadable lock is taken over (a crash while writing it), with a warning.
 */
export function decideBuildMutex(
  existing: BuildInProgress | { corrupt: string } | undefined,
  here: { host: string },
  alive: (pid: number, processStart?: string) => boolean,
): MutexDecision {
  if (existing === undefined) return { action: 'take' };
  if ('corrupt' in existing) return { action: 'take-over', why: `an unreadable build lock (${existing.corrupt})` };
  if (existing.host !== here.host) return { action: 'refuse', why: 'held on another machine' };
  if (!alive(existing.pid, existing.processStart))
    return {
      action: 'take-over',
      why: `a stale build lock of ${describeHolder(existing)}, which is no longer running`,
    };
  return { action: 'refuse', why: 'held by a running build' };
}

export function describeHolder(h: BuildInProgress): string {
  return `pid ${h.pid} on ${h.host}, started ${h.startedAt}${h.command ? `: ${h.command}` : ''}`;
}

/** Whether a pid runs on this machine (and, when its start time was recorded, is the same process). */
export function isProcessAlive(pid: number, processStart?: string): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    // EPERM: it exists, owned by someone else.
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (processStart === undefined) return true;
  const now = readProcessStart(pid);
  return now === undefined || now === processStart;
}

/** Field 22 of /proc/<pid>/stat (start time in clock ticks since boot), or undefined off Linux. */
export function readProcessStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count from the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/**
 * Take the exclusive lock of a build on its output folder: `.build-in-progress.json`
 * created atomically with its whole content (a hard link from a temporary
 * file: it appears complete or not at all, and only if absent), naming the holder. Another build of the same
 * folder is refused with E_STATE naming the holder; a stale lock (its process
 * is gone) is taken over with a warning. Returns the release function (which
 * removes the file only while it is still ours).
 */
export async function acquireBuildMutex(
  dir: string,
  options: { command?: string; onWarning?: (message: string) => void; label?: string } = {},
): Promise<() => Promise<void>> {
  const file = path.join(dir, BUILD_MUTEX_FILE);
  await mkdir(dir, { recursive: true });
  const processStart = readProcessStart(process.pid);
  const me: BuildInProgress = {
    pid: process.pid,
    host: os.hostname(),
    startedAt: new Date().toISOString(),
    ...(options.command ? { command: options.command } : {}),
    ...(processStart ? { processStart } : {}),
  };
  const text = formatJson(me);
  const mine = `${file}.${process.pid}-${randomUUID()}`;
  await writeFile(mine, text);
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      if (await tryLink(mine, file)) {
        // Ctrl-C or SIGTERM ends the process through process.exit (bin/junobench.js), where nothing asynchronous
        // runs: the lock is removed there, synchronously, so an interrupted build leaves none behind.
        const onExit = () => releaseSync(file, text);
        process.on('exit', onExit);
        return async () => {
          process.off('exit', onExit);
          // Only our own lock: never remove one another build took over.
          if ((await readFile(file, 'utf8').catch(() => undefined)) === text) await rm(file, { force: true });
        };
      }
      await judge();
    }
  } finally {
    await rm(mine, { force: true });
  }
  throw new JunoError('E_STATE', `could not take the build lock ${file}: other builds keep taking it`, {
    location: { file },
    hint: 'run one build at a time in this folder',
  });

  async function judge(): Promise<void> {
    const existing = await readMutex(file);
    if (existing === undefined) return; // released meanwhile: try again
    const decision = decideBuildMutex(existing, { host: me.host }, isProcessAlive);
    if (decision.action === 'refuse') {
      const holder = 'corrupt' in existing ? 'an unreadable lock' : describeHolder(existing);
      throw new JunoError('E_STATE', `${options.label ?? dir} is being built by another junobench build (${holder})`, {
        location: { file },
        hint:
          decision.why === 'held on another machine'
            ? `the lock was taken on another machine sharing this folder, so it cannot be checked from here: wait for that build; if it is gone, remove ${file}`
            : `wait for it to finish (two builds in one folder would overwrite each other's outputs), or build into another folder with --out; if that process is not a build of this folder, remove ${file}`,
      });
    }
    if (decision.action === 'take-over') {
      // Move it aside under a unique name: of two builds taking over at once, one wins the rename.
      const aside = `${file}.stale-${randomUUID()}`;
      try {
        await rename(file, aside);
      } catch {
        return; // another build moved it first: look again
      }
      const moved = await readMutex(aside);
      if (JSON.stringify(moved) !== JSON.stringify(existing)) {
        // A fresh lock replaced the stale one in between: put it back.
        await tryLink(aside, file);
      } else {
        options.onWarning?.(`took over ${decision.why} (${file})`);
      }
      await rm(aside, { force: true });
    }
  }
}

function releaseSync(file: string, text: string): void {
  try {
    if (readFileSync(file, 'utf8') === text) rmSync(file, { force: true });
  } catch {
    // Gone already.
  }
}

async function tryLink(from: string, to: string): Promise<boolean> {
  try {
    await link(from, to);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
}

async function readMutex(file: string): Promise<BuildInProgress | { corrupt: string } | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  if (text === '') return { corrupt: 'empty' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { corrupt: `not JSON: ${(e as Error).message}` };
  }
  const issues = checkSchema('build-in-progress', value);
  return issues.length > 0 ? { corrupt: formatIssue(issues[0]!) } : (value as BuildInProgress);
}
