import { tokenizePython, type PyToken } from '@junobench/notebook';

/** A statement of a cell, as lines (0-based, inclusive), with its block when it is a compound statement's header. */
export interface Statement {
  first: number;
  last: number;
  /** The leading whitespace of its first line. */
  indent: string;
  /** The significant tokens of its first logical line. */
  tokens: PyToken[];
}

interface LogicalLine {
  first: number;
  last: number;
  indent: string;
  tokens: PyToken[];
}

/** The cell's logical lines (a statement split over lines by brackets or backslashes is one), comments left out. */
export function listLogicalLines(source: string): LogicalLine[] {
  const lineStarts = [0];
  for (let i = 0; i < source.length; i++) if (source[i] === '\n') lineStarts.push(i + 1);
  const lineOf = (offset: number) => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  const out: LogicalLine[] = [];
  let current: PyToken[] = [];
  const flush = () => {
    if (current.length === 0) return;
    const first = lineOf(current[0]!.start);
    const text = source.slice(lineStarts[first]!, current[0]!.start);
    out.push({
      first,
      last: lineOf(Math.max(current[0]!.start, current.at(-1)!.end - 1)),
      indent: text,
      tokens: current,
    });
    current = [];
  };
  for (const t of tokenizePython(source)) {
    if (t.kind === 'comment') continue;
    if (t.kind === 'newline') flush();
    else current.push(t);
  }
  flush();
  return out;
}

const isHeader = (l: LogicalLine) => l.tokens.at(-1)?.text === ':';

/**
 * The innermost statement on a line of the cell (1-based `line`, as a traceback gives it): the logical line holding
 * it, with its block when that line is a compound statement's header. Undefined when the line holds no code.
 */
export function findStatement(source: string, line: number): Statement | undefined {
  const lines = listLogicalLines(source);
  const k = lines.findIndex((l) => l.first <= line - 1 && line - 1 <= l.last);
  return k < 0 ? undefined : withBlock(lines, k);
}

/** The top-level statement (no indentation) that holds a line, its block included. */
export function findTopLevelStatement(source: string, line: number): Statement | undefined {
  const lines = listLogicalLines(source);
  let k = lines.findIndex((l) => l.first <= line - 1 && line - 1 <= l.last);
  while (k > 0 && lines[k]!.indent !== '') k--;
  return k < 0 ? undefined : withBlock(lines, k);
}

/** The last top-level statement of a cell: where a crash without a known line is placed. */
export function findLastStatement(source: string): Statement | undefined {
  const lines = listLogicalLines(source);
  let k = lines.length - 1;
  while (k > 0 && lines[k]!.indent !== '') k--;
  return k < 0 ? undefined : withBlock(lines, k);
}

function withBlock(lines: readonly LogicalLine[], k: number): Statement {
  const head = lines[k]!;
  let last = head.last;
  if (isHeader(head)) {
    for (let j = k + 1; j < lines.length && lines[j]!.indent.length > head.indent.length; j++) last = lines[j]!.last;
  }
  return { first: head.first, last, indent: head.indent, tokens: head.tokens };
}

/** Whether replacing the statement with nothing would leave its enclosing block empty (Python then needs `pass`). */
export function isAloneInBlock(source: string, s: Statement): boolean {
  if (s.indent === '') return false;
  const lines = listLogicalLines(source);
  const before = lines.filter((l) => l.last < s.first).at(-1);
  const after = lines.find((l) => l.first > s.last);
  return (
    before !== undefined &&
    isHeader(before) &&
    before.indent.length < s.indent.length &&
    (after === undefined || after.indent.length < s.indent.length)
  );
}

/**
 * The plain names a statement binds, so that code moved into a function can declare them global: assignment targets
 * (`a, b = …`, `a = b = …`, `a += …`; not `a[k] = …` or `a.x = …`), a `for` loop's targets, `with … as` names and
 * imported names.
 */
export function listBoundNames(s: Statement): string[] {
  const t = s.tokens;
  const names = new Set<string>();
  const first = t[0]?.text;
  if (first === 'import' || first === 'from') {
    for (let k = 0; k < t.length; k++) {
      if (t[k]!.text === 'as' && t[k + 1]?.kind === 'name') names.add(t[k + 1]!.text);
      else if (first === 'import' && t[k]!.kind === 'name' && (t[k - 1]?.text === 'import' || t[k - 1]?.text === ','))
        if (t[k + 1]?.text !== 'as') names.add(t[k]!.text.split('.')[0]!);
      if (first === 'from' && t[k]!.text === 'import') {
        for (let j = k + 1; j < t.length; j++) {
          const x = t[j]!;
          if (x.kind !== 'name' || x.text === 'as' || t[j - 1]?.text === 'as') continue;
          names.add(t[j + 1]?.text === 'as' && t[j + 2]?.kind === 'name' ? t[j + 2]!.text : x.text);
        }
        break;
      }
    }
    return [...names];
  }
  if (first === 'for') {
    const end = t.findIndex((x) => x.text === 'in');
    for (const x of t.slice(1, end < 0 ? t.length : end)) if (x.kind === 'name') names.add(x.text);
  }
  for (let k = 0; k < t.length; k++) if (t[k]!.text === 'as' && t[k + 1]?.kind === 'name') names.add(t[k + 1]!.text);
  // Targets: the depth-0 pieces before each `=` (or augmented assignment).
  let depth = 0;
  let start = 0;
  for (let k = 0; k < t.length; k++) {
    const x = t[k]!;
    if ('([{'.includes(x.text)) depth++;
    else if (')]}'.includes(x.text)) depth--;
    else if (depth === 0 && x.kind === 'op' && (x.text === '=' || /^[-+*/%@&|^<>]{1,2}=$/.test(x.text))) {
      if (x.text.length === 2 && '=!<>'.includes(x.text[0]!) && x.text !== '>>=' && x.text !== '<<=') continue;
      let d = 0;
      for (let j = start; j < k; j++) {
        const y = t[j]!;
        if ('([{'.includes(y.text)) d++;
        else if (')]}'.includes(y.text)) d--;
        else if (
          d === 0 &&
          y.kind === 'name' &&
          t[j - 1]?.text !== '.' &&
          !['.', '[', '('].includes(t[j + 1]?.text ?? '') &&
          !['for', 'in', 'not', 'and', 'or', 'if', 'else', 'lambda'].includes(y.text)
        )
          names.add(y.text);
      }
      start = k + 1;
    }
  }
  return [...names];
}
