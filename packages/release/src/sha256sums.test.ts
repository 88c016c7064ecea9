import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sha256 } from '@junobench/core';
import { formatSha256Sums, parseSha256Sums } from './sha256sums.js';

describe('SHA256SUMS', () => {
  it('is what sha256sum writes and reads, escapes included', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'junobench-sums-'));
    try {
      const files: Record<string, string> = {
        'b.txt': 'b',
        'a dir/x.csv': 'x',
        'back\\slash.txt': 'y',
        'new\nline.txt': 'z',
      };
      for (const [name, content] of Object.entries(files)) {
        await execFileSync('mkdir', ['-p', path.dirname(path.join(dir, name))]);
        await writeFile(path.join(dir, name), content);
      }
      const text = formatSha256Sums(Object.entries(files).map(([p, c]) => ({ path: p, sha256: sha256(c) })));
      await writeFile(path.join(dir, 'SHA256SUMS'), text);
      const out = execFileSync('sha256sum', ['-c', 'SHA256SUMS'], { cwd: dir, encoding: 'utf8' });
      expect(out.match(/: OK/g)).toHaveLength(4);
      // coreutils' own output parses back to the same lines.
      const theirs = execFileSync('sha256sum', ['--', ...Object.keys(files)], { cwd: dir, encoding: 'utf8' });
      expect(parseSha256Sums(theirs).sort((x, y) => (x.path < y.path ? -1 : 1))).toEqual(parseSha256Sums(text));
      expect(text.split('\n')[0]).toBe(`${sha256('x')}  a dir/x.csv`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('names the bad line', () => {
    expect(() => parseSha256Sums(`${'a'.repeat(64)}  ok\nnot a checksum line\n`, 'SUMS')).toThrow(/line 2 is not/);
  });
});
