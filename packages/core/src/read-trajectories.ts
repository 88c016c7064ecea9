import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { JunoError } from './errors.js';
import type { TrajectoryEntry } from './generated/schema-types.js';
import { compareCodePoints } from './hash.js';
import { MAX_JSON_DEPTH, findTooDeep } from './json-depth.js';
import { readJsonl } from './jsonl.js';

/** The log of calls made outside any session (list_tasks, a refused open_task…): not a session's. */
export const TRAJECTORY_SERVER_LOG = 'serve.jsonl';

/** A trajectory line longer than this is not one `serve` wrote (its arguments are cut at 20,000 characters). */
export const MAX_TRAJECTORY_LINE_CHARS = 4 * 1024 * 1024;

// Session ids are `<task id>-<n>`; a task id is letters, digits and - _ . (README, "An agent in the notebook").
const SESSION_FILE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,199}\.jsonl$/;

/** One session's trajectory: its calls in the order they were logged. */
export interface TrajectorySession {
  /** The session id: the file name without .jsonl. */
  session: string;
  file: string;
  entries: TrajectoryEntry[];
}

/**
 * Read a folder of trajectories (what `serve` and `baseline agent` write beside the predictions): one session per
 * `<session>.jsonl`, sorted by session id; the server's own log and files of other kinds left aside. Trajectories are
 * input from an agent's run: a line that is not JSON, not a trajectory entry, or nested past reason, and a session
 * file that is not a regular file, are errors naming the file and line.
 */
export async function readTrajectories(dir: string): Promise<TrajectorySession[]> {
  const st = await lstat(dir).catch(() => undefined);
  if (!st?.isDirectory())
    throw new JunoError(
      st ? 'E_INPUT_FORMAT' : 'E_INPUT_NOT_FOUND',
      st ? 'is not a folder; expected the trajectories folder' : 'no such trajectories folder',
      {
        location: { file: dir },
        hint: 'give the folder `junobench serve` or `baseline agent` wrote beside the predictions (<predictions without .jsonl>.trajectories/)',
      },
    );
  const names = (await readdir(dir)).filter((n) => n.endsWith('.jsonl') && n !== TRAJECTORY_SERVER_LOG);
  names.sort(compareCodePoints);
  const sessions: TrajectorySession[] = [];
  for (const name of names) {
    const file = path.join(dir, name);
    if (!SESSION_FILE.test(name))
      throw new JunoError('E_INPUT_FORMAT', 'is not named as a session trajectory (<session id>.jsonl)', {
        location: { file },
        hint: 'a trajectories folder holds only what serve wrote: move other files out of it',
      });
    if (!(await lstat(file)).isFile())
      throw new JunoError('E_INPUT_FORMAT', 'is not a regular file (a link or a folder); expected a trajectory', {
        location: { file },
        hint: 'a trajectories folder holds only what serve wrote: move other files out of it',
      });
    const entries: TrajectoryEntry[] = [];
    for await (const { value, line } of readJsonl<TrajectoryEntry>(file, {
      schema: 'trajectory-entry',
      maxLineChars: MAX_TRAJECTORY_LINE_CHARS,
    })) {
      if (findTooDeep(value.arguments))
        throw new JunoError('E_INPUT_FORMAT', `the arguments nest more than ${MAX_JSON_DEPTH} levels deep`, {
          location: { file, line, field: 'arguments' },
          hint: 'serve never logs arguments this deep: the trajectory was not written by junobench',
        });
      entries.push(value);
    }
    sessions.push({ session: name.slice(0, -'.jsonl'.length), file, entries });
  }
  return sessions;
}
