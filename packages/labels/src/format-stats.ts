import { LABEL_DIMENSIONS, type LabelDimension } from '@junobench/core';
import { DIMENSION_TITLES } from './check-label.js';
import type { BenchmarkStats, CrossTable } from '@junobench/core';

/** The statistics as Markdown: one count table per dimension, then the cross-tables. */
export function formatStatsMarkdown(stats: BenchmarkStats, title = 'Benchmark statistics'): string {
  const lines: string[] = [`# ${title}`, '', `${stats.total} instance${stats.total === 1 ? '' : 's'}.`];
  for (const d of LABEL_DIMENSIONS) {
    const name = DIMENSION_TITLES[d];
    lines.push('', `## ${capitalize(name)}`, '', row([name, 'count', 'share']), row(['---', '--:', '--:']));
    for (const c of stats.counts[d]) lines.push(row([displayLabel(d, c.value), String(c.count), formatShare(c.share)]));
    lines.push(row(['**total**', `**${stats.total}**`, stats.total > 0 ? '**100.0%**' : '']));
  }
  for (const t of stats.crossTables) lines.push('', ...formatCrossTable(t));
  return `${lines.join('\n')}\n`;
}

function formatCrossTable(t: CrossTable): string[] {
  const rowName = DIMENSION_TITLES[t.rows];
  const colName = DIMENSION_TITLES[t.columns];
  const lines = [`## ${capitalize(rowName)} × ${colName}`, ''];
  lines.push(row([`${rowName} \\ ${colName}`, ...t.columnValues.map((v) => displayLabel(t.columns, v)), 'total']));
  lines.push(row(['---', ...t.columnValues.map(() => '--:'), '--:']));
  t.rowValues.forEach((v, r) =>
    lines.push(
      row([displayLabel(t.rows, v), ...t.counts[r]!.map((c) => (c === 0 ? '·' : String(c))), String(t.rowTotals[r])]),
    ),
  );
  const total = t.rowTotals.reduce((s, x) => s + x, 0);
  lines.push(row(['**total**', ...t.columnTotals.map((c) => `**${c}**`), `**${total}**`]));
  return lines;
}

/**
 * A label as people read it in tables and charts: the library "None" is a
 * crash no library caused (plain Python or notebook state), which a bare
 * "None" does not say. Data files keep the vocabulary value.
 */
export function displayLabel(dimension: LabelDimension, value: string): string {
  return dimension === 'library' && value === 'None' ? 'None (no library)' : value;
}

/** 0.4054 → "40.5%". */
export function formatShare(share: number): string {
  return `${(Math.round(share * 1000) / 10).toFixed(1)}%`;
}

function row(cells: readonly string[]): string {
  return `| ${cells.map((c) => c.replace(/(?<!\\)\|/g, '\\|')).join(' | ')} |`;
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
