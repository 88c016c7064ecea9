import { describe, expect, it } from 'vitest';
import { validateOrThrow, type TrajectoryEntry, type TrajectorySession } from '@junobench/core';
import { formatScoreSummary, renderScorecardMarkdown } from './render-scorecard.js';
import { summarizeTrajectories } from './summarize-trajectories.js';

const entry = (seq: number, o: Partial<TrajectoryEntry> = {}): TrajectoryEntry => ({
  seq,
  tool: 'run_cell',
  arguments: {},
  ok: true,
  summary: 'ok',
  ms: 100,
  ...o,
});
const session = (id: string, entries: TrajectoryEntry[]): TrajectorySession => ({
  session: id,
  file: `/t/${id}.jsonl`,
  entries,
});
const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();

const sessions = [
  // A second attempt at repair-a: wall time from its first start to its last end.
  session('repair-a-2', [
    entry(1, { tool: 'open_task', at: at(10), ms: 500, task_id: 'repair-a', instance: 'pandas_1' }),
    entry(2, { at: at(12), ms: 3000, task_id: 'repair-a', instance: 'pandas_1', ok: false }),
    entry(3, { tool: 'submit', at: at(20), ms: 250, task_id: 'repair-a', instance: 'pandas_1', attempt: 2 }),
  ]),
  session('repair-a-1', [
    entry(1, { at: at(0), ms: 1000, task_id: 'repair-a' }),
    entry(2, { tool: 'submit', at: at(4), ms: 200, task_id: 'repair-a', attempt: 1 }),
  ]),
  // An older log without start times nor task: the sum of the calls, the task from the session id.
  session('detect-b-1', [entry(1, { ms: 40 }), entry(2, { ms: 60 }), entry(3, { ms: 7 })]),
  // Never submitted (the session was closed, or ran out of calls).
  session('repair-c-1', [entry(1, { at: at(0), ms: 10, task_id: 'repair-c' })]),
];

describe('summarizeTrajectories', () => {
  it('counts the calls and the time of each session, under its task and attempt, with totals and medians', () => {
    const t = summarizeTrajectories(sessions);
    expect(t.sessions).toEqual([
      {
        session: 'detect-b-1',
        task: 'detect-b',
        submitted: false,
        calls: 3,
        refused: 0,
        ms: 107,
        timing: 'calls',
      },
      {
        session: 'repair-a-1',
        task: 'repair-a',
        attempt: 1,
        submitted: true,
        calls: 2,
        refused: 0,
        ms: 4200,
        timing: 'wall',
      },
      {
        session: 'repair-a-2',
        task: 'repair-a',
        instance: 'pandas_1',
        attempt: 2,
        submitted: true,
        calls: 3,
        refused: 1,
        ms: 10250,
        timing: 'wall',
      },
      { session: 'repair-c-1', task: 'repair-c', submitted: false, calls: 1, refused: 0, ms: 10, timing: 'wall' },
    ]);
    expect(t.totals).toEqual({ sessions: 4, submitted: 2, calls: 9, ms: 14567 });
    expect(t.medians).toEqual({ calls: 2.5, ms: 2153.5 });
  });

  it('gives the same figures whatever order the sessions come in, and zeros without sessions', () => {
    expect(summarizeTrajectories([...sessions].reverse())).toEqual(summarizeTrajectories(sessions));
    expect(summarizeTrajectories([])).toEqual({
      sessions: [],
      totals: { sessions: 0, submitted: 0, calls: 0, ms: 0 },
      medians: { calls: 0, ms: 0 },
    });
  });

  it('goes in a valid scorecard, printed and in the Markdown with what the agent logged escaped', () => {
    const hostile = session('repair-x-1', [entry(1, { task_id: '<img src=x onerror=alert(1)>|\n# h', at: at(0) })]);
    const card = {
      tasks: { detect: 0, diagnose: 0, repair: 2, instances: 1 },
      predictions: { lines: 2, scored: 2, problems: [] },
      trajectories: summarizeTrajectories([...sessions, hostile]),
    };
    validateOrThrow('scorecard', card);
    expect(formatScoreSummary(card)).toContain(
      'sessions  5 (2 submitted): 10 tool calls (median 2 per session) · 14.7 s (median 0.1 s per session)',
    );
    const md = renderScorecardMarkdown(card, []);
    expect(md).toContain('| repair-a | 2 | repair-a-2 | 3 | 1 | 10.3 s |');
    expect(md).toContain('| detect-b | not submitted | detect-b-1 | 3 | 0 | 0.1 s* |');
    expect(md).toContain('| &lt;img src=x onerror=alert(1)&gt;\\| # h | not submitted | repair-x-1 |');
    expect(md).not.toContain('<img');
  });
});
