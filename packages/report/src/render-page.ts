import { createHash } from 'node:crypto';
import { escapeHtml, formatRelativeHref } from './escape-html.js';
import { REPORT_CSS } from './report-style.js';

/** Marks pages as ours: writeReport only ever replaces a folder holding such an index. */
export const GENERATOR = 'junobench report';

export interface PageParts {
  title: string;
  /** From this page to the report's root folder: '' or '../'. */
  root: string;
  /** Which top-level page this is (marks the navigation link). */
  section: 'index' | 'stats' | 'instance' | 'triage' | 'leaderboard';
  /** Whether the report has a triage page (linked from the navigation). */
  triage?: boolean;
  /** Whether the report has a leaderboard page (linked from the navigation). */
  leaderboard?: boolean;
  /** Already-escaped HTML of the page body. */
  body: string;
  /** The page's one script (trusted, ours), inlined and allowed by its hash. */
  script?: string;
  benchmark: string;
}

/**
 * A whole page. Stylesheet and script are inlined (the report opens from disk
 * with no server and no network) and are the only ones the
 * Content-Security-Policy admits, by hash: markup that slipped through
 * escaping could still not run a script, load anything from the network, or
 * style itself. Images only from data: URIs (charts, notebook images).
 */
export function renderPage(p: PageParts): string {
  const styleHash = sha256Base64(REPORT_CSS);
  const scriptSrc = p.script ? `'${sha256Base64(p.script)}'` : `'none'`;
  const csp = [
    "default-src 'none'",
    `script-src ${scriptSrc}`,
    `style-src '${styleHash}'`,
    'img-src data:',
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  const nav = (href: string, label: string, current: boolean) =>
    `<a href="${escapeHtml(formatRelativeHref(p.root, href))}"${current ? ' aria-current="page"' : ''}>${label}</a>`;
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">`,
    '<meta name="referrer" content="no-referrer">',
    `<meta name="generator" content="${GENERATOR}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(p.title)}</title>`,
    `<style>${REPORT_CSS}</style>`,
    '</head>',
    '<body>',
    '<a class="skip" href="#main">Skip to content</a>',
    `<header class="top"><span class="brand">${escapeHtml(p.benchmark)}</span><nav aria-label="Report">${nav('index.html', 'Instances', p.section === 'index')}${nav('stats.html', 'Statistics', p.section === 'stats')}${p.triage || p.section === 'triage' ? nav('triage.html', 'Triage', p.section === 'triage') : ''}${p.leaderboard || p.section === 'leaderboard' ? nav('leaderboard.html', 'Leaderboard', p.section === 'leaderboard') : ''}</nav></header>`,
    `<main id="main">${p.body}</main>`,
    p.script ? `<script>${p.script}</script>` : '',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

export function sha256Base64(text: string): string {
  return `sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}`;
}

/** Milliseconds as people read them: 850 ms, 4.0 s, 2 min 13 s. */
export function formatMs(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return '';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}

/** A badge; `kind` picks its colour (a class name, never user text). */
export function renderBadge(text: string, kind: string): string {
  return `<span class="badge badge-${kind}">${escapeHtml(text)}</span>`;
}
