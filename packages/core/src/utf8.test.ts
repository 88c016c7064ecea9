import { describe, expect, it } from 'vitest';
import { createRng } from './rng.js';
import { Utf8Tracker, locateInvalidUtf8 } from './utf8.js';

const b = (...parts: (string | number[])[]) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));

describe('locateInvalidUtf8', () => {
  it.each<[string, Buffer, { offset: number; line: number } | undefined]>([
    ['ASCII', b('abc\n'), undefined],
    ['multi-byte text', b('héllo ✓ 𝄞 \uFFFD'), undefined],
    ['a lone continuation byte', b('ab\ncd', [0x80], 'x'), { offset: 5, line: 2 }],
    ['a latin-1 é', b('{"a": "caf', [0xe9], '"}'), { offset: 10, line: 1 }],
    ['an overlong encoding', b('x', [0xc0, 0xaf]), { offset: 1, line: 1 }],
    ['a UTF-16 surrogate', b('x', [0xed, 0xa0, 0x80]), { offset: 1, line: 1 }],
    ['a truncated sequence at the end', b('\n\nx', [0xe2, 0x9c]), { offset: 3, line: 3 }],
    ['past U+10FFFF', b([0xf4, 0x90, 0x80, 0x80]), { offset: 0, line: 1 }],
  ])('%s', (_n, buf, expected) => {
    expect(locateInvalidUtf8(buf)).toEqual(expected);
  });

  it('agrees with a strict TextDecoder on random bytes', () => {
    const rng = createRng('utf8');
    for (let n = 0; n < 2000; n++) {
      const bytes = Buffer.from(
        Array.from({ length: rng.int(12) }, () => (rng.next() < 0.5 ? 0x20 + rng.int(0x5f) : 0x80 + rng.int(0x80))),
      );
      let valid = true;
      try {
        new TextDecoder('utf-8', { fatal: true }).decode(bytes);
      } catch {
        valid = false;
      }
      expect(locateInvalidUtf8(bytes) === undefined, bytes.toString('hex')).toBe(valid);
    }
  });
});

function countGenuine(buf: Buffer): number {
  let n = 0;
  for (
    let at = buf.indexOf(Buffer.from([0xef, 0xbf, 0xbd]));
    at >= 0;
    at = buf.indexOf(Buffer.from([0xef, 0xbf, 0xbd]), at + 3)
  )
    n++;
  return n;
}

describe('Utf8Tracker', () => {
  it('finds the lines with invalid bytes however the stream is cut into chunks', () => {
    const text = b('ok ✓\n', 'caf', [0xe9], '\n', '𝄞 fine\n', [0xff, 0xfe], ' two\n', 'end ✓');
    for (let size = 1; size <= text.length; size++) {
      const t = new Utf8Tracker();
      for (let i = 0; i < text.length; i += size) t.push(text.subarray(i, i + size));
      t.end();
      expect(t.invalidLines, `chunks of ${size}`).toEqual([2, 4]);
    }
  });

  it('counts every U+FFFD a decoder produces, invalid or genuine, in stream order (random bytes, random chunks)', () => {
    const rng = createRng('utf8-tracker');
    const pieces = [
      [0xef, 0xbf, 0xbd],
      [0xe2, 0x9c, 0x93],
      [0xf0, 0x9d, 0x84, 0x9e],
      [0xc3, 0xa9],
      [0x0a],
      [0x61],
      [0x2c],
    ];
    for (let n = 0; n < 500; n++) {
      const bytes: number[] = [];
      for (let k = rng.int(40); k > 0; k--) {
        if (rng.next() < 0.6) bytes.push(...pieces[rng.int(pieces.length)]!);
        else bytes.push(0x80 + rng.int(0x80));
      }
      const buf = Buffer.from(bytes);
      const decoded = new TextDecoder().decode(buf);
      const expectedTotal = [...decoded].filter((c) => c === '\uFFFD').length;
      expect(buf.toString('utf8')).toBe(decoded);
      const t = new Utf8Tracker();
      for (let i = 0; i < buf.length;) {
        const size = 1 + rng.int(6);
        t.push(buf.subarray(i, i + size));
        i += size;
      }
      t.end();
      // EF can never continue a sequence, so every EF BF BD in the bytes is a genuine U+FFFD.
      const genuine = countGenuine(buf);
      expect(t.invalidCount + genuine, buf.toString('hex')).toBe(expectedTotal);
      expect(t.takeReplacements(expectedTotal), buf.toString('hex')).toBe(t.invalidCount);
      expect(t.hasPendingReplacements, buf.toString('hex')).toBe(false);
      expect(t.invalidCount === 0, buf.toString('hex')).toBe(locateInvalidUtf8(buf) === undefined);
    }
  });

  it('tells replaced bytes from genuine U+FFFD characters record by record', () => {
    const t = new Utf8Tracker();
    t.push(Buffer.concat([Buffer.from('a,\uFFFD\n'), Buffer.from([0x62, 0xe9, 0x0a]), Buffer.from('c,\uFFFD\n')]));
    t.end();
    expect([t.takeReplacements(1), t.takeReplacements(1), t.takeReplacements(1)]).toEqual([0, 1, 0]);
  });

  it('a valid stream has none', () => {
    const t = new Utf8Tracker();
    t.push(b('a\n', [0xe2]));
    t.push(b([0x9c, 0x93], '\nb'));
    t.end();
    expect(t.invalidLines).toEqual([]);
    expect(t.invalidCount).toBe(0);
  });
});
