/**
 * Pure: the line a saved traceback shows crashing in the notebook's own cell (IPython marks it `---->  4 text`), when
 * that cell's source no longer holds it: the cell was edited after the run that crashed, and no replay of the saved
 * source can make that crash. Undefined when the traceback shows no such line, or the source still holds it.
 */
export function findEditedCrashLine(
  traceback: readonly string[],
  source: string,
): { line: number; text: string } | undefined {
  // The first frame with a marked line is where the cell's own code called in; it must name the cell.
  const frame = traceback.find((entry) => ARROW.test(entry));
  const m = frame && CELL_FRAME.test(frame) ? ARROW.exec(frame) : null;
  if (!m) return undefined;
  const text = m[2]!.trim();
  if (text.length < 3) return undefined;
  const squeeze = (s: string) => s.replace(/\s+/g, '');
  const wanted = squeeze(text);
  // IPython prints the line as the cell held it; magics and long lines may show transformed or cut, so any line (or
  // the whole source, for a statement split over lines) that holds the text counts as holding it.
  if (squeeze(source).includes(wanted)) return undefined;
  return { line: Number(m[1]), text: text.length > 160 ? `${text.slice(0, 157)}…` : text };
}

/** A frame of the notebook's cell, as IPython's versions name it. */
const CELL_FRAME = /<ipython-input-\d+-[0-9a-f]+>|Input In \[\d*\]|Cell In ?\[\d*\]|<cell line: \d+>/;
const ARROW = /^-*>\s*(\d+)\s(.*)$/m;
