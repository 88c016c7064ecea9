import { validateInstanceId } from '@junobench/core';
import type { ReportData } from './report-data.js';
import { renderIndexPage } from './render-index.js';
import { renderInstancePage } from './render-instance.js';
import { renderTriagePage } from './render-triage.js';
import { renderStatsPage } from './render-stats.js';
import { renderLeaderboardPage } from './render-leaderboard.js';

export interface ReportFile {
  /** Relative to the report folder, `/`-separated. */
  path: string;
  content: string;
}

export interface ReportPlan {
  files: ReportFile[];
  /** Total bytes (UTF-8) of every page. */
  bytes: number;
  /** The heaviest instance page: what one instance costs a reader. */
  largestInstancePage?: { path: string; bytes: number };
}

/** Pure: every page of the report, from the curated data. Same data → same bytes. */
export function planReport(data: ReportData): ReportPlan {
  const files: ReportFile[] = [
    { path: 'index.html', content: renderIndexPage(data) },
    { path: 'stats.html', content: renderStatsPage(data) },
    ...(data.triage && data.triage.length > 0
      ? [{ path: 'triage.html', content: renderTriagePage(data.triage, data.name) }]
      : []),
    ...(data.leaderboard
      ? [{ path: 'leaderboard.html', content: renderLeaderboardPage(data.leaderboard, data.name) }]
      : []),
  ];
  let largest: ReportPlan['largestInstancePage'];
  for (const inst of data.instances) {
    const file = {
      path: `instances/${validateInstanceId(inst.id)}.html`,
      content: renderInstancePage(inst, data.name),
    };
    files.push(file);
    const bytes = Buffer.byteLength(file.content, 'utf8');
    if (!largest || bytes > largest.bytes) largest = { path: file.path, bytes };
  }
  const bytes = files.reduce((s, f) => s + Buffer.byteLength(f.content, 'utf8'), 0);
  return { files, bytes, ...(largest ? { largestInstancePage: largest } : {}) };
}
