import { describe, expect, it } from 'vitest';
import { escapeHtml, formatRelativeHref, parseExternalUrl } from './escape-html.js';

describe('escapeHtml', () => {
  it.each([
    ['plain', 'plain'],
    ['<script>alert(1)</script>', '&lt;script&gt;alert(1)&lt;/script&gt;'],
    [`" onmouseover='x'`, '&quot; onmouseover=&#39;x&#39;'],
    ['a & b', 'a &amp; b'],
    ['&lt; already', '&amp;lt; already'],
    ['', ''],
  ])('%j → %j', (input, expected) => {
    expect(escapeHtml(input)).toBe(expected);
  });
});

describe('parseExternalUrl', () => {
  it.each([
    ['https://www.kaggle.com/code/a/b', 'https://www.kaggle.com/code/a/b'],
    ['http://example.org/x?y=1#z', 'http://example.org/x?y=1#z'],
    ['  https://example.org/a b ', 'https://example.org/a%20b'],
    ['javascript:alert(1)', undefined],
    ['JavaScript:alert(1)', undefined],
    ['data:text/html,<script>alert(1)</script>', undefined],
    ['file:///etc/passwd', undefined],
    ['vbscript:x', undefined],
    ['../relative/path', undefined],
    ['//evil.example/x', undefined],
    ['https://user:secret@example.org/', undefined],
    ['not a url', undefined],
    [undefined, undefined],
    ['', undefined],
  ])('%j → %j', (input, expected) => {
    expect(parseExternalUrl(input)).toBe(expected);
  });
});

describe('formatRelativeHref', () => {
  it.each([
    [['instances', 'pandas_1.html'], 'instances/pandas_1.html'],
    [['', 'index.html'], 'index.html'],
    [['../', 'index.html'], '../index.html'],
    [['..', '../instances/a b', 'data/x#1.csv'], '../../instances/a%20b/data/x%231.csv'],
    [['..', 'inst', 'data/?.csv'], '../inst/data/%3F.csv'],
  ])('%j → %j', (segments, expected) => {
    expect(formatRelativeHref(...segments)).toBe(expected);
  });
});
