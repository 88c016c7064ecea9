// The formatter is part of the rules: a change that is not formatted fails the
// suite here, not only in an editor. `npm run format` fixes what this reports.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

describe('formatting', () => {
  it('every TypeScript and script file is as prettier formats it (npm run format)', async () => {
    const r = await execa('npm', ['run', '--silent', 'format:check'], { cwd: root, reject: false, all: true });
    expect(r.exitCode, r.all).toBe(0);
  }, 120_000);
});
