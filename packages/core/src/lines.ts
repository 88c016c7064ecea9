import { StringDecoder } from 'node:string_decoder';

/**
 * The longest line the line readers hold (characters). A JSONL record of a
 * crash with its traceback is kilobytes to a few megabytes; a line longer
 * than this is hostile or broken, and holding it whole would exhaust memory
 * or V8's string limit (about 512 Mi characters) before any check could run.
 */
export const MAX_LINE_CHARS = 64 * 1024 * 1024;

/** One line of a text stream, or the report of a line that was too long to hold. */
export type CappedLine =
  | { line: number; text: string }
  /** The line was longer than the cap: only its first characters and its length are kept. */
  | { line: number; tooLong: { chars: number; head: string } };

/**
 * Split decoded text into lines (LF or CRLF; a last line without a newline
 * counts), holding at most `maxChars` of any one line: a longer line is
 * reported (`tooLong`) and skipped to its end, and the lines after it are
 * read as usual. Memory stays bounded by the cap, whatever the input.
 * Node's readline has no such cap (a single 600 MB line crashes it).
 */
export async function* readLinesCapped(
  input: AsyncIterable<string | Buffer>,
  maxChars = MAX_LINE_CHARS,
): AsyncGenerator<CappedLine> {
  // Bytes are decoded across chunk boundaries (a character split between two chunks stays whole).
  const decoder = new StringDecoder('utf8');
  let parts: string[] = [];
  let held = 0;
  let over: { chars: number; head: string } | undefined;
  let line = 0;
  const add = (piece: string) => {
    if (over) {
      over.chars += piece.length;
      return;
    }
    if (held + piece.length > maxChars) {
      const head = (parts.join('') + piece).slice(0, 200);
      over = { chars: held + piece.length, head };
      parts = [];
      held = 0;
      return;
    }
    parts.push(piece);
    held += piece.length;
  };
  const finish = (): CappedLine => {
    line++;
    if (over) {
      const done = { line, tooLong: over };
      over = undefined;
      return done;
    }
    let text = parts.join('');
    parts = [];
    held = 0;
    if (text.endsWith('\r')) text = text.slice(0, -1);
    return { line, text };
  };
  for await (const chunk of input) {
    const s = typeof chunk === 'string' ? chunk : decoder.write(chunk);
    let from = 0;
    for (let nl = s.indexOf('\n'); nl >= 0; nl = s.indexOf('\n', from)) {
      add(s.slice(from, nl));
      yield finish();
      from = nl + 1;
    }
    if (from < s.length) add(s.slice(from));
  }
  const rest = decoder.end();
  if (rest) add(rest);
  if (held > 0 || over) yield finish();
}

/** A hostile value quoted in a message: at most `max` characters, with its full length when cut. */
export function quoteShort(value: string, max = 120): string {
  const escaped = JSON.stringify(value);
  return escaped.length > max + 2 ? `${escaped.slice(0, max + 1)}…" (${value.length} characters)` : escaped;
}
