import { createReadStream } from 'node:fs';
import { JunoError, Utf8Tracker, assertReadableFile } from '@junobench/core';
import type { Notebook } from './notebook-types.js';
import { parseNotebook } from './read-notebook.js';

/**
 * Streams a notebook's JSON text and writes a reduced copy of it in which
 * every string under a code cell's saved non-error output payload —
 * `cells[*].outputs[*].text` and `cells[*].outputs[*].data` (printed text,
 * images, HTML) — is replaced by `""`. The copy is still valid nbformat; only
 * sources, execution counts, metadata and error outputs (ename, evalue,
 * traceback) keep their text. A notebook with 60 MB of printed output then
 * costs a few chunks of memory instead of the file, its string and its
 * parsed objects at once.
 */
export class LeanNotebookScanner {
  private out: string[] = [];
  // One frame per open object/array: its name in the path ('*' for array items).
  private frames: { obj: boolean; name: string; key: string | null; expectKey: boolean }[] = [];
  private inString = false;
  private escape = false;
  private stringIsKey = false;
  private dropString = false;
  private keyParts: string[] = [];
  /** Depth at which every string is dropped (the payload's frame), or -1. */
  private dropDepth = -1;
  dropped = 0;

  push(chunk: string): void {
    let i = 0;
    let keepFrom = 0;
    const n = chunk.length;
    // Kept text of this chunk, copied out at the end: a slice would keep the whole chunk alive.
    const kept: string[] = [];
    const out = this.out;
    this.out = kept;
    // Next quote and backslash at or after i (native scans, each position found once).
    let nextQuote = -2;
    let nextSlash = -2;
    const find = (from: number): number => {
      if (nextQuote !== -1 && nextQuote < from) nextQuote = chunk.indexOf('"', from);
      if (nextSlash !== -1 && nextSlash < from) nextSlash = chunk.indexOf('\\', from);
      const q = nextQuote < 0 ? n : nextQuote;
      const b = nextSlash < 0 ? n : nextSlash;
      return q < b ? q : b;
    };
    while (i < n) {
      if (this.inString) {
        // Jump to the next quote or backslash.
        const j = this.escape ? i : find(i);
        if (this.dropString) this.dropped += j - i;
        else if (this.stringIsKey) this.keyParts.push(chunk.slice(i, j));
        if (j >= n) {
          if (this.dropString) keepFrom = n;
          i = n;
          break;
        }
        if (this.escape) {
          // The character after a backslash: part of the string whatever it is.
          this.escape = false;
          if (this.stringIsKey && !this.dropString) this.keyParts.push(chunk[j]!);
          i = j + 1;
          if (this.dropString) keepFrom = i;
          continue;
        }
        const c = chunk.charCodeAt(j);
        if (c === 0x5c) {
          this.escape = true;
          if (this.stringIsKey && !this.dropString) this.keyParts.push('\\');
          i = j + 1;
          if (this.dropString) keepFrom = i;
          continue;
        }
        // The closing quote.
        this.inString = false;
        if (this.dropString) {
          keepFrom = j; // the next kept text starts with the closing quote: `""`
        } else if (this.stringIsKey) {
          const top = this.frames.at(-1)!;
          top.key = JSON.parse(`"${this.keyParts.join('')}"`) as string;
          this.keyParts = [];
        }
        i = j + 1;
        continue;
      }
      const c = chunk.charCodeAt(i);
      if (c === 0x22) {
        const top = this.frames.at(-1);
        this.inString = true;
        this.escape = false;
        this.stringIsKey = !!top && top.obj && top.expectKey;
        this.dropString =
          !this.stringIsKey && (this.dropDepth >= 0 || this.isPayload(top?.obj ? (top.key ?? '') : '*'));
        if (this.dropString) {
          this.out.push(chunk.slice(keepFrom, i + 1));
          keepFrom = i + 1;
        }
      } else if (c === 0x7b || c === 0x5b) {
        const top = this.frames.at(-1);
        const name = top ? (top.obj ? (top.key ?? '') : '*') : '';
        if (this.dropDepth < 0 && this.isPayload(name)) this.dropDepth = this.frames.length;
        this.frames.push({ obj: c === 0x7b, name, key: null, expectKey: c === 0x7b });
      } else if (c === 0x7d || c === 0x5d) {
        this.frames.pop();
        if (this.dropDepth >= 0 && this.frames.length <= this.dropDepth) this.dropDepth = -1;
      } else if (c === 0x3a) {
        const top = this.frames.at(-1);
        if (top?.obj) top.expectKey = false;
      } else if (c === 0x2c) {
        const top = this.frames.at(-1);
        if (top?.obj) {
          top.expectKey = true;
          top.key = null;
        }
      }
      i++;
    }
    if (keepFrom < n) kept.push(chunk.slice(keepFrom));
    this.out = out;
    // join copies into a new flat string; a single piece is copied explicitly.
    if (kept.length > 1) out.push(kept.join(''));
    else if (kept.length === 1) out.push(kept[0]!.length > 12 ? (' ' + kept[0]!).slice(1) : kept[0]!);
  }

  /** Whether a value named `name` in the innermost frame is an output payload: cells[*].outputs[*].(text|data). */
  private isPayload(name: string): boolean {
    const f = this.frames;
    // root{} → cells[] → cell{} → outputs[] → output{}: the innermost frame is an output.
    return (
      (name === 'text' || name === 'data') &&
      f.length === 5 &&
      f[1]!.name === 'cells' &&
      f[2]!.name === '*' &&
      f[3]!.name === 'outputs' &&
      f[4]!.name === '*'
    );
  }

  text(): string {
    return this.out.join('');
  }
}

/**
 * Read a notebook for what pool import needs — code, execution counts and
 * saved errors — without holding its other outputs: see LeanNotebookScanner.
 * Validated like readNotebook (nbformat schema, UTF-8), same errors.
 */
export async function readNotebookLean(file: string): Promise<Notebook> {
  await assertReadableFile(file);
  const scanner = new LeanNotebookScanner();
  const utf8 = new Utf8Tracker(1);
  const decoder = new TextDecoder('utf-8');
  let first = true;
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) {
    const bytes = chunk as Buffer;
    utf8.push(bytes);
    let text = decoder.decode(bytes, { stream: true });
    // TextDecoder drops a leading BOM; readNotebook's JSON.parse would refuse it, so keep the behaviour the same.
    if (first && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) text = `\ufeff${text}`;
    first = false;
    scanner.push(text);
  }
  utf8.end();
  scanner.push(decoder.decode());
  if (utf8.invalidCount > 0) {
    const line = utf8.invalidLines[0] ?? 1;
    throw new JunoError(
      'E_NOTEBOOK',
      `not valid UTF-8 (first invalid byte at line ${line}); a notebook file is UTF-8 JSON`,
      {
        location: { file, line },
        hint: 'it was probably saved in another encoding: convert it, e.g. `iconv -f latin1 -t utf-8 in.ipynb > out.ipynb`, or restore it from its source',
      },
    );
  }
  return parseNotebook(scanner.text(), file);
}
