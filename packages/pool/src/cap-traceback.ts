/**
 * Bounds on what a CrashRecord keeps of a traceback. A real traceback is a few
 * kilobytes (a deep RecursionError a few hundred); a 20 MB cell is an export
 * gone wrong or an attack, and kept whole it costs the import hundreds of MB.
 * What is cut is replaced by one marker line saying how much, so nothing is
 * lost silently; the head keeps the first frames, the tail the exception.
 */
export const TRACEBACK_LIMITS = {
  /** Characters kept of the traceback lines, head and tail together. */
  maxChars: 1024 * 1024,
  /** Share of maxChars kept from the start (the rest from the end, where the exception is). */
  headShare: 0.25,
  /** Characters kept of one line (head and tail of it). */
  maxLineChars: 64 * 1024,
} as const;

export interface CappedTraceback {
  lines: string[];
  /** What was left out, when anything was. */
  omitted?: { lines: number; chars: number };
}

export function tracebackMarker(lines: number, chars: number): string {
  return `… [junobench: ${lines.toLocaleString('en')} traceback line${lines === 1 ? '' : 's'} (${formatChars(chars)}) left out here] …`;
}

function formatChars(n: number): string {
  return n >= 1024 * 1024
    ? `${(n / 1024 / 1024).toFixed(1)} M characters`
    : n >= 1024
      ? `${(n / 1024).toFixed(0)} K characters`
      : `${n} characters`;
}

function capLine(line: string, max: number): { text: string; cut: number } {
  if (line.length <= max) return { text: line, cut: 0 };
  const half = Math.floor(max / 2);
  const cut = line.length - 2 * half;
  return {
    text: `${line.slice(0, half)} … [junobench: ${formatChars(cut)} of this line left out] … ${line.slice(line.length - half)}`,
    cut,
  };
}

/**
 * Pure: the traceback within the limits — each line at most maxLineChars, and
 * at most maxChars of lines kept, from the head (headShare of it) and the
 * tail; markers say what was left out. The same lines when they already fit.
 */
export function capTraceback(
  lines: readonly string[],
  limits: { maxChars: number; headShare: number; maxLineChars: number } = TRACEBACK_LIMITS,
): CappedTraceback {
  let total = 0;
  let longLine = false;
  for (const l of lines) {
    total += l.length;
    if (l.length > limits.maxLineChars) longLine = true;
  }
  if (total <= limits.maxChars && !longLine) return { lines: [...lines] };
  const capped = lines.map((l) => capLine(l, limits.maxLineChars));
  const size = (i: number) => lines[i]!.length - capped[i]!.cut;
  let cut = 0;
  let keptTotal = 0;
  for (let i = 0; i < capped.length; i++) {
    cut += capped[i]!.cut;
    keptTotal += size(i);
  }
  if (keptTotal <= limits.maxChars) return { lines: capped.map((c) => c.text), omitted: { lines: 0, chars: cut } };
  const headBudget = Math.floor(limits.maxChars * limits.headShare);
  const tailBudget = limits.maxChars - headBudget;
  let head = 0;
  let used = 0;
  while (head < capped.length && used + size(head) <= headBudget) used += size(head++);
  let tail = capped.length;
  used = 0;
  while (tail > head && used + size(tail - 1) <= tailBudget) used += size(--tail);
  let omittedChars = 0;
  for (let i = head; i < tail; i++) omittedChars += lines[i]!.length;
  let cutKept = 0;
  for (let i = 0; i < capped.length; i++) if (i < head || i >= tail) cutKept += capped[i]!.cut;
  return {
    lines: [
      ...capped.slice(0, head).map((c) => c.text),
      tracebackMarker(tail - head, omittedChars),
      ...capped.slice(tail).map((c) => c.text),
    ],
    omitted: { lines: tail - head, chars: omittedChars + cutKept },
  };
}

/**
 * The raw cell text within the same budget (head and tail with a marker): `columns.traceback` must not carry the 20 MB
 * either.
 */
export function capCellText(
  text: string,
  maxChars: number = TRACEBACK_LIMITS.maxChars,
  headShare: number = TRACEBACK_LIMITS.headShare,
): string {
  if (text.length <= maxChars) return text;
  const head = Math.floor(maxChars * headShare);
  const tail = maxChars - head;
  return `${text.slice(0, head)} … [junobench: ${formatChars(text.length - head - tail)} of this cell left out] … ${text.slice(text.length - tail)}`;
}
