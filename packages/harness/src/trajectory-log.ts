import { appendFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { TRAJECTORY_SERVER_LOG, stableStringify, type TrajectoryEntry as TrajectoryEntryFormat } from '@junobench/core';

/**
 * One line of a trajectory (schemas/trajectory-entry.schema.json): a tool call as the agent made it and what came of
 * it. The arguments are whatever the agent sent.
 */
export type TrajectoryEntry = Omit<TrajectoryEntryFormat, 'arguments'> & { arguments: unknown };

/** Arguments longer than this are logged cut, with their length: a trajectory stays readable. */
export const MAX_LOGGED_TEXT = 20_000;
/** The log of calls made outside any session (list_tasks, refused open_task…). */
export const SERVER_LOG = TRAJECTORY_SERVER_LOG;

/**
 * Trajectories: one JSONL file per session, `<dir>/<session id>.jsonl`, a line per call appended as the call ends (a
 * killed server keeps what was logged), keys sorted.
 */
export class TrajectoryLog {
  private readonly seqs = new Map<string, number>();
  private chain: Promise<void> = Promise.resolve();

  constructor(readonly dir: string) {}

  fileOf(session: string | undefined): string {
    return path.join(this.dir, session ? `${session}.jsonl` : SERVER_LOG);
  }

  /** Append one call; appends go one at a time, in call order. */
  append(session: string | undefined, entry: Omit<TrajectoryEntry, 'seq'>): Promise<void> {
    const file = this.fileOf(session);
    const seq = (this.seqs.get(file) ?? 0) + 1;
    this.seqs.set(file, seq);
    const line = `${stableStringify({ seq, ...entry, arguments: summarizeArguments(entry.arguments) })}\n`;
    const next = this.chain.then(async () => {
      await mkdir(this.dir, { recursive: true });
      await appendFile(file, line);
    });
    this.chain = next.catch(() => undefined);
    return next;
  }
}

/** Arguments as logged: long strings cut (with their length), the rest as sent. */
export function summarizeArguments(value: unknown): unknown {
  if (typeof value === 'string')
    return value.length > MAX_LOGGED_TEXT ? `${value.slice(0, MAX_LOGGED_TEXT)}… [${value.length} characters]` : value;
  if (Array.isArray(value)) return value.map(summarizeArguments);
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, summarizeArguments(v)]));
  return value;
}

/** A result in one line of at most `max` characters. */
export function summarizeText(text: string, max = 300): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}
