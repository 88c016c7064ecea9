/**
 * A small Python tokenizer with the lexical rules of CPython's `tokenize`
 * that matter for reading notebook cells: string literals of every form
 * (prefixes, triple quotes, escapes, f-strings with nested replacement
 * fields), comments, backslash continuations, brackets spanning lines, and
 * IPython's line and cell magics. It never throws: unterminated strings end
 * at the end of their line (or of the cell, for triple quotes), as an editor
 * would show them.
 *
 * Why not split on `#`: `'#'`, `"a # b"`, `f"{x['#']}"` and `"""…#…"""`
 * are strings, not comments, and `%%bash` cells are not Python at all.
 */

export type PyTokenKind = 'name' | 'number' | 'string' | 'op' | 'comment' | 'magic' | 'newline' | 'error';

export interface PyToken {
  kind: PyTokenKind;
  text: string;
  /** Offsets into the source: [start, end). */
  start: number;
  end: number;
}

/** Cell magics whose body is Python that runs in the kernel (so it is tokenized as Python). */
export const PYTHON_BODY_CELL_MAGICS: ReadonlySet<string> = new Set(['time', 'timeit', 'capture', 'prun']);

const STRING_PREFIXES = new Set(['r', 'u', 'f', 'b', 't', 'br', 'rb', 'fr', 'rf', 'tr', 'rt']);
const OPERATORS = [
  '**=',
  '//=',
  '>>=',
  '<<=',
  '...',
  '->',
  ':=',
  '**',
  '//',
  '<<',
  '>>',
  '<=',
  '>=',
  '==',
  '!=',
  '+=',
  '-=',
  '*=',
  '/=',
  '%=',
  '&=',
  '|=',
  '^=',
  '@=',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  ',',
  ':',
  ';',
  '.',
  '+',
  '-',
  '*',
  '/',
  '%',
  '&',
  '|',
  '^',
  '~',
  '<',
  '>',
  '=',
  '@',
  '!',
  '?',
];
const NAME_START = /[\p{L}\p{Nl}_]/u;
const NAME_REST = /[\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}_]/u;
const NUMBER =
  /^(?:0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)(?:[eE][+-]?\d[\d_]*)?[jJ]?)/;

export function tokenizePython(source: string): PyToken[] {
  const tokens: PyToken[] = [];
  const n = source.length;
  let i = 0;
  let depth = 0;
  let lineStart = true;
  const push = (kind: PyTokenKind, start: number, end: number) =>
    tokens.push({ kind, text: source.slice(start, end), start, end });
  const lineEnd = (from: number) => {
    const e = source.indexOf('\n', from);
    return e < 0 ? n : e;
  };

  // A cell magic on the first non-blank line: `%%time` bodies are Python, anything else (`%%bash`, `%%writefile`) is
  // not.
  const lead = /^(?:[ \t\f]*\r?\n)*[ \t\f]*%%(\w+)/.exec(source);
  if (lead) {
    const start = source.indexOf('%%');
    const end = lineEnd(start);
    if (!PYTHON_BODY_CELL_MAGICS.has(lead[1]!)) {
      push('magic', start, n);
      return tokens;
    }
    push('magic', start, end);
    i = end;
  }

  while (i < n) {
    const c = source[i]!;
    if (c === '\n') {
      if (depth === 0 && !lineStart) push('newline', i, i + 1);
      if (depth === 0) lineStart = true;
      i++;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\f' || c === '\r') {
      i++;
      continue;
    }
    if (c === '\\' && (source[i + 1] === '\n' || (source[i + 1] === '\r' && source[i + 2] === '\n'))) {
      i += source[i + 1] === '\n' ? 2 : 3;
      continue;
    }
    if (c === '#') {
      const end = lineEnd(i);
      push('comment', i, end);
      i = end;
      continue;
    }
    const atStatementStart = lineStart && depth === 0;
    const afterAssign = depth === 0 && lastSignificant(tokens)?.text === '=' && !lineStart;
    if ((c === '%' || c === '!') && (atStatementStart || afterAssign) && source[i + 1] !== '=') {
      // IPython line magic or shell escape (`%matplotlib inline`, `!pip install x`, `files = !ls`): the rest of the
      // line.
      const end = lineEnd(i);
      push('magic', i, trimEndIndex(source, i, end));
      i = end;
      lineStart = false;
      continue;
    }
    lineStart = false;
    if (NAME_START.test(c)) {
      let j = i + 1;
      while (j < n && NAME_REST.test(source[j]!)) j++;
      const word = source.slice(i, j);
      const q = source[j];
      if ((q === '"' || q === "'") && STRING_PREFIXES.has(word.toLowerCase())) {
        const end = scanString(source, i, j);
        push('string', i, end);
        i = end;
        continue;
      }
      push('name', i, j);
      i = j;
      continue;
    }
    if (c === '"' || c === "'") {
      const end = scanString(source, i, i);
      push('string', i, end);
      i = end;
      continue;
    }
    if ((c >= '0' && c <= '9') || (c === '.' && /[0-9]/.test(source[i + 1] ?? ''))) {
      const m = NUMBER.exec(source.slice(i, i + 200));
      const len = m?.[0].length || 1;
      push('number', i, i + len);
      i += len;
      continue;
    }
    const op = OPERATORS.find((o) => source.startsWith(o, i));
    if (op) {
      if (op === '(' || op === '[' || op === '{') depth++;
      else if (op === ')' || op === ']' || op === '}') depth = Math.max(0, depth - 1);
      push('op', i, i + op.length);
      i += op.length;
      continue;
    }
    push('error', i, i + 1);
    i++;
  }
  return tokens;
}

function lastSignificant(tokens: readonly PyToken[]): PyToken | undefined {
  for (let k = tokens.length - 1; k >= 0; k--) {
    const t = tokens[k]!;
    if (t.kind === 'newline') return undefined;
    if (t.kind !== 'comment') return t;
  }
  return undefined;
}

function trimEndIndex(source: string, start: number, end: number): number {
  let e = end;
  while (e > start && /\s/.test(source[e - 1]!)) e--;
  return e;
}

/**
 * Scan a string literal whose prefix starts at `start` and whose quote is at
 * `quoteAt`; returns the offset just past it. f-strings (and t-strings) have
 * their replacement fields scanned as expressions, so a quote or `#` inside
 * `{…}` does not end the literal.
 */
function scanString(source: string, start: number, quoteAt: number): number {
  const prefix = source.slice(start, quoteAt).toLowerCase();
  const formatted = prefix.includes('f') || prefix.includes('t');
  const q = source[quoteAt]!;
  const triple = source.startsWith(q.repeat(3), quoteAt);
  const quote = triple ? q.repeat(3) : q;
  return scanStringBody(source, quoteAt + quote.length, quote, formatted);
}

function scanStringBody(source: string, from: number, quote: string, formatted: boolean): number {
  const n = source.length;
  const triple = quote.length === 3;
  let i = from;
  while (i < n) {
    const c = source[i]!;
    if (c === '\\') {
      i += 2;
      continue;
    }
    if (source.startsWith(quote, i)) return i + quote.length;
    if (c === '\n' && !triple) return i; // unterminated: ends at the line end
    if (formatted && c === '{') {
      if (source[i + 1] === '{') {
        i += 2;
        continue;
      }
      i = scanReplacementField(source, i + 1, triple);
      continue;
    }
    i++;
  }
  return n;
}

// The expression inside `{…}` of an f-string, up to its closing brace.
function scanReplacementField(source: string, from: number, triple: boolean): number {
  const n = source.length;
  let depth = 0;
  let i = from;
  while (i < n) {
    const c = source[i]!;
    if (c === '\n' && !triple) return i;
    if (c === '"' || c === "'") {
      i = scanString(source, i, i);
      continue;
    }
    if (NAME_START.test(c)) {
      let j = i + 1;
      while (j < n && NAME_REST.test(source[j]!)) j++;
      const q = source[j];
      if ((q === '"' || q === "'") && STRING_PREFIXES.has(source.slice(i, j).toLowerCase())) {
        i = scanString(source, i, j);
        continue;
      }
      i = j;
      continue;
    }
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']') depth = Math.max(0, depth - 1);
    else if (c === '}') {
      if (depth === 0) return i + 1;
      depth--;
    }
    i++;
  }
  return n;
}

/**
 * The cell without its comments: comment tokens removed, trailing
 * whitespace trimmed, lines that held only a comment dropped, and blank
 * lines at the start and end removed. String literals (including blank or
 * trailing-space lines inside triple-quoted ones) are kept byte for byte.
 */
export function stripComments(source: string): string {
  const tokens = tokenizePython(source);
  const comments = tokens.filter((t) => t.kind === 'comment');
  const strings = tokens.filter((t) => t.kind === 'string' || t.kind === 'magic');
  const insideLiteral = (offset: number) => strings.some((s) => s.start < offset && offset < s.end);
  const out: string[] = [];
  let offset = 0;
  for (const line of source.split('\n')) {
    const start = offset;
    const end = start + line.length;
    offset = end + 1;
    const own = comments.filter((c) => c.start >= start && c.start < end);
    let text = line;
    for (const c of [...own].reverse()) text = text.slice(0, c.start - start) + text.slice(c.end - start);
    // A line that ends inside a multi-line literal keeps its trailing characters.
    if (!insideLiteral(end)) text = text.replace(/[ \t\f\r]+$/, '');
    if (own.length > 0 && text.trim() === '' && !insideLiteral(start)) continue;
    out.push(text);
  }
  // A literal never starts on a blank line, so blank lines at the start are outside any.
  while (out.length > 0 && out[0]!.trim() === '') out.shift();
  while (out.length > 0 && out[out.length - 1]!.trim() === '') out.pop();
  return out.join('\n');
}

/** The tokens that carry meaning: no comments, no line ends. */
export function significantTokens(source: string): PyToken[] {
  return tokenizePython(source).filter((t) => t.kind !== 'comment' && t.kind !== 'newline');
}
