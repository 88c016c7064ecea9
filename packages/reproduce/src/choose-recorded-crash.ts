import { stripAnsi } from '@junobench/core';
import { listCodeCells, type MinedCrash, type Notebook } from '@junobench/notebook';

export interface RecordedCrash {
  ename: string;
  evalue: string;
  traceback: readonly string[];
}

const norm = (s: string) => stripAnsi(s).replace(/\s+/g, ' ').trim();
const shortName = (e: string) => e.split('.').pop() ?? e;

/**
 * Pure: the saved crash of a notebook that is the one a pool record names —
 * same exception, and the same message (or, failing that, the message that
 * shares the longest start with it) — not simply the first one. Null when
 * none has the record's exception.
 */
export function matchRecordedCrash(crashes: readonly MinedCrash[], recorded: RecordedCrash): number | null {
  const same = crashes.map((c, i) => ({ c, i })).filter(({ c }) => shortName(c.ename) === shortName(recorded.ename));
  if (same.length === 0) return null;
  const want = norm(recorded.evalue);
  const exact = same.find(({ c }) => norm(c.evalue) === want);
  if (exact) return exact.i;
  let best = same[0]!;
  let bestLen = -1;
  for (const s of same) {
    const v = norm(s.c.evalue);
    let k = 0;
    while (k < v.length && k < want.length && v[k] === want[k]) k++;
    if (k > bestLen) [best, bestLen] = [s, k];
  }
  return best.i;
}

/**
 * Pure: the code cell a recorded traceback points at, for a notebook saved
 * without outputs (what `kaggle kernels pull` gives): the cell whose source
 * holds the lines the traceback's first frame shows (`----> 5 df['x']`, and
 * the lines around it), the earliest such cell when several do. Null when
 * no cell does.
 */
export function locateCrashCell(nb: Notebook, traceback: readonly string[]): number | null {
  const lines = traceback.flatMap((t) => stripAnsi(t).split('\n'));
  // The notebook's own frame: the first `Cell In[..]` / `<ipython-input-..>` / `Input In [..]` block.
  const start = lines.findIndex((l) => /Cell In\s*\[|<ipython-input-|Input In \[|^\s*File "<ipython/.test(l));
  const frame: string[] = [];
  for (let i = start < 0 ? 0 : start + 1; i < lines.length; i++) {
    const l = lines[i]!;
    if (/^\s*(?:File "|Cell In\s*\[|<ipython-input-|~?\/|\S+\.py in )/.test(l) && frame.length > 0) break;
    const m = /^\s*(?:-+>\s*)?(\d+)\s(.*)$/.exec(l);
    if (m && m[2]!.trim() !== '') frame.push(norm(m[2]!));
  }
  const arrow = lines.slice(Math.max(0, start)).find((l) => /^\s*-+>\s*\d+\s/.test(l));
  const key = arrow ? norm(/^\s*-+>\s*\d+\s(.*)$/.exec(arrow)![1]!) : frame[0];
  if (!key) return null;
  const cells = listCodeCells(nb);
  const scored = cells
    .map((c) => {
      const src = new Set(c.source.split('\n').map(norm));
      return { index: c.index, has: src.has(key), score: frame.filter((f) => src.has(f)).length };
    })
    .filter((c) => c.has);
  if (scored.length === 0) return null;
  scored.sort((a, b) => b.score - a.score || a.index - b.index);
  return scored[0]!.index;
}
