import { JunoError, compareCodePoints } from '@junobench/core';

export interface ChecksumLine {
  path: string;
  sha256: string;
}

/**
 * SHA256SUMS in the format `sha256sum` writes and `sha256sum -c` reads: one
 * `<hex>  <path>` line per file, sorted by path. A path with a backslash or a
 * line break is escaped the way coreutils does it (the line starts with `\`,
 * `\\` and `\n` inside the name).
 */
export function formatSha256Sums(lines: readonly ChecksumLine[]): string {
  return [...lines]
    .sort((a, b) => compareCodePoints(a.path, b.path))
    .map((l) => {
      const needsEscape = /[\\\n\r]/.test(l.path);
      const name = needsEscape ? l.path.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\r/g, '\\r') : l.path;
      return `${needsEscape ? '\\' : ''}${l.sha256}  ${name}\n`;
    })
    .join('');
}

/**
 * Parse a SHA256SUMS file (text ` ` or binary ` *` separator, coreutils escapes); bad lines are errors naming the line.
 */
export function parseSha256Sums(text: string, file = 'SHA256SUMS'): ChecksumLine[] {
  const out: ChecksumLine[] = [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  lines.forEach((raw, i) => {
    const escaped = raw.startsWith('\\');
    const line = escaped ? raw.slice(1) : raw;
    const m = /^([0-9a-fA-F]{64}) [ *](.+)$/.exec(line);
    if (!m) {
      throw new JunoError('E_INPUT_FORMAT', `line ${i + 1} is not "<sha256>  <file>"`, {
        location: { file, line: i + 1 },
        hint: 'the file must be in the format `sha256sum` writes',
      });
    }
    const name = escaped
      ? m[2]!.replace(/\\(\\|n|r)/g, (_s, c: string) => (c === 'n' ? '\n' : c === 'r' ? '\r' : '\\'))
      : m[2]!;
    out.push({ path: name, sha256: m[1]!.toLowerCase() });
  });
  return out;
}
