import {
  compareCodePoints,
  type ScorecardTrajectories,
  type TrajectorySession,
  type TrajectorySessionScore,
} from '@junobench/core';

/**
 * The calls and the time of each session of an agent's run, from its trajectories alone (no clock is read: the same
 * logs give the same figures). A session's task is the one its lines name, else its id without the `-<n>` serve adds;
 * its attempt is the one its submit wrote. The time is the wall time from the first call's start to the last call's
 * end when every line says when it started, else the sum of the calls' durations.
 */
export function summarizeTrajectories(sessions: readonly TrajectorySession[]): ScorecardTrajectories {
  const rows = sessions.map(scoreSession);
  rows.sort(
    (a, b) =>
      compareCodePoints(a.task, b.task) ||
      (a.attempt ?? Infinity) - (b.attempt ?? Infinity) ||
      compareCodePoints(a.session, b.session),
  );
  const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);
  return {
    sessions: rows,
    totals: {
      sessions: rows.length,
      submitted: rows.filter((r) => r.submitted).length,
      calls: sum(rows.map((r) => r.calls)),
      ms: sum(rows.map((r) => r.ms)),
    },
    medians: { calls: median(rows.map((r) => r.calls)), ms: median(rows.map((r) => r.ms)) },
  };
}

function scoreSession({ session, entries }: TrajectorySession): TrajectorySessionScore {
  const task = entries.find((e) => e.task_id !== undefined)?.task_id ?? session.replace(/-\d+$/, '');
  const instance = entries.find((e) => e.instance !== undefined)?.instance;
  const submit = entries.findLast((e) => e.tool === 'submit' && e.ok);
  const starts = entries.map((e) => (e.at === undefined ? NaN : Date.parse(e.at)));
  const wall = entries.length > 0 && starts.every((t) => Number.isFinite(t));
  const ms = wall
    ? Math.max(...entries.map((e, i) => starts[i]! + e.ms)) - Math.min(...starts)
    : entries.reduce((a, e) => a + e.ms, 0);
  return {
    session,
    task,
    ...(instance !== undefined ? { instance } : {}),
    ...(submit?.attempt !== undefined ? { attempt: submit.attempt } : {}),
    submitted: submit !== undefined,
    calls: entries.length,
    refused: entries.filter((e) => !e.ok).length,
    ms: Math.round(ms),
    timing: wall ? 'wall' : 'calls',
  };
}

function median(xs: readonly number[]): number {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}
