import { cellSource, type CellOutput, type Notebook, type NotebookCell } from '@junobench/notebook';
import type { CellResult } from '@junobench/core';
import { convertAnsiToHtml } from './ansi-to-html.js';
import { diffLines, findReorderedPairs, planCellDiff, type CellPair, type DiffCell } from './diff-cells.js';
import { escapeHtml } from './escape-html.js';
import { formatMs, renderBadge } from './render-page.js';

/** Longest text output shown per output (characters); the rest is cut with a note. */
export const MAX_OUTPUT_CHARS = 20_000;
/** Largest embedded output image (bytes of base64); bigger ones are named, not shown. */
export const MAX_IMAGE_BASE64 = 300_000;

/** What the side-by-side view marks on the reproduced (left) or fixed (right) notebook. */
export interface NotebookMarks {
  /** Per code-cell index: what verification saw. */
  cells?: readonly CellResult[];
  /** Code-cell index where the crash is expected (instance.json). */
  expectedCrashCell?: number;
  /** Code-cell index where the observed crash happened, and its traceback. */
  observed?: { cell: number; traceback?: readonly string[]; ename: string; evalue: string };
  /** Element id of the crash cell, for links to it (unique per page). */
  anchor?: string;
  /** Code-cell indices in the order the notebook is run (planExecution). */
  runOrder?: readonly number[];
  /** Show each cell's place in the run (the order is not simply top to bottom). */
  showRunOrder?: boolean;
}

export interface NotebookDiffSummary {
  same: number;
  changed: number;
  added: number;
  removed: number;
  /** Pairs run in a different order (counted besides same/changed). */
  reordered: number;
}

/** Cells of a notebook with their code-cell numbering (what crash.cell counts). */
function indexCells(nb: Notebook): { cell: NotebookCell; codeIndex?: number }[] {
  let code = 0;
  return nb.cells.map((cell) => (cell.cell_type === 'code' ? { cell, codeIndex: code++ } : { cell }));
}

export function toDiffCells(nb: Notebook): DiffCell[] {
  return nb.cells.map((c) => ({ kind: c.cell_type, source: cellSource(c) }));
}

/**
 * Reproduced and fixed side by side, one row per aligned pair of cells;
 * changed cells show their line diff (removed lines struck on the left, added
 * lines marked on the right), and the crash cell carries its traceback.
 */
export function renderNotebookDiff(
  left: Notebook,
  right: Notebook,
  marks: { left: NotebookMarks; right: NotebookMarks },
): { html: string; summary: NotebookDiffSummary } {
  const l = indexCells(left);
  const r = indexCells(right);
  const pairs = planCellDiff(toDiffCells(left), toDiffCells(right));
  const reordered = findReorderedPairs(
    pairs,
    runPositions(l, marks.left.runOrder),
    runPositions(r, marks.right.runOrder),
  );
  const summary: NotebookDiffSummary = { same: 0, changed: 0, added: 0, removed: 0, reordered: reordered.size };
  const rows = pairs.map((p, i) => {
    summary[p.status]++;
    return renderPair(p, l, r, marks, reordered.has(i));
  });
  return { html: rows.join('\n'), summary };
}

/** Cell index (among all cells) → position in the run, from code-cell indices in run order. */
function runPositions(cells: ReturnType<typeof indexCells>, order: readonly number[] | undefined): Map<number, number> {
  const byCode = new Map<number, number>();
  (order ?? []).forEach((code, pos) => {
    if (!byCode.has(code)) byCode.set(code, pos);
  });
  const out = new Map<number, number>();
  cells.forEach((c, i) => {
    if (c.codeIndex !== undefined && byCode.has(c.codeIndex)) out.set(i, byCode.get(c.codeIndex)!);
  });
  return out;
}

/** One notebook alone (when the other version is missing). */
export function renderNotebookAlone(nb: Notebook, marks: NotebookMarks): string {
  return indexCells(nb)
    .map((c) => `<div class="nb-row same">${renderCell(c, undefined, marks, 'same', false)}</div>`)
    .join('\n');
}

function renderPair(
  p: CellPair,
  l: ReturnType<typeof indexCells>,
  r: ReturnType<typeof indexCells>,
  marks: { left: NotebookMarks; right: NotebookMarks },
  reordered: boolean,
): string {
  const lc = p.left !== undefined ? l[p.left]! : undefined;
  const rc = p.right !== undefined ? r[p.right]! : undefined;
  let lLines: string | undefined;
  let rLines: string | undefined;
  if (p.status === 'changed' && lc && rc) {
    const ops = diffLines(cellSource(lc.cell), cellSource(rc.cell));
    const line = (tag: string, cls: string, text: string) => `<${tag} class="ln ${cls}">${escapeHtml(text)}</${tag}>`;
    lLines = ops
      .filter((o) => o.op !== 'ins')
      .map((o) => (o.op === 'del' ? line('del', 'del', o.text) : line('span', 'same', o.text)))
      .join('');
    rLines = ops
      .filter((o) => o.op !== 'del')
      .map((o) => (o.op === 'ins' ? line('ins', 'ins', o.text) : line('span', 'same', o.text)))
      .join('');
  }
  const empty = (side: string) => `<div class="cell empty"><div class="cell-head">no cell in ${side}</div></div>`;
  return [
    // A reordered row is not "same": "show only the cells that differ" keeps it.
    `<div class="nb-row ${p.status === 'same' && reordered ? 'reordered' : p.status}">`,
    lc ? renderCell(lc, lLines, marks.left, p.status, reordered) : empty('reproduced'),
    rc ? renderCell(rc, rLines, marks.right, p.status, reordered) : empty('fixed'),
    '</div>',
  ].join('');
}

function renderCell(
  c: { cell: NotebookCell; codeIndex?: number },
  diffHtml: string | undefined,
  marks: NotebookMarks,
  status: CellPair['status'],
  reordered: boolean,
): string {
  const { cell, codeIndex } = c;
  const head: string[] = [];
  if (cell.cell_type === 'code') {
    head.push(`<span>code cell ${codeIndex}</span>`);
    if (cell.execution_count !== null && cell.execution_count !== undefined)
      head.push(`<span class="mono">[${cell.execution_count}]</span>`);
  } else head.push(`<span>${cell.cell_type}</span>`);
  if (marks.showRunOrder && codeIndex !== undefined) {
    const pos = marks.runOrder?.indexOf(codeIndex) ?? -1;
    head.push(`<span>${pos >= 0 ? `runs ${ordinal(pos + 1)}` : 'not replayed'}</span>`);
  }
  if (status !== 'same') head.push(renderBadge(status, status));
  if (reordered) head.push(renderBadge('run order changed', 'changed'));
  const runs = codeIndex !== undefined ? (marks.cells ?? []).filter((x) => x.index === codeIndex) : [];
  const lastRun = runs.at(-1);
  if (lastRun) {
    const total = runs.reduce((s, x) => s + x.durationMs, 0);
    if (lastRun.status !== 'ok')
      head.push(
        renderBadge(
          lastRun.status === 'not-run' ? 'not run' : lastRun.status,
          lastRun.status === 'not-run' ? 'not-run' : 'bad',
        ),
      );
    if (lastRun.status !== 'not-run')
      head.push(`<span>${formatMs(total)}${runs.length > 1 ? ` (${runs.length} runs)` : ''}</span>`);
  }
  const isObserved = codeIndex !== undefined && marks.observed?.cell === codeIndex;
  const isExpected = codeIndex !== undefined && marks.expectedCrashCell === codeIndex;
  if (isObserved) head.push(renderBadge('crash', 'crash'));
  if (isExpected && !isObserved)
    head.push(renderBadge(marks.observed ? 'crash expected here' : 'crash expected', 'warn'));
  const id = marks.anchor && (isObserved || (isExpected && !marks.observed)) ? ` id="${escapeHtml(marks.anchor)}"` : '';
  const source = diffHtml ?? escapeHtml(cellSource(cell));
  const body = `<pre class="${cell.cell_type === 'markdown' ? 'md' : 'code'}">${source}</pre>`;
  const outputs = cell.cell_type === 'code' ? cell.outputs.map(renderOutput).join('') : '';
  let traceback = '';
  if (isObserved && marks.observed) {
    const o = marks.observed;
    const lines = o.traceback && o.traceback.length > 0 ? o.traceback.join('\n') : `${o.ename}: ${o.evalue}`;
    traceback = `<div class="traceback"><p class="tb-title">Observed in verification: ${escapeHtml(o.ename)}</p><pre class="ansi scroll" tabindex="0">${convertAnsiToHtml(truncate(lines))}</pre></div>`;
  }
  return `<div class="cell${isObserved ? ' crash' : ''}"${id}><div class="cell-head">${head.join('')}</div>${body}${outputs}${traceback}</div>`;
}

/** A saved output, escaped; HTML and JavaScript outputs are never rendered as markup. */
export function renderOutput(o: CellOutput): string {
  if (o.output_type === 'stream')
    return `<div class="output"><pre class="ansi">${convertAnsiToHtml(truncate(joinText(o.text)))}</pre></div>`;
  if (o.output_type === 'error') {
    return `<div class="output traceback"><p class="tb-title">${escapeHtml(o.ename)}</p><pre class="ansi">${convertAnsiToHtml(truncate(o.traceback.join('\n')))}</pre></div>`;
  }
  const data = o.data ?? {};
  for (const mime of ['image/png', 'image/jpeg'] as const) {
    const raw = data[mime];
    if (raw === undefined) continue;
    const b64 = joinText(raw as string | string[]).replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64))
      return `<div class="output"><p class="muted">[${mime} output: not valid base64, not shown]</p></div>`;
    if (b64.length > MAX_IMAGE_BASE64)
      return `<div class="output"><p class="muted">[${mime} output of ${Math.round((b64.length * 3) / 4 / 1024)} KB not embedded]</p></div>`;
    const alt =
      data['text/plain'] !== undefined
        ? truncate(joinText(data['text/plain'] as string | string[]), 200)
        : 'notebook output image';
    return `<div class="output"><img alt="${escapeHtml(alt)}" src="data:${mime};base64,${b64}"></div>`;
  }
  if (data['text/plain'] !== undefined)
    return `<div class="output"><pre class="ansi">${convertAnsiToHtml(truncate(joinText(data['text/plain'] as string | string[])))}</pre></div>`;
  const kinds = Object.keys(data).sort();
  return kinds.length > 0
    ? `<div class="output"><p class="muted">[${escapeHtml(kinds.join(', '))} output not shown]</p></div>`
    : '';
}

function joinText(t: string | string[] | unknown): string {
  if (Array.isArray(t)) return t.map(String).join('');
  return typeof t === 'string' ? t : String(t);
}

function ordinal(n: number): string {
  const suffix = n % 100 >= 11 && n % 100 <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}

export function truncate(s: string, max = MAX_OUTPUT_CHARS): string {
  return s.length > max ? `${s.slice(0, max)}\n… (${s.length - max} more characters not shown)` : s;
}
