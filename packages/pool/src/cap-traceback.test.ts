import { describe, expect, it } from 'vitest';
import { capCellText, capTraceback } from './cap-traceback.js';

const limits = { maxChars: 100, headShare: 0.4, maxLineChars: 40 };

describe('capTraceback', () => {
  it('keeps a traceback that fits as it is', () => {
    expect(capTraceback(['Traceback (most recent call last)', "KeyError: 'a'"], limits)).toEqual({
      lines: ['Traceback (most recent call last)', "KeyError: 'a'"],
    });
  });

  it('keeps the head and the tail (where the exception is) with one marker line saying how much is left out', () => {
    const lines = [
      'Traceback (most recent call last)',
      ...Array.from({ length: 50 }, (_, i) => `  frame ${String(i).padStart(2, '0')}`),
      "KeyError: 'price'",
    ];
    const r = capTraceback(lines, limits);
    expect(r.lines[0]).toBe('Traceback (most recent call last)');
    expect(r.lines.at(-1)).toBe("KeyError: 'price'");
    const marker = r.lines.find((l) => l.includes('left out'))!;
    expect(marker).toMatch(/^… \[junobench: \d+ traceback lines \(\d+ characters\) left out here\] …$/);
    const kept = r.lines.filter((l) => l !== marker);
    expect(kept.reduce((s, l) => s + l.length, 0)).toBeLessThanOrEqual(100);
    const at = r.lines.indexOf(marker);
    expect(kept).toEqual([...lines.slice(0, at), ...lines.slice(lines.length - (r.lines.length - at - 1))]);
    expect(r.omitted!.lines + kept.length).toBe(lines.length);
    expect(r.omitted!.chars + kept.reduce((s, l) => s + l.length, 0)).toBe(lines.reduce((s, l) => s + l.length, 0));
  });

  it('cuts an overlong single line in its middle', () => {
    const r = capTraceback(['x'.repeat(30) + 'y'.repeat(30)], limits);
    expect(r.lines[0]).toMatch(/^x{20} … \[junobench: 20 characters of this line left out\] … y{20}$/);
    expect(r.omitted).toEqual({ lines: 0, chars: 20 });
  });
});

describe('capCellText', () => {
  it('keeps head and tail of an oversized cell with a marker', () => {
    expect(capCellText('short', 100)).toBe('short');
    const t = capCellText('a'.repeat(200) + 'Z', 100, 0.3);
    expect(t.startsWith('a'.repeat(30))).toBe(true);
    expect(t.endsWith('Z')).toBe(true);
    expect(t).toContain('[junobench: 101 characters of this cell left out]');
  });
});
