import type { NeedStatus } from './plan-draft-inputs.js';
import type { DataNeed } from './plan-data-needs.js';

export interface InputEditContext {
  /** The original code cell of a reproduced one (cells may have been left out or reordered). */
  originalCell: (reproducedCell: number) => number;
  /** Kaggle input folders rewritten when the notebook was planned (`from → to`), to name a path as the original wrote it. */
  rewrites: readonly string[];
  /** A remark on a path as the original wrote it (e.g. that it is none of a kernel's collected sources). */
  remark?: (originalPath: string) => string | undefined;
}

/**
 * Pure: one warning per input the draft does not have as the notebook had it
 * — a synthetic stand-in, or a file still missing — naming the cell of the
 * original that reads it, the path as the original wrote it and where it is
 * (or goes) under data/. Inputs that are present or downloaded need no
 * warning (their edits are recorded); neither does a file whose absence is
 * the saved crash.
 */
export function describeInputEdits(
  resolved: readonly { need: DataNeed; status: NeedStatus; reason?: string }[],
  context: InputEditContext,
): string[] {
  const out: string[] = [];
  for (const r of resolved) {
    if (r.status === 'present' || r.status === 'downloaded' || r.need.absentInCrash) continue;
    const cells = [...new Set(r.need.cells.map(context.originalCell))].sort((a, b) => a - b);
    const original = originalPath(r.need.read, context.rewrites);
    const remark = context.remark?.(original);
    const reads = `code cell${cells.length === 1 ? '' : 's'} ${cells.join(', ')} of the original read${cells.length === 1 ? 's' : ''} ${original}${remark ? `, ${remark}` : ''}`;
    if (r.status === 'synthetic') {
      out.push(
        `${reads}: no such file was given or collected${r.reason && r.reason !== 'not found' ? ` (${r.reason})` : ''}, so a synthetic stand-in derived from the code is in ${r.need.file} — put the real file there to reproduce on the real data`,
      );
    } else {
      out.push(
        `${reads}: the draft lacks it (${r.reason ?? r.need.underivable ?? 'not found'}) — put it at ${r.need.file}, or give it with --data`,
      );
    }
  }
  return out;
}

function originalPath(read: string, rewrites: readonly string[]): string {
  for (const r of rewrites) {
    const [from, to] = r.split(' → ') as [string, string | undefined];
    if (to === undefined || !to.startsWith('data')) continue;
    if (read === to) return from;
    if (read.startsWith(`${to}/`)) return `${from}${read.slice(to.length)}`;
  }
  return read;
}
