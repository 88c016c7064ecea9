import { describe, expect, it } from 'vitest';
import { createRng, stripAnsi } from '@junobench/core';
import { convertAnsiToHtml } from './ansi-to-html.js';

const E = '\u001b';

/** The text a reader sees: tags removed, entities decoded. */
function visibleText(html: string): string {
  return html
    .replace(/<\/?span[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

describe('convertAnsiToHtml', () => {
  it.each([
    ['plain text', 'plain text'],
    [`${E}[0;31mred${E}[0m plain`, '<span class="ansi-fg-1">red</span> plain'],
    [`${E}[1;32mbold green${E}[0m`, '<span class="ansi-fg-2 ansi-bold">bold green</span>'],
    [
      `${E}[31mred ${E}[1mbold${E}[22m red${E}[39m`,
      '<span class="ansi-fg-1">red </span><span class="ansi-fg-1 ansi-bold">bold</span><span class="ansi-fg-1"> red</span>',
    ],
    [
      `${E}[93;44mhi${E}[49m there${E}[m`,
      '<span class="ansi-fg-11 ansi-bg-4">hi</span><span class="ansi-fg-11"> there</span>',
    ],
    [`${E}[101mbg${E}[0m`, '<span class="ansi-bg-9">bg</span>'],
    // 256 colours: basic ones direct, the rest to the nearest basic colour (241 is a mid grey).
    [
      `${E}[38;5;1mx${E}[38;5;241my${E}[38;5;124mz`,
      '<span class="ansi-fg-1">x</span><span class="ansi-fg-8">y</span><span class="ansi-fg-1">z</span>',
    ],
    [`${E}[38;5;241;43m.${E}[39;49m`, '<span class="ansi-fg-8 ansi-bg-3">.</span>'],
    [`${E}[38;5;28;01mdef${E}[39;00m`, '<span class="ansi-fg-2 ansi-bold">def</span>'],
    [`${E}[38:5:21mcolon form`, '<span class="ansi-fg-4">colon form</span>'],
    [`${E}[38;2;250;10;10mtrue colour`, '<span class="ansi-fg-9">true colour</span>'],
    [`${E}[7minverse`, '<span class="ansi-fg-15 ansi-bg-0">inverse</span>'],
    [`${E}[3;4mstyled`, '<span class="ansi-italic ansi-underline">styled</span>'],
    // Escapes that are not colours vanish; so do stray control characters.
    [`a${E}[2Kb${E}[1Ac${E}]0;title\u0007d${E}]8;;https://x${E}\\e${E}(Bf`, 'abcdef'],
    ['bell\u0007 and \u0000nul', 'bell and nul'],
    ['cr\r\nlf and\rcr', 'cr\nlf and\ncr'],
    // Malformed colour codes are ignored, never thrown.
    [`${E}[38;5mx${E}[38;5;999my${E}[38;2;1;2mz${E}[;;mw`, 'xyzw'],
    // Unterminated sequence at the end.
    [`text${E}[`, 'text'],
    [`text${E}`, 'text'],
  ])('%j', (input, expected) => {
    expect(convertAnsiToHtml(input)).toBe(expected);
  });

  it('escapes markup inside and around colours', () => {
    const html = convertAnsiToHtml(`${E}[31m<script>alert("x")</script>${E}[0m<img src=x onerror='y'>&`);
    expect(html).toBe(
      '<span class="ansi-fg-1">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;</span>&lt;img src=x onerror=&#39;y&#39;&gt;&amp;',
    );
  });

  it('keeps the text of a real IPython traceback exactly, and colours it', () => {
    const tb = [
      `${E}[0;31m---------------------------------------------------------------------------${E}[0m`,
      `${E}[0;31mValueError${E}[0m                                Traceback (most recent call last)`,
      `Cell ${E}[0;32mIn [6], line 1${E}[0m\n${E}[0;32m----> 1${E}[0m df ${E}[38;5;241m=${E}[39m ${E}[43mtrain${E}[49m${E}[38;5;241;43m.${E}[39;49m${E}[43mmerge${E}[49m(oil, on${E}[38;5;241m=${E}[39m${E}[38;5;124m'${E}[39m${E}[38;5;124mdate${E}[39m${E}[38;5;124m'${E}[39m)\n`,
      `${E}[0;31mValueError${E}[0m: You are trying to merge on datetime64[ns] and object columns.`,
    ].join('\n');
    const html = convertAnsiToHtml(tb);
    expect(visibleText(html)).toBe(stripAnsi(tb));
    expect(html).toContain('<span class="ansi-fg-1">ValueError</span>');
    expect(html).toContain('<span class="ansi-bg-3">train</span>');
  });

  it('on random input: only its own span tags, balanced, and the text kept', () => {
    const rng = createRng('ansi-fuzz');
    const pieces = [
      'a',
      '<',
      '>',
      '&',
      '"',
      "'",
      ' ',
      '\n',
      '\t',
      'é',
      `${E}[`,
      `${E}]`,
      'm',
      ';',
      '3',
      '8',
      '5',
      '1',
      '0',
      '4',
      '2',
      '\u0007',
      E,
      '[',
      '\\',
      '\u0000',
      '\r',
    ];
    for (let n = 0; n < 2000; n++) {
      const len = Math.floor(rng.next() * 40);
      let input = '';
      for (let i = 0; i < len; i++) input += pieces[Math.floor(rng.next() * pieces.length)];
      const html = convertAnsiToHtml(input);
      const tags = html.match(/<[^>]*>/g) ?? [];
      for (const t of tags) expect(t, JSON.stringify(input)).toMatch(/^(<span class="[a-z0-9 -]+">|<\/span>)$/);
      let depth = 0;
      for (const t of tags) {
        depth += t === '</span>' ? -1 : 1;
        expect(depth === 0 || depth === 1, JSON.stringify(input)).toBe(true);
      }
      expect(depth, JSON.stringify(input)).toBe(0);
      expect(html.replace(/<[^>]*>/g, '')).not.toMatch(/[<>"']/);
    }
    // A busy shared machine can be slow; the limit is for hangs, not speed.
  }, 60_000);
});
