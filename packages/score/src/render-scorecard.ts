import { LABEL_DIMENSIONS, type LabelDimension, type Rate, type RepairOutcome, type Scorecard } from '@junobench/core';

const pct = (v: number) => `${(100 * v).toFixed(1)}%`;
const rateText = (r: Rate) => `${pct(r.value)} (${r.correct}/${r.total})`;
const DIMENSION_NAMES: Record<LabelDimension, string> = {
  library: 'library',
  crashType: 'crash type',
  rootCause: 'root cause',
  pipelineStage: 'pipeline stage',
};
const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
// What an agent's run logged is untrusted text: no markup and no control characters in the Markdown.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/g;
const untrusted = (s: string) =>
  cell(s.replace(CONTROL, ' ')).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
/** Milliseconds as seconds with one decimal (minutes past 100 s): the same figure for the same logs. */
const formatMs = (ms: number): string =>
  ms >= 100_000 ? `${(ms / 60_000).toFixed(1)} min` : `${(ms / 1000).toFixed(1)} s`;

/** A few lines for the terminal. */
export function formatScoreSummary(card: Scorecard): string {
  const out: string[] = [];
  const d = card.detect;
  if (d) {
    out.push(
      `detect    ${d.tasks} tasks: crash ${rateText(d.single.crash)} · cell ${rateText(d.single.cell)} · exception ${rateText(d.single.exception)}`,
    );
    if (d.attempts > 1) {
      out.push(
        `          majority of ${d.attempts} attempts: crash ${rateText(d.majority.crash)} · cell ${rateText(d.majority.cell)} · exception ${rateText(d.majority.exception)}`,
      );
    }
  }
  const g = card.diagnose;
  if (g) {
    const dims = LABEL_DIMENSIONS.map(
      (k) =>
        `${DIMENSION_NAMES[k]} ${pct(g.dimensions[k].single.accuracy.value)} (F1 ${g.dimensions[k].single.macroF1.toFixed(2)})`,
    );
    out.push(`diagnose  ${g.tasks} tasks: ${dims.join(' · ')}`);
    if (g.attempts > 1) {
      const maj = LABEL_DIMENSIONS.map((k) => `${DIMENSION_NAMES[k]} ${pct(g.dimensions[k].majority.accuracy.value)}`);
      out.push(`          majority of ${g.attempts} attempts: ${maj.join(' · ')}`);
    }
  }
  const r = card.repair;
  if (r) {
    const ks = r.passAtK.map((p) => `pass@${p.k} ${pct(p.value)}`).join(' · ');
    out.push(`repair    ${r.scorable} scorable tasks: resolved ${rateText(r.resolved)} · ${ks}`);
    for (const e of r.excluded) out.push(`          excluded ${e.instance} (${e.task}): ${e.reason}`);
    const unresolved = Object.entries(r.outcomes)
      .filter(([o]) => o !== 'resolved')
      .map(([o, n]) => `${o} ${n}`);
    if (unresolved.length > 0) out.push(`          unresolved attempts: ${unresolved.join(', ')}`);
  }
  const tr = card.trajectories;
  if (tr) {
    const t = tr.totals;
    out.push(
      `sessions  ${t.sessions} (${t.submitted} submitted): ${t.calls} tool calls (median ${tr.medians.calls} per session) · ${formatMs(t.ms)} (median ${formatMs(tr.medians.ms)} per session)`,
    );
  }
  const p = card.predictions;
  out.push(
    `predictions: ${p.lines} lines, ${p.scored} scored${p.problems.length > 0 ? `, ${p.problems.length} left out` : ''}`,
  );
  return out.join('\n');
}

// Outcomes only a run gives; the others are decided before (static check) or without (no answer) one.
const RUN_OUTCOMES: ReadonlySet<RepairOutcome> = new Set<RepairOutcome>([
  'resolved',
  'crashed',
  'timeout',
  'kernel-died',
  'failed',
  'not-executed',
  'checks-failed',
]);
// Suppressed and invalid come from the static check or, with runtime evidence, from a run.
const countExecutedRepairs = (card: Scorecard) =>
  (card.repair?.results ?? []).filter((r) => RUN_OUTCOMES.has(r.outcome) || r.evidence).length;

/** The scorecard as Markdown, with the charts written beside it. */
export function renderScorecardMarkdown(card: Scorecard, charts: readonly string[]): string {
  const t = card.tasks;
  const out: string[] = [
    '# Scorecard',
    '',
    `Tasks: ${t.detect} detect, ${t.diagnose} diagnose, ${t.repair} repair, from ${t.instances} instances. ` +
      `Predictions: ${card.predictions.lines} lines, ${card.predictions.scored} scored, ${card.predictions.problems.length} left out. A missing prediction counts as wrong.`,
    '',
  ];
  // With several attempts the two scores treat a missing attempt differently; say so where the figures are read.
  if (Math.max(card.detect?.attempts ?? 1, card.diagnose?.attempts ?? 1) > 1) {
    out.splice(
      -1,
      0,
      'In the majority vote a missing attempt abstains: the answers given decide, and a task with no answer in any attempt is wrong.',
    );
  }
  if (card.runtime) {
    const where = `the **${card.runtime.kind}** runtime (${card.runtime.sandboxed ? 'sandboxed' : 'not sandboxed'})`;
    out.push(
      countExecutedRepairs(card) > 0
        ? `Repairs were executed in ${where}.`
        : `No repaired notebook was executed (no repair answer reached execution); the repair tasks were checked against ${where}, whose modules decide which tasks are excluded.`,
      '',
    );
  }
  const d = card.detect;
  if (d) {
    out.push(
      '## Detect',
      '',
      // Counted, not assumed: an exported file is half crashing by construction, a tasks file cut by the user need not
      // be.
      `${d.tasks} tasks (${d.results.filter((r) => r.crashes).length} crash), ${d.attempts} attempt${d.attempts > 1 ? 's' : ''} per task.`,
      '',
      '| metric | single | majority vote |',
      '|---|---|---|',
      `| crash / no crash | ${rateText(d.single.crash)} | ${rateText(d.majority.crash)} |`,
      `| crashing cell | ${rateText(d.single.cell)} | ${rateText(d.majority.cell)} |`,
      `| exception class (crashing tasks) | ${rateText(d.single.exception)} | ${rateText(d.majority.exception)} |`,
      '',
      `Majority answers: ${d.confusion.truePositive} true positives, ${d.confusion.falsePositive} false positives, ${d.confusion.trueNegative} true negatives, ${d.confusion.falseNegative} false negatives, ${d.confusion.missing} missing.`,
      '',
    );
    if (charts.includes('detect.svg')) out.push('![detect](detect.svg)', '');
  }
  const g = card.diagnose;
  if (g) {
    out.push(
      '## Diagnose',
      '',
      `${g.tasks} tasks, ${g.attempts} attempt${g.attempts > 1 ? 's' : ''} per task.`,
      '',
      '| dimension | accuracy | macro-F1 | accuracy (majority) | macro-F1 (majority) |',
      '|---|---|---|---|---|',
      ...LABEL_DIMENSIONS.map((k) => {
        const s = g.dimensions[k];
        return `| ${DIMENSION_NAMES[k]} | ${rateText(s.single.accuracy)} | ${s.single.macroF1.toFixed(3)} | ${rateText(s.majority.accuracy)} | ${s.majority.macroF1.toFixed(3)} |`;
      }),
      '',
      '### Per library (majority answers)',
      '',
      `| library | tasks | ${LABEL_DIMENSIONS.map((k) => DIMENSION_NAMES[k]).join(' | ')} |`,
      `|---|---|${LABEL_DIMENSIONS.map(() => '---').join('|')}|`,
      ...g.perLibrary.map(
        (row) =>
          `| ${cell(row.library)} | ${row.tasks} | ${LABEL_DIMENSIONS.map((k) => rateText(row.accuracy[k])).join(' | ')} |`,
      ),
      '',
    );
    for (const k of LABEL_DIMENSIONS)
      if (charts.includes(`diagnose-${k}.svg`)) out.push(`![${DIMENSION_NAMES[k]}](diagnose-${k}.svg)`, '');
  }
  const r = card.repair;
  if (r) {
    out.push(
      '## Repair',
      '',
      `${r.tasks} tasks, ${r.scorable} scorable, ${r.attempts} attempt${r.attempts > 1 ? 's' : ''} per task. Resolved: does what the fix does — runs to the end without an exception, every code cell of the crashing notebook still there and executed (the crash cell included), nothing hidden (no exception handler or constant-false guard added; at run time, no exception of the labelled class swallowed and no library function replaced) and every check of the instance (what the fix must achieve, run after the last cell) passed.`,
      '',
      '| metric | value |',
      '|---|---|',
      `| resolved (all attempts) | ${rateText(r.resolved)} |`,
      ...r.passAtK.map((p) => `| pass@${p.k} | ${pct(p.value)} |`),
      '',
      `Outcomes: ${Object.entries(r.outcomes)
        .map(([o, n]) => `${o} ${n}`)
        .join(', ')}.`,
      '',
    );
    if (r.excluded.length > 0) {
      out.push(
        'Excluded (never counted as resolved; not in the shares):',
        '',
        ...r.excluded.map((e) => `- ${e.instance} (${e.task}): ${e.reason}`),
        '',
      );
    }
    const bad = r.results.filter((x) => !x.resolved);
    if (bad.length > 0) {
      out.push(
        '### Unresolved attempts',
        '',
        '| instance | task | attempt | outcome | reason |',
        '|---|---|---|---|---|',
      );
      for (const x of bad)
        out.push(`| ${cell(x.instance)} | ${x.task} | ${x.attempt} | ${x.outcome} | ${cell(x.reason ?? '')} |`);
      out.push('');
    }
    if (charts.includes('repair.svg')) out.push('![repair](repair.svg)', '');
  }
  if (card.trajectories) out.push(...renderTrajectoriesMarkdown(card.trajectories));
  if (card.predictions.problems.length > 0) {
    out.push('## Lines left out', '', ...card.predictions.problems.map((p) => `- line ${p.line}: ${p.message}`), '');
  }
  return out.join('\n');
}

function renderTrajectoriesMarkdown(tr: NonNullable<Scorecard['trajectories']>): string[] {
  const t = tr.totals;
  return [
    '## Sessions',
    '',
    `From the trajectories: ${t.sessions} sessions, ${t.submitted} submitted; ${t.calls} tool calls in all (median ${tr.medians.calls} per session), ${formatMs(t.ms)} in all (median ${formatMs(tr.medians.ms)} per session). A session's time runs from its first call's start to its last call's end (or, marked *, is the sum of its calls, in logs without start times).`,
    '',
    '| task | attempt | session | calls | refused | time |',
    '|---|---|---|---|---|---|',
    ...tr.sessions.map(
      (r) =>
        `| ${untrusted(r.task)} | ${r.attempt ?? 'not submitted'} | ${untrusted(r.session)} | ${r.calls} | ${r.refused} | ${formatMs(r.ms)}${r.timing === 'calls' ? '*' : ''} |`,
    ),
    '',
  ];
}

export interface Bar {
  label: string;
  /** In [0, 1]. */
  value: number;
  /** Shown after the value, e.g. the counts. */
  note?: string;
  /** Show the value as a score in [0, 1] (F1) rather than a percentage. */
  decimal?: boolean;
}

const escapeXml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A horizontal bar chart of shares in [0, 1], as a self-contained SVG (no scripts, no fonts to fetch). */
export function renderBarChart(title: string, bars: readonly Bar[]): string {
  const labelWidth = Math.min(260, 12 + 7 * Math.max(8, ...bars.map((b) => b.label.length)));
  const plot = 360;
  const row = 22;
  const top = 40;
  const valueText = (b: Bar) => `${b.decimal ? b.value.toFixed(3) : pct(b.value)}${b.note ? ` ${b.note}` : ''}`;
  const width = labelWidth + plot + 16 + Math.ceil(7 * Math.max(8, ...bars.map((b) => valueText(b).length)));
  const height = top + row * bars.length + 16;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeXml(title)}" font-family="sans-serif" font-size="12">`,
    `<title>${escapeXml(title)}</title>`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="8" y="22" font-size="14" font-weight="bold" fill="#222222">${escapeXml(title)}</text>`,
  ];
  bars.forEach((b, i) => {
    const y = top + i * row;
    const w = Math.round(Math.max(0, Math.min(1, b.value)) * plot * 10) / 10;
    parts.push(
      `<text x="${labelWidth - 6}" y="${y + 14}" text-anchor="end" fill="#222222">${escapeXml(b.label)}</text>`,
      `<rect x="${labelWidth}" y="${y + 3}" width="${plot}" height="${row - 6}" fill="#eeeeee"/>`,
      `<rect x="${labelWidth}" y="${y + 3}" width="${w}" height="${row - 6}" fill="#3b6ea8"/>`,
      `<text x="${labelWidth + plot + 6}" y="${y + 14}" fill="#222222">${escapeXml(valueText(b))}</text>`,
    );
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}

/** The charts of a scorecard: file name → SVG. One per detect, per diagnose dimension, and per repair. */
export function renderScorecardCharts(card: Scorecard): Map<string, string> {
  const charts = new Map<string, string>();
  const count = (r: Rate) => `(${r.correct}/${r.total})`;
  const d = card.detect;
  if (d) {
    const bars: Bar[] = [
      { label: 'crash / no crash', value: d.single.crash.value, note: count(d.single.crash) },
      { label: 'crashing cell', value: d.single.cell.value, note: count(d.single.cell) },
      { label: 'exception class', value: d.single.exception.value, note: count(d.single.exception) },
    ];
    if (d.attempts > 1) {
      bars.push(
        { label: 'crash (majority)', value: d.majority.crash.value, note: count(d.majority.crash) },
        { label: 'cell (majority)', value: d.majority.cell.value, note: count(d.majority.cell) },
        { label: 'exception (majority)', value: d.majority.exception.value, note: count(d.majority.exception) },
      );
    }
    charts.set('detect.svg', renderBarChart(`Detect: accuracy on ${d.tasks} tasks`, bars));
  }
  const g = card.diagnose;
  if (g) {
    for (const k of LABEL_DIMENSIONS) {
      const s = g.dimensions[k];
      // The per-class scores are those of the majority answers: with several attempts, say so and show the
      // majority's accuracy and macro-F1 too (the mean of those F1 is the majority's macro-F1, not the single one).
      const several = g.attempts > 1;
      const bars: Bar[] = [
        { label: 'accuracy', value: s.single.accuracy.value, note: count(s.single.accuracy) },
        { label: 'macro-F1', value: s.single.macroF1, decimal: true },
        ...(several
          ? [
              { label: 'accuracy (majority)', value: s.majority.accuracy.value, note: count(s.majority.accuracy) },
              { label: 'macro-F1 (majority)', value: s.majority.macroF1, decimal: true },
            ]
          : []),
        ...s.classes.map((c) => ({
          label: `F1 ${c.label}${several ? ' (majority)' : ''}`,
          value: c.f1,
          decimal: true,
          note: `(support ${c.support}, predicted ${c.predicted})`,
        })),
      ];
      charts.set(`diagnose-${k}.svg`, renderBarChart(`Diagnose: ${DIMENSION_NAMES[k]} (${g.tasks} tasks)`, bars));
    }
  }
  const r = card.repair;
  if (r) {
    const bars: Bar[] = [
      { label: 'resolved', value: r.resolved.value, note: count(r.resolved) },
      ...r.passAtK.map((p) => ({ label: `pass@${p.k}`, value: p.value })),
    ];
    charts.set(
      'repair.svg',
      renderBarChart(
        `Repair: ${r.scorable} scorable tasks, ${r.attempts} attempt${r.attempts > 1 ? 's' : ''} each`,
        bars,
      ),
    );
  }
  return charts;
}
