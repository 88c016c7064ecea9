// Everything that reaches a page from curated/ (notebook text, labels, URLs,
// file names) is untrusted: it goes through these, never into markup raw.

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for element content or a double-quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
}

/**
 * An href for a link that leaves the report, or undefined when the value is
 * not a plain http(s) URL (javascript:, data:, relative paths, garbage):
 * such values are shown as text instead of becoming links.
 */
export function parseExternalUrl(value: string | undefined): string | undefined {
  if (!value) return undefined;
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  if (url.username || url.password) return undefined;
  return url.href;
}

/** A relative link to a file of the report or of curated/: each path segment percent-encoded. */
export function formatRelativeHref(...segments: string[]): string {
  return segments
    .flatMap((s) => s.split('/'))
    .filter((s) => s !== '' && s !== '.')
    .map((s) => (s === '..' ? s : encodeURIComponent(s)))
    .join('/');
}
