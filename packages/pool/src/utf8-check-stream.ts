import { Transform } from 'node:stream';
import { Utf8Tracker } from '@junobench/core';

/**
 * A pass-through that feeds every byte to a Utf8Tracker before the decoder
 * after it sees them, so a reader can tell which decoded records had invalid
 * bytes replaced by U+FFFD.
 */
export function createUtf8CheckStream(): { stream: Transform; tracker: Utf8Tracker } {
  const tracker = new Utf8Tracker();
  const stream = new Transform({
    transform(chunk: Buffer, _enc, done) {
      tracker.push(chunk);
      done(null, chunk);
    },
    flush(done) {
      tracker.end();
      done();
    },
  });
  return { stream, tracker };
}

/** The warning for a record that held invalid bytes, or undefined; `texts` are its decoded fields in order. */
export function replacedBytesWarning(tracker: Utf8Tracker, texts: Iterable<unknown>): string | undefined {
  if (!tracker.hasPendingReplacements) return undefined;
  let n = 0;
  for (const t of texts) {
    if (typeof t !== 'string') continue;
    for (let at = t.indexOf('\uFFFD'); at >= 0; at = t.indexOf('\uFFFD', at + 1)) n++;
  }
  const invalid = n > 0 ? tracker.takeReplacements(n) : 0;
  return invalid > 0
    ? `${invalid} byte sequence${invalid > 1 ? 's' : ''} not valid UTF-8 replaced by U+FFFD (the file is in another encoding? convert it, e.g. \`iconv -f latin1 -t utf-8\`)`
    : undefined;
}
