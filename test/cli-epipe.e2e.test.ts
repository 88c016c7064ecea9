// `junobench … | head` closes the CLI's stdout before it has written
// everything: the CLI must end quietly (exit 0, nothing on stderr), not with
// an unhandled EPIPE stack trace.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { junobenchBin, repoRoot } from './run-cli.js';

function runWithClosedStdout(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [junobenchBin, ...args], {
      cwd: repoRoot,
      env: { ...process.env, CI: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // No reader is left on the pipe: the child's first write fails with EPIPE.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('a closed stdout (junobench … | head)', () => {
  for (const mode of ['compiled', 'tsx']) {
    it(`ends quietly with exit 0 (${mode})`, async () => {
      const r = await runWithClosedStdout(['verify', '--help'], { JUNOBENCH_CLI: mode === 'tsx' ? 'tsx' : '' });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
    }, 60_000);
  }
});
