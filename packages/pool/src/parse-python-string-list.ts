import { lookupUnicodeName } from './unicode-names.js';

/**
 * A reader for Python list-of-strings literals as spreadsheets store
 * tracebacks (`['---…', "KeyError: 'a'", …]`). It tokenizes the literal
 * itself — single, double and triple quotes, r/b/u prefixes, every standard
 * escape (\n \t \xNN \uNNNN \UNNNNNNNN \ooo \N{NAME} …) and adjacent-literal
 * concatenation — and never evaluates anything.
 */

export class PythonLiteralError extends Error {
  constructor(
    message: string,
    /** 0-based character offset in the text where the problem is. */
    readonly offset: number,
  ) {
    super(message);
    this.name = 'PythonLiteralError';
  }
}

export interface ParsedStringList {
  items: string[];
  /**
   * The text ended before the list was closed (a spreadsheet cell cut at its
   * size limit or an export that stopped early). `items` holds everything read,
   * the last one possibly partial. Only reported when `allowTruncated` is set.
   */
  truncated: boolean;
}

interface Literal {
  value: string;
  bytes: boolean;
}

const SIMPLE_ESCAPES: Record<string, string> = {
  '\\': '\\',
  "'": "'",
  '"': '"',
  a: '\u0007',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
};

class EndOfText extends Error {
  constructor(readonly partial?: string) {
    super('end of text');
  }
}

class Tokenizer {
  pos = 0;
  constructor(private readonly s: string) {}

  fail(message: string, at = this.pos): never {
    throw new PythonLiteralError(message, at);
  }

  /** Skip whitespace, newlines and `#` comments (all allowed inside brackets). */
  skipSpace(): void {
    const s = this.s;
    while (this.pos < s.length) {
      const c = s[this.pos]!;
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v' || c === '\ufeff') {
        this.pos++;
      } else if (c === '#') {
        while (this.pos < s.length && s[this.pos] !== '\n') this.pos++;
      } else if (c === '\\' && (s[this.pos + 1] === '\n' || s[this.pos + 1] === '\r')) {
        this.pos += 2;
      } else {
        break;
      }
    }
  }

  /** Prefix letters and the quote that follow, if a string literal starts here. */
  peekLiteral(): { prefix: string; quoteAt: number } | undefined {
    const s = this.s;
    let i = this.pos;
    while (i < s.length && i - this.pos < 2 && /[rRbBuUfF]/.test(s[i]!)) i++;
    if (i < s.length && (s[i] === "'" || s[i] === '"')) return { prefix: s.slice(this.pos, i), quoteAt: i };
    return undefined;
  }

  readLiteral(): Literal {
    const start = this.pos;
    const peek = this.peekLiteral();
    if (!peek) this.fail(`expected a quoted string, found ${describe(this.s, this.pos)}`);
    const prefix = peek.prefix.toLowerCase();
    if (prefix.includes('f')) {
      this.fail('f-strings cannot be read without evaluating them; store the traceback items as plain strings', start);
    }
    if (!['', 'r', 'u', 'b', 'br', 'rb'].includes(prefix)) this.fail(`invalid string prefix "${peek.prefix}"`, start);
    const raw = prefix.includes('r');
    const bytes = prefix.includes('b');
    const s = this.s;
    const q = s[peek.quoteAt]!;
    const triple = s.startsWith(q.repeat(3), peek.quoteAt);
    const closing = triple ? q.repeat(3) : q;
    this.pos = peek.quoteAt + closing.length;
    // Text is appended a run at a time (up to the next quote, backslash or
    // line break), never a character at a time: per-character `+=` builds a
    // rope of one node per character, ~30 bytes each — 600 MB for a 20 MB cell.
    const parts: string[] = [];
    const text = () => parts.join('');
    for (;;) {
      if (this.pos >= s.length) throw new EndOfText(text());
      const c = s[this.pos]!;
      if (c === q && s.startsWith(closing, this.pos)) {
        this.pos += closing.length;
        break;
      }
      if (!triple && (c === '\n' || c === '\r')) {
        this.fail('unterminated string: a line break inside a single-quoted item (use \\n or triple quotes)', this.pos);
      }
      if (c !== '\\') {
        let end = this.pos + 1;
        while (end < s.length) {
          const d = s[end]!;
          if (d === q || d === '\\' || d === '\n' || d === '\r') break;
          end++;
        }
        if (bytes) {
          for (let i = this.pos; i < end; i++)
            if (s.charCodeAt(i) > 0x7f) this.fail('bytes literals may only contain ASCII characters', i);
        }
        parts.push(s.slice(this.pos, end));
        this.pos = end;
        continue;
      }
      // A backslash.
      if (this.pos + 1 >= s.length) throw new EndOfText(text());
      const e = s[this.pos + 1]!;
      if (raw) {
        // In raw strings a backslash keeps itself and protects the next character
        // (so r'\'' is a backslash and a quote), but nothing is translated.
        parts.push(`\\${e}`);
        this.pos += 2;
        continue;
      }
      try {
        parts.push(this.readEscape(bytes));
      } catch (e) {
        if (e instanceof EndOfText) throw new EndOfText(text());
        throw e;
      }
    }
    return { value: text(), bytes };
  }

  /** At a backslash in a non-raw literal: consume the escape and return its text. */
  private readEscape(bytes: boolean): string {
    const s = this.s;
    const at = this.pos;
    const e = s[at + 1]!;
    this.pos += 2;
    if (e === '\n') return '';
    if (e === '\r') {
      if (s[this.pos] === '\n') this.pos++;
      return '';
    }
    const simple = SIMPLE_ESCAPES[e];
    if (simple !== undefined) return simple;
    if (e >= '0' && e <= '7') {
      let digits = e;
      while (digits.length < 3 && s[this.pos] !== undefined && s[this.pos]! >= '0' && s[this.pos]! <= '7')
        digits += s[this.pos++];
      const code = Number.parseInt(digits, 8);
      return String.fromCharCode(bytes ? code & 0xff : code);
    }
    if (e === 'x') return String.fromCharCode(this.readHex(2, '\\x', at));
    if (!bytes && e === 'u') return String.fromCharCode(this.readHex(4, '\\u', at));
    if (!bytes && e === 'U') {
      const cp = this.readHex(8, '\\U', at);
      if (cp > 0x10ffff) this.fail(`\\U escape out of range: ${s.slice(at, at + 10)}`, at);
      return String.fromCodePoint(cp);
    }
    if (!bytes && e === 'N') {
      if (s[this.pos] !== '{') this.fail('malformed \\N escape: expected \\N{NAME}', at);
      const end = s.indexOf('}', this.pos);
      if (end < 0) {
        // Text that stops in the middle of a name was cut short; anything else is malformed.
        if (/^\{[A-Za-z0-9 -]*$/.test(s.slice(this.pos))) throw new EndOfText();
        this.fail('malformed \\N escape: missing "}"', at);
      }
      const name = s.slice(this.pos + 1, end);
      const ch = lookupUnicodeName(name);
      if (ch === undefined) this.fail(`unknown Unicode character name in \\N{${name}}`, at);
      this.pos = end + 1;
      return ch;
    }
    // Python keeps unknown escapes verbatim (with a warning): so do we.
    return `\\${e}`;
  }

  private readHex(n: number, what: string, at: number): number {
    const digits = this.s.slice(this.pos, this.pos + n);
    if (digits.length < n && this.pos + digits.length >= this.s.length && /^[0-9a-fA-F]*$/.test(digits))
      throw new EndOfText();
    if (!new RegExp(`^[0-9a-fA-F]{${n}}$`).test(digits)) {
      this.fail(`truncated ${what} escape: expected ${n} hex digits, found "${what}${digits}"`, at);
    }
    this.pos += n;
    return Number.parseInt(digits, 16);
  }
}

function describe(s: string, pos: number): string {
  if (pos >= s.length) return 'the end of the text';
  const word = /^\w{1,20}/.exec(s.slice(pos, pos + 20));
  return JSON.stringify(word ? word[0] : s[pos]);
}

const utf8 = new TextDecoder('utf-8');

function literalText(lit: Literal): string {
  if (!lit.bytes) return lit.value;
  const buf = Uint8Array.from(lit.value, (c) => c.charCodeAt(0));
  return utf8.decode(buf);
}

/**
 * Parse `[ 'a', "b" 'c', r'\d', ]` into `['a', 'bc', '\\d']`. Throws a
 * PythonLiteralError (with the character offset) for anything that is not a
 * list of string literals. With `allowTruncated`, text that simply ends
 * before the list is closed gives the items read so far and `truncated: true`.
 */
export function parsePythonStringList(text: string, options: { allowTruncated?: boolean } = {}): ParsedStringList {
  const t = new Tokenizer(text);
  const items: string[] = [];
  t.skipSpace();
  if (text[t.pos] !== '[') t.fail(`expected "[" to open a list, found ${describe(text, t.pos)}`);
  t.pos++;
  try {
    for (;;) {
      t.skipSpace();
      if (t.pos >= text.length) throw new EndOfText();
      if (text[t.pos] === ']') {
        t.pos++;
        break;
      }
      const parts: Literal[] = [];
      const itemStart = t.pos;
      try {
        // Adjacent literals ('a' "b") form one item, as in Python source.
        do {
          parts.push(t.readLiteral());
          t.skipSpace();
        } while (t.pos < text.length && t.peekLiteral());
      } catch (e) {
        if (e instanceof EndOfText) throw new EndOfText(parts.map(literalText).join('') + (e.partial ?? ''));
        throw e;
      }
      if (parts.some((p) => p.bytes) && parts.some((p) => !p.bytes)) {
        t.fail('cannot mix bytes and text literals in one item', itemStart);
      }
      items.push(parts.map(literalText).join(''));
      if (t.pos >= text.length) throw new EndOfText();
      const c = text[t.pos];
      if (c === ',') {
        t.pos++;
        continue;
      }
      if (c === ']') {
        t.pos++;
        break;
      }
      t.fail(`expected "," or "]" after item ${items.length}, found ${describe(text, t.pos)}`);
    }
  } catch (e) {
    if (!(e instanceof EndOfText)) throw e;
    if (!options.allowTruncated) {
      throw new PythonLiteralError('the list is not closed: the text ends inside it', text.length);
    }
    if (e.partial !== undefined && e.partial !== '') items.push(e.partial);
    return { items, truncated: true };
  }
  t.skipSpace();
  if (t.pos < text.length) t.fail(`unexpected ${describe(text, t.pos)} after the closing "]"`);
  return { items, truncated: false };
}
