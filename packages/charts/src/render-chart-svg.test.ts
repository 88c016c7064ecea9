import { describe, expect, it } from 'vitest';
import { normalizeSvgIds } from './render-chart-svg.js';

describe('normalizeSvgIds', () => {
  it.each([
    {
      name: 'renumbers gradients and clips per document, references first',
      svg: '<path fill="url(#gradient_7)"/><clipPath id="clip12"/><g clip-path="url(#clip12)"/><linearGradient id="gradient_7"/><linearGradient id="gradient_9"/>',
      expected:
        '<path fill="url(#gradient_0)"/><clipPath id="clip0"/><g clip-path="url(#clip0)"/><linearGradient id="gradient_0"/><linearGradient id="gradient_1"/>',
    },
    { name: 'leaves text alone', svg: '<text>clip12 gradient_3</text>', expected: '<text>clip12 gradient_3</text>' },
    {
      name: 'keeps ids that are already in order',
      svg: '<a id="gradient_0"/><b fill="url(#gradient_0)"/>',
      expected: '<a id="gradient_0"/><b fill="url(#gradient_0)"/>',
    },
  ])('$name', ({ svg, expected }) => {
    expect(normalizeSvgIds(svg)).toBe(expected);
  });
});
