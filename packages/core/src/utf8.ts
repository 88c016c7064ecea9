import { isUtf8 } from 'node:buffer';

export interface InvalidUtf8 {
  /** Byte offset of the first invalid byte. */
  offset: number;
  /** 1-based line of that byte. */
  line: number;
}

/**
 * Where the first byte that is not valid UTF-8 is, or undefined when the whole
 * buffer is valid (Node's native check first; the byte-by-byte scan only runs
 * for an invalid buffer, to name the spot).
 */
export function locateInvalidUtf8(buf: Uint8Array): InvalidUtf8 | undefined {
  if (isUtf8(buf)) return undefined;
  const { offset } = scanUtf8(buf, 0, buf.length);
  let line = 1;
  for (let i = 0; i < offset; i++) if (buf[i] === 0x0a) line++;
  return { offset, line };
}

/**
 * The first invalid spot of buf[start, end) (an incomplete sequence at the end
 * counts as invalid): its offset, and the length of its "maximal subpart" —
 * the bytes a WHATWG decoder (TextDecoder, Buffer#toString) replaces with ONE
 * U+FFFD. `offset === end` when everything is valid.
 */
function scanUtf8(buf: Uint8Array, start: number, end: number): { offset: number; length: number } {
  let i = start;
  while (i < end) {
    const b = buf[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) need = 2;
    else if (b >= 0xf0 && b <= 0xf4) need = 3;
    else return { offset: i, length: 1 };
    // Overlong forms, surrogates and code points past U+10FFFF are invalid too.
    const min = b === 0xe0 ? 0xa0 : b === 0xf0 ? 0x90 : 0x80;
    const max = b === 0xed ? 0x9f : b === 0xf4 ? 0x8f : 0xbf;
    for (let k = 1; k <= need; k++) {
      if (i + k >= end) return { offset: i, length: k };
      const c = buf[i + k]!;
      if (c < (k === 1 ? min : 0x80) || c > (k === 1 ? max : 0xbf)) return { offset: i, length: k };
    }
    i += need + 1;
  }
  return { offset: end, length: 0 };
}

const REPLACEMENT = Buffer.from([0xef, 0xbf, 0xbd]);

/**
 * Checks a byte stream chunk by chunk (sequences may straddle chunks) for a
 * reader that decodes with replacement (a CSV or JSONL import) but must say
 * where bytes were replaced. It remembers, in stream order, every spot that
 * decodes to U+FFFD and whether it was invalid bytes or a genuine U+FFFD in
 * the file, so the reader can tell, for each record it decoded, whether its
 * U+FFFD characters stand for replaced bytes (`takeReplacements`). Feed it the
 * bytes before the decoder sees them (e.g. in a Transform ahead of it).
 */
export class Utf8Tracker {
  /** Lines (1-based) with invalid bytes, at most `maxLines` of them. */
  readonly invalidLines: number[] = [];
  invalidCount = 0;
  private carry: Buffer = Buffer.alloc(0);
  private line = 1;
  // 1 = invalid bytes, 0 = a genuine U+FFFD; consumed from `head`.
  private kinds: number[] = [];
  private head = 0;

  constructor(private readonly maxLines = 1000) {}

  push(chunk: Uint8Array): void {
    const buf =
      this.carry.length > 0
        ? Buffer.concat([this.carry, chunk])
        : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    // Keep a trailing incomplete sequence for the next chunk.
    let cut = buf.length;
    for (let back = 1; back <= 3 && back <= buf.length; back++) {
      const b = buf[buf.length - back]!;
      if (b >= 0xc0) {
        const len = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
        if (len > back) cut = buf.length - back;
        break;
      }
      if (b < 0x80) break;
    }
    this.check(buf.subarray(0, cut));
    this.carry = Buffer.from(buf.subarray(cut));
  }

  end(): void {
    if (this.carry.length > 0) this.check(this.carry);
    this.carry = Buffer.alloc(0);
  }

  /** Consume the next `n` U+FFFD spots (those of one decoded record); how many of them were invalid bytes. */
  takeReplacements(n: number): number {
    let invalid = 0;
    for (let k = 0; k < n && this.head < this.kinds.length; k++) invalid += this.kinds[this.head++]!;
    if (this.head > 4096 && this.head * 2 > this.kinds.length) {
      this.kinds = this.kinds.slice(this.head);
      this.head = 0;
    }
    return invalid;
  }

  /** Whether any U+FFFD spot (replaced or genuine) is waiting to be taken: when not, a reader need not look. */
  get hasPendingReplacements(): boolean {
    return this.head < this.kinds.length;
  }

  private check(buf: Buffer): void {
    if (buf.length === 0) return;
    if (isUtf8(buf)) {
      this.countLines(buf, 0, buf.length);
      this.genuine(buf, 0, buf.length);
      return;
    }
    let i = 0;
    while (i < buf.length) {
      const bad = scanUtf8(buf, i, buf.length);
      this.countLines(buf, i, bad.offset);
      this.genuine(buf, i, bad.offset);
      if (bad.offset >= buf.length) break;
      this.invalidCount++;
      this.kinds.push(1);
      if (this.invalidLines.at(-1) !== this.line && this.invalidLines.length < this.maxLines)
        this.invalidLines.push(this.line);
      i = bad.offset + bad.length;
    }
  }

  private genuine(buf: Buffer, from: number, to: number): void {
    let at = buf.indexOf(REPLACEMENT, from);
    while (at >= 0 && at + 3 <= to) {
      this.kinds.push(0);
      at = buf.indexOf(REPLACEMENT, at + 3);
    }
  }

  private countLines(buf: Buffer, from: number, to: number): void {
    let at = buf.indexOf(0x0a, from);
    while (at >= 0 && at < to) {
      this.line++;
      at = buf.indexOf(0x0a, at + 1);
    }
  }
}
