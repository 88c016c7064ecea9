// Runs the real `junobench` binary for end-to-end tests.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const junobenchBin = path.join(repoRoot, 'packages/cli/bin/junobench.js');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export function runJunobench(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [junobenchBin, ...args],
      { cwd: options.cwd ?? repoRoot, env: { ...process.env, CI: '1', ...options.env }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
