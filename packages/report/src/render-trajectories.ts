import type { TrajectoryEntry, TrajectorySession } from '@junobench/core';
import { escapeHtml } from './escape-html.js';
import { formatMs, renderBadge } from './render-page.js';

/** Most sessions shown on one instance page, and most calls per session: a page stays bounded whatever was logged. */
export const MAX_SESSIONS_SHOWN = 50;
export const MAX_CALLS_SHOWN = 300;
/** Code in an argument is shown up to this many characters; other arguments up to a line's worth. */
const MAX_CODE_CHARS = 2000;
const MAX_VALUE_CHARS = 200;

/**
 * The agents' sessions on this instance (`report --trajectories`): each a table of its calls in order, with the
 * tool, its arguments, what came of it and its time. Every logged value is an agent's text and is escaped.
 */
export function renderTrajectories(sessions: readonly TrajectorySession[] | undefined): string {
  if (!sessions || sessions.length === 0) return '';
  const shown = sessions.slice(0, MAX_SESSIONS_SHOWN);
  const out = [
    '<section aria-labelledby="trajectories"><h2 id="trajectories">Agent sessions</h2>',
    `<p class="muted">${sessions.length} session${sessions.length > 1 ? 's' : ''} from the trajectories of <code>junobench serve</code>: each call as the agent made it (long arguments cut) and a summary of what it returned.</p>`,
    ...shown.map(renderSession),
  ];
  if (sessions.length > shown.length)
    out.push(`<p class="muted">… and ${sessions.length - shown.length} more sessions, not shown.</p>`);
  out.push('</section>');
  return out.join('\n');
}

function renderSession(s: TrajectorySession): string {
  const submit = s.entries.findLast((e) => e.tool === 'submit' && e.ok);
  const task = s.entries.find((e) => e.task_id !== undefined)?.task_id;
  const ms = s.entries.reduce((a, e) => a + e.ms, 0);
  const head = [
    `<code>${escapeHtml(s.session)}</code>`,
    task !== undefined ? `task <code>${escapeHtml(task)}</code>` : '',
    `${s.entries.length} call${s.entries.length === 1 ? '' : 's'}, ${formatMs(ms)} in calls`,
    submit
      ? renderBadge(submit.attempt !== undefined ? `submitted (attempt ${submit.attempt})` : 'submitted', 'ok')
      : renderBadge('not submitted', 'warn'),
  ]
    .filter(Boolean)
    .join(' · ');
  const rows = s.entries.slice(0, MAX_CALLS_SHOWN).map(renderCall);
  const more =
    s.entries.length > MAX_CALLS_SHOWN
      ? `<p class="muted">… and ${s.entries.length - MAX_CALLS_SHOWN} more calls, not shown.</p>`
      : '';
  return (
    `<details class="trajectory"><summary>${head}</summary>` +
    '<table><thead><tr><th scope="col">#</th><th scope="col">tool</th><th scope="col">arguments</th><th scope="col">result</th><th scope="col">time</th></tr></thead>' +
    `<tbody>${rows.join('')}</tbody></table>${more}</details>`
  );
}

function renderCall(e: TrajectoryEntry): string {
  const status = e.ok ? '' : `${renderBadge('refused', 'bad')} `;
  const when = e.at !== undefined ? `<br><span class="muted">${escapeHtml(e.at)}</span>` : '';
  return (
    `<tr><td>${e.seq}</td><td><code>${escapeHtml(e.tool)}</code></td><td>${renderArguments(e.arguments)}</td>` +
    `<td>${status}${escapeHtml(e.summary)}</td><td>${escapeHtml(formatMs(e.ms))}${when}</td></tr>`
  );
}

/** The arguments but the session id (the session's heading has it): code as a block, the rest on a line each. */
export function renderArguments(args: unknown): string {
  if (args === null || typeof args !== 'object' || Array.isArray(args))
    return `<code>${escapeHtml(cut(JSON.stringify(args) ?? String(args), MAX_VALUE_CHARS))}</code>`;
  const parts = Object.entries(args)
    .filter(([k]) => k !== 'session_id')
    .map(([k, v]) => {
      if (typeof v === 'string' && (k === 'code' || k === 'source' || v.includes('\n')))
        return `<div>${escapeHtml(k)}:<pre>${escapeHtml(cut(v, MAX_CODE_CHARS))}</pre></div>`;
      const text = typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v));
      return `<div>${escapeHtml(k)}: <code>${escapeHtml(cut(text.replace(/\s+/g, ' '), MAX_VALUE_CHARS))}</code></div>`;
    });
  return parts.join('');
}

const cut = (s: string, max: number): string =>
  s.length > max ? `${s.slice(0, max)}… (${s.length - max} more characters)` : s;
